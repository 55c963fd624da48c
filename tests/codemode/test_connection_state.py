"""The connection's state machine driven with plain function calls: no process, no event loop.

Each test feeds :class:`codemode.host.ConnectionState` what the host sent (typed messages from
:mod:`codemode.wire.messages`) or what a caller did, and compares the effects it returns with the
ones the driver must apply.
"""

from __future__ import annotations

from typing import Any

import pytest

from codemode.cell_events import Closed, InitialAnswer, SessionEvent, ToolInvoked, WaitAnswer
from codemode.host.delegate_book import MAX_PENDING_DELEGATE_CALLS
from codemode.host.effects import (
    Admitted,
    HostExiting,
    InitialReject,
    InitialResolve,
    Kill,
    Reject,
    Report,
    Resolve,
    Revoke,
    Send,
    ServeDelegate,
    Settle,
    TerminateAbandoned,
)
from codemode.host.state import ConnectionState
from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire import messages

pytestmark = pytest.mark.unit

SESSION = "session-1"


class Delegate:
    """Never called: the state machine only names it in effects."""

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: Any) -> Any: ...
    def report(self, event: SessionEvent) -> None: ...


def opened() -> ConnectionState:
    state = ConnectionState()
    state.add_session(SESSION, Delegate())
    request = state.begin("open", SESSION)
    request.sent = True
    assert state.on_message(messages.operation_response(1, messages.ok(messages.session_ready(SESSION)))) == [
        Settle(1),
        Resolve(1, {"type": "session/ready", "sessionId": SESSION}),
    ]
    return state


def admit(state: ConnectionState, cell_id: str) -> int:
    request = state.begin("execute", SESSION)
    request.sent = True
    started = messages.operation_response(request.request_id, messages.ok(messages.execution_started(cell_id)))
    assert state.on_message(started) == [Settle(request.request_id), Admitted(request.request_id, cell_id, True)]
    return request.request_id


def tool_request(delegate_id: int, cell_id: str) -> dict[str, Any]:
    invocation = {
        "cell_id": cell_id,
        "runtime_tool_call_id": "tool-1",
        "tool_name": {"name": "echo", "namespace": None},
        "tool_kind": "function",
        "input": None,
    }
    return messages.tool_invoke(delegate_id, SESSION, invocation)  # type: ignore[arg-type, return-value]


def test_a_cell_is_admitted_answered_and_closed_once():
    state = opened()
    request_id = admit(state, "1")
    initial = messages.initial_response(
        request_id, messages.ok(messages.result("1", [messages.input_text("hi")], None))
    )
    session = state.sessions.get(SESSION)
    response = RuntimeResponse("Result", "1", [{"type": "input_text", "text": "hi"}], None)
    assert state.on_message(initial) == [
        Report(session, InitialAnswer("1", response)),  # type: ignore[arg-type]
        InitialResolve(request_id, response),
    ]
    assert state.on_message(messages.cell_closed(SESSION, "1")) == [Report(session, Closed("1"))]  # type: ignore[arg-type]
    assert state.on_message(messages.cell_closed(SESSION, "1")) == []
    assert state.requests.pending == {} and state.requests.initial == {}


def test_a_wait_answer_for_another_cell_rejects_the_caller_then_fails_the_connection():
    state = opened()
    admit(state, "1")
    wait = state.begin("wait", SESSION, "1")
    wait.sent = True
    answer = messages.wait_completed(messages.live_cell(messages.yielded("2", [])))
    effects = state.on_message(messages.operation_response(wait.request_id, messages.ok(answer)))
    text = "code-mode host returned cell 2 for request targeting 1"
    session = state.sessions  # cleared by the failure
    assert effects[:2] == [Settle(wait.request_id), Reject(wait.request_id, text)]
    assert effects[2:] == [
        InitialReject(2, text, connection_error=True),
        Report(effects[3].session, Closed("1")),
        Kill(),
    ]  # type: ignore[union-attr]
    assert not state.alive and state.failure == text and list(session) == []
    assert state.fail("again") == []


def test_a_good_wait_answer_resolves_with_the_outcome():
    state = opened()
    admit(state, "1")
    wait = state.begin("wait", SESSION, "1")
    answer = messages.wait_completed(messages.live_cell(messages.yielded("1", [messages.input_text("x")])))
    outcome = WaitOutcome(True, RuntimeResponse("Yielded", "1", [messages.input_text("x")]))
    assert state.on_message(messages.operation_response(wait.request_id, messages.ok(answer))) == [
        Settle(wait.request_id),
        Report(state.sessions.get(SESSION), WaitAnswer("1", outcome)),  # type: ignore[arg-type]
        Resolve(wait.request_id, outcome),
    ]


