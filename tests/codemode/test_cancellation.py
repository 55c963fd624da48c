"""CancellationToken's watchers and first_of: a tool call waits for its handler or its
cancellation, whichever comes first, without a task of its own."""

from __future__ import annotations

import asyncio

import pytest

from codemode.cancellation import CancellationToken, first_of

pytestmark = pytest.mark.unit


def test_watchers_are_called_once_in_order_and_can_stop_watching():
    token, calls = CancellationToken(), []
    token.watch(lambda: calls.append("a"))
    stop = token.watch(lambda: calls.append("b"))
    token.watch(lambda: calls.append("c"))
    stop()
    token.cancel()
    token.cancel()
    assert calls == ["a", "c"]
    token.watch(lambda: calls.append("late"))  # already cancelled: called at once
    assert calls == ["a", "c", "late"]


async def test_wait_returns_when_cancelled():
    token = CancellationToken()
    waiter = asyncio.ensure_future(token.wait())
    await asyncio.sleep(0)
    assert not waiter.done()
    token.cancel()
    await asyncio.wait_for(waiter, 5)
    assert token.cancelled


async def _waiting() -> tuple[CancellationToken, asyncio.Event, asyncio.Future[bool], asyncio.Future[None]]:
    """A token, a gate, a task waiting on the gate, and ``first_of`` of the two, started."""
    token = CancellationToken()
    gate = asyncio.Event()
    task = asyncio.ensure_future(gate.wait())
    waiting = asyncio.ensure_future(first_of(task, token))
    await asyncio.sleep(0)
    return token, gate, task, waiting


async def test_first_of_returns_when_the_task_ends():
    token, gate, task, waiting = await _waiting()
    assert not waiting.done()
    gate.set()
    await asyncio.wait_for(waiting, 5)
    assert task.done() and not token.cancelled


async def test_first_of_returns_when_the_token_is_cancelled_and_leaves_the_task_running():
    token, gate, task, waiting = await _waiting()
    token.cancel()
    await asyncio.wait_for(waiting, 5)
    assert not task.done()
    gate.set()
    await task


async def test_cancelling_the_caller_of_first_of_leaves_the_task_running():
    _, gate, task, waiting = await _waiting()
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not task.done()
    gate.set()
    await task
