"""Python counterparts of the client driver's tests (``seeds/004_0b14a0e7d4eccbe8.txt``,
``driver_tests.rs``), same names and meaning, against :class:`HostConnection` with a scripted
fake host (:mod:`driver_harness`). Behaviour: ``spec/codex-code-mode.md`` §4.5-4.6.

Rust mechanics translated: a per-cell delegate becomes the session's delegate (counts are kept
per cell); dropping a oneshot receiver becomes cancelling the calling task; aborting the driver
task becomes cancelling the connection's reader task; tokio paused time becomes a short
transport allowance (the 60 s arithmetic is checked in ``test_deadlines_follow_codex``);
"no frame was sent" is checked with a fence request whose answer must come next.
"""

from __future__ import annotations

import asyncio

import pytest
from driver_harness import (
    FRAME_TIMEOUT_S,
    SESSION,
    DriverHarness,
    HeldDelegate,
    PanickingDelegate,
    RecordingDelegate,
)

from codemode.errors import CodeModeError
from codemode.host_client import (
    MAX_DEFERRED_DELEGATE_MESSAGES,
    MAX_PENDING_DELEGATE_CALLS,
    WAIT_TRANSPORT_TIMEOUT_S,
    HostConnection,
    terminate_deadline_s,
    wait_deadline_s,
)
from codemode.responses import RuntimeResponse, WaitOutcome

pytestmark = pytest.mark.timeout(60)

SHORT_TRANSPORT_S = 0.2


def terminated(cell_id: str) -> WaitOutcome:
    return WaitOutcome(live=True, response=RuntimeResponse(kind="Terminated", cell_id=cell_id))


async def test_open_session_includes_nondefault_cell_execution_limits():
    async with DriverHarness() as h:
        limits = {"maxYieldTimeMs": 250, "maxHeapSizeBytes": 16 * 1024 * 1024}
        task = asyncio.ensure_future(h.connection.open_session(SESSION, RecordingDelegate(), limits=limits))
        assert await h.next_frame() == {
            "type": "operation/request",
            "id": 1,
            "request": {"method": "session/open", "sessionId": SESSION, "cellExecutionLimits": limits},
        }
        task.cancel()


async def test_deferred_delegates_follow_cell_readiness_and_cancellation():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        first = h.execute_task(source="text('done')", tool_call_id="first-cell")
        assert (await h.next_frame())["id"] == 2
        second = h.execute_task(source="text('done')", tool_call_id="second-cell")
        assert (await h.next_frame())["id"] == 3

        h.notify_delegate(7, "first-cell")
        h.notify_delegate(8, "second-cell")
        h.notify_delegate(9, "first-cell")
        h.delegate_cancel(9)

        h.started(3, "second-cell")
        assert (await asyncio.wait_for(second, FRAME_TIMEOUT_S))[0] == "second-cell"
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": 8,
            "result": {"status": "ok", "value": {"type": "notification/delivered"}},
        }
        assert (delegate.notifications["first-cell"], delegate.notifications["second-cell"]) == (0, 1)

        h.started(2, "first-cell")
        assert (await asyncio.wait_for(first, FRAME_TIMEOUT_S))[0] == "first-cell"
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": 7,
            "result": {"status": "ok", "value": {"type": "notification/delivered"}},
        }
        assert (delegate.notifications["first-cell"], delegate.notifications["second-cell"]) == (1, 1)
        await h.assert_no_frame()
        assert h.connection.alive


async def test_dropped_open_waiter_shuts_down_committed_session():
    async with DriverHarness() as h:
        opening = asyncio.ensure_future(h.connection.open_session(SESSION, RecordingDelegate()))
        assert (await h.next_frame())["request"]["method"] == "session/open"
        opening.cancel()
        with pytest.raises(asyncio.CancelledError):
            await opening
        h.respond(1, {"type": "session/ready", "sessionId": SESSION})
        assert await h.next_frame() == {
            "type": "operation/request",
            "id": 2,
            "request": {"method": "session/shutdown", "sessionId": SESSION},
        }
        h.respond(2, {"type": "session/closed", "sessionId": SESSION})

        with pytest.raises(CodeModeError) as info:
            await h.execute_task(source="text('ok')")
        assert str(info.value) == "unknown code-mode session session-1"