def test_failure_rejects_every_caller_closes_every_cell_once_and_kills():
    state = opened()
    first, _ = admit(state, "1"), admit(state, "2")
    wait = state.begin("wait", SESSION, "1")
    effects = state.fail("code-mode host closed its stdout")
    session = state.sessions.get(SESSION)
    assert session is None
    closed = [e.event for e in effects if isinstance(e, Report) and isinstance(e.event, Closed)]
    assert [e.cell_id for e in closed] == ["1", "2"]
    assert Reject(wait.request_id, "code-mode host closed its stdout", True) in effects
    assert InitialReject(first, "code-mode host closed its stdout", True) in effects
    assert effects[-1] == Kill()


def test_a_failure_is_idle_only_when_no_started_cell_is_live_and_no_open_awaits_the_host():
    # The kernel tells the user about an idle loss at the next cell: nobody else was told.
    idle = opened()
    request_id = admit(idle, "1")
    idle.on_message(messages.initial_response(request_id, messages.ok(messages.result("1", [], None))))
    idle.on_message(messages.cell_closed(SESSION, "1"))
    idle.begin("bindings", SESSION).sent = True  # a completion's question is nobody's cell
    assert idle.failed_idle is False  # still alive
    idle.fail("code-mode host closed its stdout")
    assert idle.failed_idle is True

    live = opened()
    admit(live, "1")
    live.fail("code-mode host closed its stdout")
    assert live.failed_idle is False

    owed = opened()
    owed_id = admit(owed, "1")
    owed.on_message(messages.cell_closed(SESSION, "1"))  # closed, its initial response still owed
    assert InitialReject(owed_id, "code-mode host closed its stdout", True) in owed.fail(
        "code-mode host closed its stdout"
    )
    assert owed.failed_idle is False

    opening = ConnectionState()
    opening.add_session(SESSION, Delegate())
    opening.begin("open", SESSION).sent = True
    opening.fail("code-mode host closed its stdout")
    assert opening.failed_idle is False


def test_an_execute_in_flight_that_the_host_never_admitted_leaves_the_failure_idle():
    """The host was killed, the execute went out before its death was noticed, then the
    connection failed: no ``execution/started`` was read, so no cell started and the failure
    lost nothing started (the session sends the execute to a new host). Once admitted, the
    same failure loses the cell."""
    for written in (True, False):
        unacknowledged = opened()
        execute = unacknowledged.begin("execute", SESSION)
        execute.sent = written
        effects = unacknowledged.fail("code-mode host exited with status signal: 9 (SIGKILL)")
        assert Reject(execute.request_id, "code-mode host exited with status signal: 9 (SIGKILL)", True) in effects
        assert not [e for e in effects if isinstance(e, Report | InitialReject)]
        assert unacknowledged.failed_idle is True

    admitted = opened()
    admit(admitted, "1")
    admitted.fail("code-mode host exited with status signal: 9 (SIGKILL)")
    assert admitted.failed_idle is False


def test_an_abandoned_execute_is_cancelled_then_its_late_cell_terminated():
    state = opened()
    execute = state.begin("execute", SESSION)
    execute.sent = True
    assert state.abandon(execute) == [Send(messages.operation_cancel(execute.request_id))]
    started = messages.operation_response(execute.request_id, messages.ok(messages.execution_started("1")))
    assert state.on_message(started) == [
        Settle(execute.request_id),
        Admitted(execute.request_id, "1", False),
        TerminateAbandoned(SESSION, "1"),
    ]


def test_an_unsent_request_that_is_abandoned_is_only_forgotten():
    state = opened()
    wait = state.begin("wait", SESSION, "1")
    assert state.abandon(wait) == [Settle(wait.request_id)]
    assert state.requests.pending == {}


def test_an_abandoned_wait_holds_back_the_next_wait_until_answered():
    state = opened()
    admit(state, "1")
    wait = state.begin("wait", SESSION, "1")
    wait.sent = True
    assert state.abandon(wait) == [Send(messages.operation_cancel(wait.request_id))]
    assert state.requests.retiring_wait(SESSION, "1") is wait
    state.on_message(messages.operation_response(wait.request_id, messages.error("code-mode request cancelled")))
    assert state.requests.retiring_wait(SESSION, "1") is None


