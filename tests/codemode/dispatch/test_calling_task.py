"""A tool that does not wait for its cancellation runs in the calling task (the delegate
request's): its abort must still leave that task as it found it, and a cancellation of the
task itself must still abort the call and reach the caller."""

from __future__ import annotations

import asyncio

import pytest
from dispatch_helpers import FakeClock, FakeRegistry, slow_handler, wire

from codemode.cancellation import CancellationToken
from codemode.dispatch import ToolCallRuntime
from codemode.tools.base import Tool

pytestmark = pytest.mark.unit


def dispatcher_for(handler, clock=None):
    dispatcher = ToolCallRuntime(
        FakeRegistry(Tool(name="t", description="", handler=handler)), clock=clock or FakeClock()
    )
    finished = []
    dispatcher.add_listener(lambda event: event.kind == "finished" and finished.append(event.outcome))
    return dispatcher, finished


async def call_then_keep_working(dispatcher, token):
    """The call, then what the calling task does next (a delegate answers its request): an
    await that must not raise, and the task's count of pending cancellations."""
    result = await dispatcher.handle_tool_call("1", "tool-1", wire("t"), "function", {}, token)
    await asyncio.sleep(0)
    return result, asyncio.current_task().cancelling()


async def test_cancelling_the_calling_task_aborts_the_call_once_and_propagates():
    entered, seen = asyncio.Event(), []

    def cancelled(ctx):
        seen.append("cancelled")
        raise asyncio.CancelledError

    dispatcher, finished = dispatcher_for(slow_handler(entered, cancelled))
    token = CancellationToken()
    task = asyncio.ensure_future(dispatcher.handle_tool_call("1", "tool-1", wire("t"), "function", {}, token))
    await entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (seen, finished, token.cancelled) == (["cancelled"], ["aborted"], True)
    assert [r["outcome"] for r in dispatcher.calls_for("1")] == ["aborted"]


async def test_a_handler_that_absorbs_the_cancellation_is_aborted_and_the_task_keeps_working():
    entered = asyncio.Event()
    clock = FakeClock(10.0)
    dispatcher, finished = dispatcher_for(slow_handler(entered, lambda ctx: "returned anyway"), clock)
    token = CancellationToken()
    task = asyncio.ensure_future(call_then_keep_working(dispatcher, token))
    await entered.wait()
    clock.now = 11.5
    token.cancel()
    clock.now = 30.0  # the abort text counts to the cancellation, not to the handler's end
    result, cancelling = await asyncio.wait_for(task, 1)
    assert (result.outcome, result.error, cancelling, finished) == (
        "aborted",
        "aborted by user after 1.5s",
        0,
        ["aborted"],
    )


async def test_a_handler_that_cancels_its_own_call_is_aborted_without_cancelling_the_task():
    async def handler(args, ctx):
        ctx.cancellation.cancel()
        return "done"

    dispatcher, finished = dispatcher_for(handler)
    result, cancelling = await asyncio.wait_for(call_then_keep_working(dispatcher, CancellationToken()), 1)
    assert (result.outcome, cancelling, finished) == ("aborted", 0, ["aborted"])


async def test_a_cancellation_after_the_call_ended_leaves_the_task_alone():
    dispatcher, finished = dispatcher_for(lambda args, ctx: asyncio.sleep(0, result="quick"))
    token = CancellationToken()
    result, cancelling = await call_then_keep_working(dispatcher, token)
    token.cancel()
    await asyncio.sleep(0)
    assert (result.outcome, result.value, cancelling, finished) == ("completed", "quick", 0, ["completed"])


async def test_a_handler_waiting_on_its_token_sees_it_before_it_is_cancelled():
    """A tool that waits for its own cancellation to clean up runs that code (the abort comes
    a turn of the loop after the token, as it did for a handler in a task of its own)."""
    entered, cleaned = asyncio.Event(), []

    async def handler(args, ctx):
        entered.set()
        await ctx.cancellation.wait()
        cleaned.append("cleaned up")
        return "late"

    dispatcher, finished = dispatcher_for(handler)
    token = CancellationToken()
    task = asyncio.ensure_future(call_then_keep_working(dispatcher, token))
    await entered.wait()
    token.cancel()
    result, cancelling = await asyncio.wait_for(task, 1)
    assert (result.outcome, cleaned, cancelling, finished) == ("aborted", ["cleaned up"], 0, ["aborted"])


async def test_a_loop_of_quick_calls_lets_a_slower_call_progress():
    """Quick calls awaited one after another still give the event loop a turn each, as calls
    run in tasks of their own did: a call in flight meanwhile finishes."""

    async def quick(args, ctx):
        return args

    async def slower(args, ctx):
        for _ in range(3):
            await asyncio.sleep(0)
        return "done"

    dispatcher = ToolCallRuntime(
        FakeRegistry(
            Tool(name="quick", description="", handler=quick), Tool(name="slower", description="", handler=slower)
        )
    )

    def call(name, n):
        return dispatcher.handle_tool_call("1", f"tool-{n}", wire(name), "function", {}, CancellationToken())

    slow = asyncio.ensure_future(call("slower", 0))
    quick_calls = 0
    while not slow.done() and quick_calls < 1000:
        await call("quick", quick_calls + 1)
        quick_calls += 1
    assert (slow.done(), slow.result().value if slow.done() else None) == (True, "done")
    assert quick_calls < 20