async def test_delegate_cancel_is_best_effort_and_sends_no_late_response():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.tool_delegate(7)
        await delegate.until(lambda: delegate.invocations == 1)
        h.delegate_cancel(7)
        await delegate.until(lambda: delegate.tool_calls_ended == 1)
        await h.assert_no_frame()

        h.notify_delegate(7, "1", text="duplicate")
        await asyncio.wait_for(h.connection.closed.wait(), FRAME_TIMEOUT_S)
        assert not h.connection.alive
        assert h.connection.failure == "duplicate code-mode delegate request ID 7"
        assert delegate.invocations == 1
        assert sum(delegate.notifications.values()) == 0


async def test_delegate_limit_returns_an_error_without_disconnecting():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        for value in range(1, MAX_PENDING_DELEGATE_CALLS + 1):
            h.tool_delegate(value)
        overflow = MAX_PENDING_DELEGATE_CALLS + 1
        h.tool_delegate(overflow)
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": overflow,
            "result": {
                "status": "error",
                "message": f"code-mode host exceeded the limit of {MAX_PENDING_DELEGATE_CALLS} pending delegate calls",
            },
        }
        assert h.connection.alive

        h.delegate_cancel(1)
        h.tool_delegate(MAX_PENDING_DELEGATE_CALLS + 2)
        await delegate.until(lambda: delegate.invocations > MAX_PENDING_DELEGATE_CALLS)
        assert delegate.invocations == MAX_PENDING_DELEGATE_CALLS + 1
        assert h.connection.alive


async def expect_closed_before_cleanup(h: DriverHarness, delegate: HeldDelegate, call, answer) -> None:
    """The held delegate saw its cancellation and cell 1 closed; ``call`` answered ``answer``
    without waiting for the delegate's cleanup, which finishes only once released."""
    closure = {await delegate.next_event(), await delegate.next_event()}
    assert closure == {"cancelled", ("closed", "1")}
    assert await asyncio.wait_for(call, FRAME_TIMEOUT_S) == answer
    assert delegate.events.empty()

    delegate.release.cancel()
    assert await delegate.next_event() == "finished"
    assert delegate.events.empty()
    await h.assert_no_frame()
    assert h.connection.alive


async def test_terminate_closes_cell_without_waiting_for_delegate_cleanup():
    async with DriverHarness() as h:
        delegate = HeldDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.tool_delegate(7)
        assert await delegate.next_event() == "started"

        terminating = asyncio.ensure_future(h.connection.terminate(SESSION, "1"))
        assert await h.next_frame() == {
            "type": "operation/request",
            "id": 3,
            "request": {"method": "session/terminate", "sessionId": SESSION, "cellId": "1"},
        }
        h.delegate_cancel(7)
        h.cell_closed("1")
        h.wait_completed(3, "Terminated", "1")

        await expect_closed_before_cleanup(h, delegate, terminating, terminated("1"))


async def test_shutdown_closes_cell_without_waiting_for_delegate_cleanup():
    async with DriverHarness() as h:
        delegate = HeldDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.tool_delegate(7)
        assert await delegate.next_event() == "started"

        shutting = asyncio.ensure_future(h.connection.shutdown_session(SESSION))
        assert await h.next_frame() == {
            "type": "operation/request",
            "id": 3,
            "request": {"method": "session/shutdown", "sessionId": SESSION},
        }
        h.delegate_cancel(7)
        h.cell_closed("1")
        h.respond(3, {"type": "session/closed", "sessionId": SESSION})

        await expect_closed_before_cleanup(h, delegate, shutting, None)


async def test_completed_delegate_request_id_cannot_be_reused():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.notify_delegate(7, "1", text="once")
        assert (await h.next_frame())["id"] == 7
        h.notify_delegate(7, "1", text="once")
        await asyncio.wait_for(h.connection.closed.wait(), FRAME_TIMEOUT_S)
        assert not h.connection.alive
        assert delegate.notifications["1"] == 1


async def test_delegate_task_panic_becomes_tool_error_without_killing_connection():
    async with DriverHarness() as h:
        await h.open(PanickingDelegate())
        await h.start_cell(2, "1")
        h.tool_delegate(7)
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": 7,
            "result": {"status": "error", "message": "code-mode delegate task failed: delegate panic probe"},
        }
        assert h.connection.alive
        h.cell_closed("1")
        await h.assert_no_frame()
        assert h.connection.alive


async def test_delegate_for_unknown_cell_returns_error_without_invocation():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "known")
        h.tool_delegate(7, cell_id="missing")
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": 7,
            "result": {
                "status": "error",
                "message": "code-mode host delegated for unknown cell missing in session session-1",
            },
        }
        assert h.connection.alive
        assert delegate.invocations == 0


