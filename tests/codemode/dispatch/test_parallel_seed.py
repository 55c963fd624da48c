"""Ports of the tests of Codex's ``core/src/tools/parallel.rs`` (its test module).

Rust mechanics become asyncio: a
``oneshot`` is a Future, a ``Notify`` an Event; tool lifecycle outcomes are the dispatcher's
``finished`` events and ``calls_for`` records.
"""

from __future__ import annotations

import asyncio

import pytest
from dispatch_helpers import FakeClock, FakeRegistry, wire

from codemode.cancellation import CancellationToken
from codemode.dispatch import ToolCallRuntime
from codemode.tools.base import Tool

pytestmark = pytest.mark.unit


async def immediate(args, ctx):
    return "ok"


def outcomes(dispatcher: ToolCallRuntime, cell: str = "cell-1") -> list[str]:
    return [r["outcome"] for r in dispatcher.calls_for(cell)]


async def test_tool_call_timing_guard_ignores_code_mode_source():
    """``tool_call_timing_guard_ignores_code_mode_source``: nested code-mode calls emit no
    ``codex.tool_call`` timing event. Here every call is nested, so timing is kept per cell
    (for the enclosing execute's metadata) and nothing is logged as an independent tool-call
    event."""
    clock = FakeClock(100.0, step=0.25)  # read at arrival, at the handler's start, at the end
    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="test_tool", description="", handler=immediate)), clock=clock)
    result = await dispatcher.handle_tool_call(
        "cell-1", "tool-1", wire("test_tool"), "function", {}, CancellationToken()
    )
    assert result.value == "ok"
    assert dispatcher.calls_for("cell-1") == [
        {
            "tool": "test_tool",
            "runtime_tool_call_id": "tool-1",
            "outcome": "completed",
            "success": True,
            "execution_started": True,
            "dispatch_ms": 250.0,
            "handler_ms": 250.0,
            "total_ms": 500.0,
        }
    ]


async def test_cancellation_before_dispatch_admission_logs_dispatch_only_timing():
    """``cancellation_before_dispatch_admission_logs_dispatch_only_timing``: cancelled while the
    gate is held elsewhere -> one record, not started, handler time 0, dispatch time == total
    time."""
    tool = Tool(name="test_tool", description="", handler=immediate, supports_parallel=False)
    clock = FakeClock(100.0)
    dispatcher = ToolCallRuntime(FakeRegistry(tool), clock=clock)
    started = asyncio.Event()

    def on_started(event):
        if event.kind == "started":
            clock.now = 100.4
            started.set()

    dispatcher.add_listener(on_started)
    gate = dispatcher._gate("cell-1")
    await gate.acquire(True)
    token = CancellationToken()
    task = asyncio.ensure_future(
        dispatcher.handle_tool_call("cell-1", "tool-1", wire("test_tool"), "function", {}, token)
    )
    await started.wait()
    token.cancel()
    result = await asyncio.wait_for(task, 1)
    assert (result.outcome, result.error) == ("aborted", "aborted by user after 0.4s")
    (record,) = dispatcher.calls_for("cell-1")
    assert (record["execution_started"], record["dispatch_ms"], record["handler_ms"], record["total_ms"]) == (
        False,
        400.0,
        0.0,
        400.0,
    )
    gate.release(True)


async def test_cancellation_after_handler_finishes_preserves_completed_lifecycle():
    """``cancellation_after_handler_finishes_preserves_completed_lifecycle``: cancelling while
    the finish is being reported keeps the real output and exactly ``[Completed{success:
    true}]``. The token is cancelled from inside the ``finished`` event, the moment the finish
    is reported (Codex blocks the report on a ``Notify`` to cancel in that window)."""
    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="test_tool", description="", handler=immediate)))
    token = CancellationToken()
    seen: list[str] = []

    def on_event(event):
        if event.kind == "finished":
            seen.append(event.outcome)
            token.cancel()

    dispatcher.add_listener(on_event)
    result = await dispatcher.handle_tool_call("cell-1", "tool-1", wire("test_tool"), "function", {}, token)
    assert token.cancelled
    assert result.outcome == "completed" and result.value == "ok" and result.success is True
    assert seen == ["completed"]
    assert outcomes(dispatcher) == ["completed"]


async def test_cancellation_waiting_for_runtime_cleanup_emits_only_aborted_lifecycle():
    """``cancellation_waiting_for_runtime_cleanup_emits_only_aborted_lifecycle``: a tool that
    waits for runtime cancellation is awaited through its cleanup; the output says ``aborted
    by user`` and the only outcome is ``Aborted``."""
    started = asyncio.get_running_loop().create_future()
    cleanup_started = asyncio.get_running_loop().create_future()
    allow_cleanup = asyncio.Event()
    order: list[str] = []

    async def handler(args, ctx):
        started.set_result(None)
        await ctx.cancellation.wait()
        cleanup_started.set_result(None)
        await allow_cleanup.wait()
        order.append("cleanup complete")
        return "cleanup complete"

    tool = Tool(name="cleanup_tool", description="", handler=handler, waits_for_cancellation=True)
    clock = FakeClock(100.0)
    dispatcher = ToolCallRuntime(FakeRegistry(tool), clock=clock)
    token = CancellationToken()
    task = asyncio.ensure_future(
        dispatcher.handle_tool_call("cell-1", "tool-1", wire("cleanup_tool"), "function", {}, token)
    )
    await started
    clock.now = 103.04
    token.cancel()
    task.add_done_callback(lambda _: order.append("call returned"))
    await cleanup_started
    allow_cleanup.set()
    result = await asyncio.wait_for(task, 1)
    assert (result.outcome, result.error) == ("aborted", "aborted by user after 3.0s")
    # The abort waited for the tool's cleanup: a call that returned at the cancellation
    # returned first, or with the cleanup never run.
    assert order == ["cleanup complete", "call returned"]
    assert outcomes(dispatcher) == ["aborted"]
