"""Requests through the client driver: opening, waits and their deadlines, terminate and
shutdown, and callers that go away (abandonment). Python counterparts of Codex's
``driver_tests.rs`` (``codex-rs/code-mode/src/remote_session/connection``), same names and
meaning, against :class:`codemode.host.HostConnection` with a scripted fake host.

Rust mechanics translated: dropping a oneshot receiver becomes cancelling the calling task;
tokio paused time becomes a short transport allowance (the 60 s arithmetic is checked in
``test_deadlines_follow_codex``); "no frame was sent" is checked with a fence request whose
answer must come next.
"""

from __future__ import annotations

import asyncio

import pytest
from driver_harness import (
    FRAME_TIMEOUT_S,
    SESSION,
    DriverHarness,
    HeldDelegate,
    RecordingDelegate,
    expect_abandoned_execute_terminated,
    expect_closed_before_cleanup,
    terminated,
)

from codemode.errors import CodeModeError
from codemode.host import (
    WAIT_TRANSPORT_TIMEOUT_S,
    HostConnection,
    terminate_deadline_s,
    wait_deadline_s,
)
from codemode.responses import RuntimeResponse, WaitOutcome

pytestmark = pytest.mark.timeout(60)

SHORT_TRANSPORT_S = 0.2


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.unit
async def test_deadlines_follow_codex():
    """Codex's deadlines: wait = yield + 1 s + 60 s; terminate = 60 s; the connection uses 60 s by default."""
    assert WAIT_TRANSPORT_TIMEOUT_S == 60.0
    assert wait_deadline_s(1) == pytest.approx(61.001)
    assert wait_deadline_s(300_001) == pytest.approx(361.001)
    assert terminate_deadline_s() == 60.0
    assert HostConnection(asyncio.StreamReader(), None).wait_transport_timeout_s == 60.0


@pytest.mark.slow
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


@pytest.mark.unit
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


@pytest.mark.slow
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


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.slow
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


@pytest.mark.unit
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