async def test_delegate_after_cell_close_returns_error_without_invocation():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.cell_closed("1")
        h.notify_delegate(7, "1", text="late")
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": 7,
            "result": {
                "status": "error",
                "message": "code-mode host delegated for unknown cell 1 in session session-1",
            },
        }
        assert h.connection.alive
        assert sum(delegate.notifications.values()) == 0


async def test_mismatched_initial_response_fails_connection_and_closes_cell_once():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        initial = await h.start_cell(2, "1")
        h.initial(2, "Yielded", "2")
        with pytest.raises(CodeModeError) as info:
            await asyncio.wait_for(initial, FRAME_TIMEOUT_S)
        assert str(info.value) == "code-mode host returned initial response for cell 2 instead of 1"
        assert not h.connection.alive
        assert delegate.closed_cells == ["1"]


async def test_mismatched_wait_response_fails_connection():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        waiting = asyncio.ensure_future(h.connection.wait(SESSION, "1", 1))
        assert (await h.next_frame())["id"] == 3
        h.wait_completed(3, "Yielded", "2")
        with pytest.raises(CodeModeError) as info:
            await asyncio.wait_for(waiting, FRAME_TIMEOUT_S)
        assert str(info.value) == "code-mode host returned cell 2 for request targeting 1"
        assert not h.connection.alive
        assert delegate.closed_cells == ["1"]


async def test_mismatched_terminate_response_fails_connection():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        terminating = asyncio.ensure_future(h.connection.terminate(SESSION, "1"))
        assert (await h.next_frame())["id"] == 3
        h.wait_completed(3, "Terminated", "2", live=False)
        with pytest.raises(CodeModeError):
            await asyncio.wait_for(terminating, FRAME_TIMEOUT_S)
        assert not h.connection.alive
        assert delegate.closed_cells == ["1"]


async def test_remote_wait_accepts_durations_longer_than_five_minutes():
    async with DriverHarness() as h:
        await h.open(RecordingDelegate())
        await h.start_cell(2, "1")
        waiting = asyncio.ensure_future(h.connection.wait(SESSION, "1", 300_001))
        frame = await h.next_frame()
        assert frame["request"]["request"] == {"cell_id": "1", "yield_time_ms": 300_001}
        h.wait_completed(3, "Yielded", "1")
        assert await asyncio.wait_for(waiting, FRAME_TIMEOUT_S) == WaitOutcome(
            live=True, response=RuntimeResponse(kind="Yielded", cell_id="1")
        )


async def test_deadlines_follow_codex():
    """§4.6: wait = yield + 1 s + 60 s; terminate = 60 s; the connection uses 60 s by default."""
    assert WAIT_TRANSPORT_TIMEOUT_S == 60.0
    assert wait_deadline_s(1) == pytest.approx(61.001)
    assert wait_deadline_s(300_001) == pytest.approx(361.001)
    assert terminate_deadline_s() == 60.0
    assert HostConnection(asyncio.StreamReader(), None).wait_transport_timeout_s == 60.0


async def test_queued_remote_wait_times_out_and_invalidates_the_connection():
    """A stalled remote wait must expire even when its request never reaches the host
    (here the host stopped reading: the write itself never completes)."""
    async with DriverHarness(wait_transport_timeout_s=SHORT_TRANSPORT_S) as h:
        await h.open(RecordingDelegate())
        await h.start_cell(2, "1")
        h.sink.stall()
        with pytest.raises(CodeModeError) as info:
            await asyncio.wait_for(h.connection.wait(SESSION, "1", 1), FRAME_TIMEOUT_S)
        assert str(info.value) == "code-mode host timed out waiting for wait response"
        assert not h.connection.alive
        assert h.connection.closed.is_set() and h.sink.closed


async def test_queued_remote_termination_times_out_and_invalidates_the_connection():
    async with DriverHarness(wait_transport_timeout_s=SHORT_TRANSPORT_S) as h:
        await h.open(RecordingDelegate())
        await h.start_cell(2, "1")
        h.sink.stall()
        with pytest.raises(CodeModeError) as info:
            await asyncio.wait_for(h.connection.terminate(SESSION, "1"), FRAME_TIMEOUT_S)
        assert str(info.value) == "code-mode host timed out waiting for terminate response"
        assert not h.connection.alive
        assert h.connection.closed.is_set() and h.sink.closed


async def test_unanswered_wait_times_out_and_invalidates_the_connection():
    """The same deadline when the request did reach the host and no answer ever comes."""
    async with DriverHarness(wait_transport_timeout_s=SHORT_TRANSPORT_S) as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        waiting = asyncio.ensure_future(h.connection.wait(SESSION, "1", 1))
        assert (await h.next_frame())["request"]["method"] == "session/wait"
        with pytest.raises(CodeModeError, match="^code-mode host timed out waiting for wait response$"):
            await asyncio.wait_for(waiting, FRAME_TIMEOUT_S)
        assert delegate.closed_cells == ["1"]


