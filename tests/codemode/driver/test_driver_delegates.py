"""Delegate requests through the client driver (tool calls and notifications the host asks
for): deferral until a cell is admitted, ``delegate/cancel``, the 1024-call limit, id reuse,
unknown sessions and cells. Python counterparts of Codex's ``driver_tests.rs``
(``codex-rs/code-mode/src/remote_session/connection``), same names and meaning, against
:class:`codemode.host.HostConnection` with a scripted fake host (:mod:`driver_harness`).
"""

from __future__ import annotations

import asyncio

import pytest
from driver_harness import (
    FRAME_TIMEOUT_S,
    DriverHarness,
    PanickingDelegate,
    RecordingDelegate,
)

from codemode.errors import CodeModeError
from codemode.host import (
    MAX_DEFERRED_DELEGATE_MESSAGES,
    MAX_PENDING_DELEGATE_CALLS,
)

pytestmark = [pytest.mark.unit, pytest.mark.timeout(60)]


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
