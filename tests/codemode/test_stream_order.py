"""A cell's events in one ordered stream (``codemode/cell_events.py``), in the host's order.

- the connection's state machine reports a cell's events in the order of the host's frames,
  for every order the host can send them in one read batch (each frame is one transition, so
  a batch is a sequence of them); an abandoned wait's late answer is no event;
- the kernel's reader keeps that order (``tests/kernel/test_cell_reader_units.py``); the
  rendering of such batches through the Jupyter protocol is ``tests/kernel/test_kernel_event_order.py``.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from test_connection_state import SESSION, admit, opened, tool_request

from codemode.cell_events import Notification
from codemode.host.effects import Report
from codemode.wire import messages

pytestmark = pytest.mark.unit


def _frames(execute_id: int, wait_id: int) -> dict[str, dict[str, Any]]:
    """One frame of each kind the host sends about cell 1, by the name of its event."""
    live = messages.live_cell(messages.yielded("1", [messages.input_text("waited")]))
    return {
        "InitialAnswer": messages.initial_response(
            execute_id, messages.ok(messages.yielded("1", [messages.input_text("first")]))
        ),
        "WaitAnswer": messages.operation_response(wait_id, messages.ok(messages.wait_completed(live))),
        "Notification": messages.notification_send(20, SESSION, "call-1", "1", "note"),  # type: ignore[dict-item]
        "ToolInvoked": tool_request(21, "1"),
        "StoredValuesCommitted": messages.stored_values(SESSION, {"k": 1}),  # type: ignore[dict-item]
    }


def _reported(effects: list[Any]) -> list[str]:
    return [type(e.event).__name__ for e in effects if isinstance(e, Report)]


@pytest.mark.parametrize("order", list(itertools.permutations(_frames(0, 0))), ids="-".join)
def test_a_batch_in_any_order_is_reported_in_that_order(order):
    state = opened()
    execute_id = admit(state, "1")
    wait = state.begin("wait", SESSION, "1")
    wait.sent = True
    frames = _frames(execute_id, wait.request_id)
    effects = [effect for name in order for effect in state.on_message(frames[name])]
    effects += state.on_message(messages.cell_closed(SESSION, "1"))
    assert _reported(effects) == [*order, "Closed"]


def test_a_batch_ending_in_a_close_reports_nothing_of_the_cell_after_it():
    state = opened()
    execute_id = admit(state, "1")
    initial = messages.initial_response(execute_id, messages.ok(messages.result("1", [], None)))
    effects = state.on_message(initial) + state.on_message(messages.cell_closed(SESSION, "1"))
    effects += state.on_message(messages.notification_send(30, SESSION, "call-2", "1", "late"))  # type: ignore[arg-type]
    assert _reported(effects) == ["InitialAnswer", "Closed"]
    text = f"code-mode host delegated for unknown cell 1 in session {SESSION}"
    assert effects[-1].message == messages.delegate_response(30, messages.error(text))  # type: ignore[union-attr]


def test_the_answer_to_an_abandoned_wait_is_no_event():
    state = opened()
    admit(state, "1")
    wait = state.begin("wait", SESSION, "1")
    wait.sent = True
    state.abandon(wait)
    live = messages.live_cell(messages.yielded("1", []))
    effects = state.on_message(messages.operation_response(wait.request_id, messages.ok(messages.wait_completed(live))))
    assert _reported(effects) == []


def test_a_notification_is_reported_and_answered_at_once():
    state = opened()
    admit(state, "1")
    effects = state.on_message(messages.notification_send(40, SESSION, "call-3", "1", "hi"))  # type: ignore[arg-type]
    session = state.sessions.get(SESSION)
    delivered = messages.delegate_response(40, messages.notification_delivered())
    assert effects == [Report(session, Notification("1", "hi")), effects[1]]  # type: ignore[arg-type]
    assert effects[1].message == delivered  # type: ignore[union-attr]