async def test_cancelled_wait_is_retired_before_next_wait_is_sent():
    async with DriverHarness() as h:
        await h.open(RecordingDelegate())
        await h.start_cell(2, "1")
        first = asyncio.ensure_future(h.connection.wait(SESSION, "1", 60_000))
        assert (await h.next_frame())["id"] == 3
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first

        second = asyncio.ensure_future(h.connection.wait(SESSION, "1", 1))
        assert await h.next_frame() == {"type": "operation/cancel", "id": 3}
        await h.assert_no_frame()
        assert not second.done()

        h.respond_error(3, "code-mode request cancelled")
        frame = await h.next_frame()
        assert (frame["id"], frame["request"]["method"]) == (4, "session/wait")
        h.wait_completed(4, "Yielded", "1")
        assert await asyncio.wait_for(second, FRAME_TIMEOUT_S) == WaitOutcome(
            live=True, response=RuntimeResponse(kind="Yielded", cell_id="1")
        )


async def expect_abandoned_execute_terminated(h: DriverHarness, delegate: RecordingDelegate) -> None:
    """Execute request 2 admitted cell 1 but its caller went away: the client cancels the
    request and terminates the cell (spec §4.6 abandonment), which then closes once."""
    assert await h.next_frame() == {"type": "operation/cancel", "id": 2}
    assert await h.next_frame() == {
        "type": "operation/request",
        "id": 3,
        "request": {"method": "session/terminate", "sessionId": SESSION, "cellId": "1"},
    }
    h.initial(2, "Terminated", "1")
    h.wait_completed(3, "Terminated", "1")
    h.cell_closed("1")
    await h.assert_no_frame()
    assert h.connection.alive
    assert delegate.closed_cells == ["1"]
    assert h.connection.pending_requests == 0


async def test_abandoned_execute_is_tracked_and_terminated_after_admission():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        executing = h.execute_task()
        assert (await h.next_frame())["id"] == 2
        executing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await executing
        h.started(2, "1")

        await expect_abandoned_execute_terminated(h, delegate)


async def test_delivered_but_unclaimed_execute_is_terminated_when_the_caller_is_cancelled():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        executing = h.execute_task()
        assert (await h.next_frame())["id"] == 2
        # The answer is handled by the reader, then the caller is cancelled before it resumes:
        # the admitted cell was delivered but never taken.
        h.started(2, "1")
        asyncio.get_running_loop().call_soon(executing.cancel)
        with pytest.raises(asyncio.CancelledError):
            await executing

        await expect_abandoned_execute_terminated(h, delegate)


async def test_session_accepts_more_than_4096_cells_without_growing_a_tombstone_set():
    cell_count = 4097
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        for sequence in range(1, cell_count + 1):
            request_id = sequence + 1
            cell_id = str(sequence)
            initial = await h.start_cell(request_id, cell_id)
            h.initial(request_id, "Yielded", cell_id)
            assert (await asyncio.wait_for(initial, FRAME_TIMEOUT_S)).kind == "Yielded"
            h.cell_closed(cell_id)
        await delegate.until(lambda: len(delegate.closed_cells) == cell_count)
        assert h.connection.alive
        assert h.connection.live_cells(SESSION) == []
        assert h.connection.pending_requests == 0


async def test_connection_failure_closes_every_live_cell_once():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.connection.fail("host crashed")
        await asyncio.wait_for(h.connection.closed.wait(), 1)
        h.connection.fail("host crashed again")
        assert delegate.closed_cells == ["1"]
        assert h.connection.failure == "host crashed"


async def test_session_cleanup_does_not_wait_for_delegate_completion():
    async with DriverHarness() as h:
        delegate = HeldDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.tool_delegate(7)
        assert await delegate.next_event() == "started"

        h.connection.fail("host crashed")
        closure = {await delegate.next_event(), await delegate.next_event()}
        assert closure == {"cancelled", ("closed", "1")}
        await asyncio.wait_for(h.connection.closed.wait(), 1)
        assert delegate.events.empty()

        delegate.release.cancel()
        assert await delegate.next_event() == "finished"
        assert delegate.events.empty()