def test_a_delegate_request_for_a_cell_not_yet_admitted_waits_for_its_execute():
    state = opened()
    execute = state.begin("execute", SESSION)
    execute.sent = True
    assert state.on_message(tool_request(7, "1")) == []
    session = state.sessions.get(SESSION)
    started = messages.operation_response(execute.request_id, messages.ok(messages.execution_started("1")))
    effects = state.on_message(started)
    assert effects == [
        Settle(execute.request_id),
        Admitted(execute.request_id, "1", True),
        Report(session, ToolInvoked("1", tool_request(7, "1")["request"]["invocation"])),  # type: ignore[arg-type, index]
        ServeDelegate(7, session, "1", tool_request(7, "1")),  # type: ignore[arg-type]
    ]
    assert state.on_message(messages.delegate_cancel(7)) == [Revoke(7)]


def test_the_1025th_delegate_call_is_answered_with_codex_error():
    state = opened()
    admit(state, "1")
    for delegate_id in range(1, MAX_PENDING_DELEGATE_CALLS + 1):
        assert isinstance(state.on_message(tool_request(delegate_id, "1"))[1], ServeDelegate)
    text = "code-mode host exceeded the limit of 1024 pending delegate calls"
    assert state.on_message(tool_request(5000, "1")) == [Send(messages.delegate_response(5000, messages.error(text)))]
    state.delegate_finished(1)
    assert isinstance(state.on_message(tool_request(5001, "1"))[1], ServeDelegate)


def test_the_exit_notice_retires_the_connection_but_answers_still_arrive():
    state = opened()
    admit(state, "1")
    terminate = state.begin("terminate", SESSION, "1")
    assert state.on_message(messages.host_exiting("cell 1 could not be stopped")) == [
        HostExiting("cell 1 could not be stopped")
    ]
    assert state.on_message(messages.host_exiting("again")) == []
    assert state.retiring == "cell 1 could not be stopped" and state.alive
    answer = messages.wait_completed(messages.live_cell(messages.terminated("1", [])))
    assert state.on_message(messages.operation_response(terminate.request_id, messages.ok(answer)))[2] == Resolve(
        terminate.request_id, WaitOutcome(True, RuntimeResponse("Terminated", "1"))
    )


def test_yield_wait_aims_at_the_wait_in_flight_only():
    state = opened()
    admit(state, "1")
    assert state.yield_wait(SESSION, "1") == []
    wait = state.begin("wait", SESSION, "1")
    assert state.yield_wait(SESSION, "1") == []  # not sent yet
    wait.sent = True
    assert state.yield_wait(SESSION, "1") == [Send(messages.operation_yield(wait.request_id))]
    assert state.yield_wait(SESSION, "2") == []


def test_a_probe_is_answered_by_any_result():
    state = opened()
    probe = state.begin("probe", "")
    assert not state.requests.awaiting_host()
    reply = messages.operation_response(probe.request_id, messages.error("unknown code-mode session x"))
    assert state.on_message(reply) == [Settle(probe.request_id), Resolve(probe.request_id, None)]


def test_a_bindings_answer_resolves_with_its_pairs_or_none_and_a_bad_one_fails_the_connection():
    state = opened()
    listed = state.begin("bindings", SESSION)
    answer = messages.bindings_listed([["rows", "property"], ["helper", "function"]])
    assert state.on_message(messages.operation_response(listed.request_id, messages.ok(answer))) == [
        Settle(listed.request_id),
        Resolve(listed.request_id, [("rows", "property"), ("helper", "function")]),
    ]
    busy = state.begin("bindings", SESSION)
    reply = messages.operation_response(busy.request_id, messages.ok(messages.bindings_listed(None)))
    assert state.on_message(reply) == [Settle(busy.request_id), Resolve(busy.request_id, None)]
    bad = state.begin("bindings", SESSION)
    effects = state.on_message(messages.operation_response(bad.request_id, messages.ok({"type": "session/bindings"})))
    assert effects[1] == Reject(
        bad.request_id,
        "code-mode host returned an invalid bindings response: invalid session/bindings answer: "
        "{'type': 'session/bindings'}",
    )
    assert not state.alive
