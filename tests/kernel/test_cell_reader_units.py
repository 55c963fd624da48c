"""The kernel's one reader of a cell's events (``kernel/cell_reader.py``) keeps the host's order:
it handles what is not an answer before it returns the answer after it, leaves what came after
for the next reader, skips answers nobody waits for, raises a failed request only after the
events put before it, and ``caught_up`` waits for it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode.cell_events import CellStream, Closed, InitialAnswer, Notification, ToolInvoked, WaitAnswer
from codemode.errors import HostConnectionError
from codemode.kernel.cell_reader import CellReader
from codemode.kernel.state import KernelState
from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire import messages

pytestmark = pytest.mark.unit

INVOCATION: Any = {
    "cell_id": "1",
    "runtime_tool_call_id": "tool-1",
    "tool_name": {"name": "echo", "namespace": None},
    "tool_kind": "function",
    "input": None,
}


def _yielded(text: str) -> RuntimeResponse:
    return RuntimeResponse("Yielded", "1", [messages.input_text(text)])  # type: ignore[list-item]


async def test_the_reader_handles_what_came_before_an_answer_and_leaves_what_came_after():
    stream, handled = CellStream("1"), []
    reader = CellReader(stream, handled.append)
    before = [Notification("1", "a"), ToolInvoked("1", INVOCATION)]
    after = [Notification("1", "b"), Closed("1")]
    for event in [*before, InitialAnswer("1", _yielded("x")), *after]:
        stream.put(event)
    answer = await reader.answer(InitialAnswer)
    assert answer == InitialAnswer("1", _yielded("x"))
    assert handled == before  # "b" and the close wait for the next reader
    assert reader.drain() == []
    assert handled == [*before, *after]


async def test_an_answer_nobody_waits_for_is_skipped_and_the_reader_waits_for_its_own():
    stream, handled = CellStream("1"), []
    reader = CellReader(stream, handled.append)
    waiting = asyncio.ensure_future(reader.answer(WaitAnswer))
    stream.put(InitialAnswer("1", _yielded("old")))
    stream.put(Notification("1", "n"))
    await asyncio.sleep(0)
    assert not waiting.done() and handled == [Notification("1", "n")]
    outcome = WaitOutcome(True, _yielded("w"))
    stream.put(WaitAnswer("1", outcome))
    assert await asyncio.wait_for(waiting, 5) == WaitAnswer("1", outcome)


async def test_a_failed_request_is_raised_after_the_events_put_before_it():
    stream, handled = CellStream("1"), []
    reader = CellReader(stream, handled.append)
    request: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(reader.answer(WaitAnswer, request))
    await asyncio.sleep(0)
    stream.put(Closed("1"))  # a connection failure closes the cell, then fails its requests
    request.set_exception(HostConnectionError("code-mode host closed its stdout", 1))
    with pytest.raises(HostConnectionError, match="closed its stdout"):
        await asyncio.wait_for(waiting, 5)
    assert handled == [Closed("1")]


async def test_caught_up_waits_for_the_reader_and_a_released_reader_gets_events_at_once():
    stream, handled = CellStream("1"), []
    reader = CellReader(stream, handled.append)
    await asyncio.wait_for(stream.caught_up(), 5)  # not handed to a reader: at once
    stream.subscribed = True
    stream.put(Notification("1", "a"))
    waiting = asyncio.ensure_future(stream.caught_up())
    await asyncio.sleep(0)
    assert not waiting.done()
    reader.release()
    await asyncio.wait_for(waiting, 5)
    stream.put(InitialAnswer("1", _yielded("dropped")))  # no one waits for answers any more
    stream.put(Closed("1"))
    assert handled == [Notification("1", "a"), Closed("1")]


async def test_caught_up_waits_until_the_starting_execute_knows_its_cell():
    # A cell that asks for approval at once: its tool call can come before the execute's
    # answer with the cell's id; the question must wait for that id, or it has no request.
    state = KernelState()
    state.starting = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(state.caught_up("1"))
    await asyncio.sleep(0)
    assert not waiting.done()
    stream = CellStream("1")
    stream.subscribed = True
    stream.put(ToolInvoked("1", INVOCATION))
    reader = state.read(stream)
    state.starting.set_result(None)
    await asyncio.sleep(0)
    assert not waiting.done()  # the reader has not taken the tool call yet
    assert reader.drain() == []
    await asyncio.wait_for(waiting, 5)


async def test_caught_up_is_at_once_for_a_cell_the_kernel_does_not_read():
    state = KernelState()
    await asyncio.wait_for(state.caught_up("9"), 5)  # nothing starting
    state.starting = asyncio.get_running_loop().create_future()
    waiting = asyncio.ensure_future(state.caught_up("2"))
    await asyncio.sleep(0)
    state.starting.set_result(None)  # the execute started another cell: "2" is never read
    await asyncio.wait_for(waiting, 5)