async def test_aborting_driver_marks_connection_dead_and_closes_cells():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        waiting = asyncio.ensure_future(h.connection.wait(SESSION, "1", 60_000))
        assert (await h.next_frame())["request"]["method"] == "session/wait"

        h.connection.reader_task.cancel()
        await asyncio.wait_for(h.connection.closed.wait(), 1)
        assert not h.connection.alive
        assert h.sink.closed
        with pytest.raises(CodeModeError, match="^code-mode connection reader exited unexpectedly$"):
            await waiting
        assert delegate.closed_cells == ["1"]


async def test_dropped_shutdown_waiter_does_not_abort_remote_cleanup():
    async with DriverHarness() as h:
        await h.open(RecordingDelegate())
        shutting = asyncio.ensure_future(h.connection.shutdown_session(SESSION))
        assert (await h.next_frame())["request"] == {"method": "session/shutdown", "sessionId": SESSION}
        shutting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await shutting
        h.respond(2, {"type": "session/closed", "sessionId": SESSION})

        with pytest.raises(CodeModeError) as info:
            await h.execute_task(source="text('unreachable')", tool_call_id="call-2")
        assert str(info.value) == "unknown code-mode session session-1"
        await h.assert_no_frame()
        assert h.connection.alive
        assert h.connection.pending_requests == 0


# -- beyond the seed: the other §4.5-4.6 rules of the client ---------------------------------


async def test_deferred_delegates_past_the_limit_fail_the_connection():
    async with DriverHarness() as h:
        await h.open(RecordingDelegate())
        executing = h.execute_task()
        assert (await h.next_frame())["id"] == 2
        for delegate_id in range(1, MAX_DEFERRED_DELEGATE_MESSAGES + 2):
            h.notify_delegate(delegate_id, "not-yet")
        await asyncio.wait_for(h.connection.closed.wait(), FRAME_TIMEOUT_S)
        assert h.connection.failure == "code-mode host exceeded deferred cross-socket message limit"
        with pytest.raises(CodeModeError, match="deferred cross-socket message limit"):
            await executing


async def test_deferred_delegates_for_a_cell_never_admitted_get_the_unknown_cell_error():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        executing = h.execute_task()
        assert (await h.next_frame())["id"] == 2
        h.notify_delegate(7, "other")
        h.respond_error(2, "code-mode host has too many active cells")
        with pytest.raises(CodeModeError, match="^code-mode host has too many active cells$"):
            await executing
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": 7,
            "result": {
                "status": "error",
                "message": "code-mode host delegated for unknown cell other in session session-1",
            },
        }
        assert h.connection.alive and sum(delegate.notifications.values()) == 0


async def test_delegate_for_unknown_session_is_answered_with_codex_text():
    async with DriverHarness() as h:
        await h.open(RecordingDelegate())
        h.notify_delegate(7, "1", session_id="session-9")
        assert await h.next_frame() == {
            "type": "delegate/response",
            "id": 7,
            "result": {"status": "error", "message": "code-mode host delegated for unknown session session-9"},
        }
        assert h.connection.alive


@pytest.mark.parametrize(
    ("message", "failure"),
    [
        (
            {"type": "operation/response", "id": 99, "result": {"status": "ok", "value": {}}},
            "code-mode host answered unknown request ID 99",
        ),
        (
            {"type": "connection/ready", "selectedVersion": 1, "capabilities": []},
            "code-mode host sent a second handshake response",
        ),
        ({"type": "surprise"}, "code-mode host sent an unknown message type 'surprise'"),
    ],
)
async def test_protocol_violations_fail_the_connection_and_close_cells(message, failure):
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        h.send(message)
        await asyncio.wait_for(h.connection.closed.wait(), FRAME_TIMEOUT_S)
        assert h.connection.failure == failure
        assert delegate.closed_cells == ["1"]


async def test_reused_live_cell_id_fails_the_connection():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        executing = h.execute_task()
        assert (await h.next_frame())["id"] == 3
        h.started(3, "1")
        with pytest.raises(CodeModeError, match="^code-mode host reused live cell 1$"):
            await asyncio.wait_for(executing, FRAME_TIMEOUT_S)
        assert delegate.closed_cells == ["1"]


async def test_host_eof_fails_pending_requests_with_the_reason():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        initial = await h.start_cell(2, "1")
        waiting = asyncio.ensure_future(h.connection.wait(SESSION, "1", 60_000))
        assert (await h.next_frame())["request"]["method"] == "session/wait"
        h.reader.feed_eof()
        for future in (waiting, initial):
            with pytest.raises(CodeModeError, match="^code-mode host closed its stdout$"):
                await asyncio.wait_for(future, FRAME_TIMEOUT_S)
        assert delegate.closed_cells == ["1"]
        with pytest.raises(CodeModeError, match="^code-mode host closed its stdout$"):
            await h.execute_task()
