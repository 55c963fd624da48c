"""Failures of the connection seen through the client driver: answers naming the wrong cell,
protocol violations, host EOF, an aborted reader, explicit failure; every live cell is
reported closed exactly once and delegate calls are revoked without waiting for them. Python
counterparts of Codex's ``driver_tests.rs`` (``codex-rs/code-mode/src/remote_session/connection``),
same names and meaning, against :class:`codemode.host.HostConnection` with a scripted fake host.
Aborting the driver task becomes cancelling the connection's reader task.
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
)

from codemode.errors import CodeModeError

pytestmark = [pytest.mark.unit, pytest.mark.timeout(60)]


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
