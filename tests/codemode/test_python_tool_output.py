"""What Python tools print reaches the dispatcher's listeners as ``output`` events of the call
that printed it (``codemode.tools.tool_output``), with concurrent sync (thread) and async calls."""

from __future__ import annotations

import asyncio
import sys
import threading

import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config
from codemode.dispatch import ToolCallRuntime
from codemode.tools.python import python_tool
from codemode.tools.registry import ToolRegistry

pytestmark = [pytest.mark.unit, pytest.mark.timeout(60)]

barrier = threading.Barrier(2, timeout=10)


def chatty(word: str, lines: int = 3) -> str:
    """A sync tool (worker thread): prints ``lines`` lines, meeting the other call after each."""
    for i in range(lines):
        print(f"{word} {i}")
        barrier.wait()  # both calls are inside their prints at the same time
    print(f"{word} warning", file=sys.stderr)
    return word


async def chatty_async(word: str) -> str:
    """An async tool: prints around awaits, on both streams, the last line unfinished."""
    print(f"{word} start")
    await asyncio.sleep(0)
    sys.stderr.write(f"{word} err\n")
    await asyncio.sleep(0)
    print(f"{word} end", end="")
    return word


async def make_dispatcher(*functions) -> ToolCallRuntime:
    registry = await ToolRegistry.create(Config(), extra_tools=[python_tool(f) for f in functions])
    return ToolCallRuntime(registry)


@pytest.fixture
async def dispatcher():
    dispatcher = await make_dispatcher(chatty, chatty_async)
    yield dispatcher
    await dispatcher.registry.aclose()


def call(dispatcher, cell, runtime_tool_call_id, name, args):
    return dispatcher.handle_tool_call(cell, runtime_tool_call_id, name, "function", args, CancellationToken())


def outputs(events, runtime_tool_call_id, name):
    mine = [e for e in events if e.kind == "output" and e.runtime_tool_call_id == runtime_tool_call_id]
    return "".join(e.text for e in mine if e.stream == name)


async def test_concurrent_calls_each_get_their_own_output(dispatcher):
    events = []
    dispatcher.add_listener(events.append)
    stdout_before, stderr_before = sys.stdout, sys.stderr
    results = await asyncio.gather(
        call(dispatcher, "1", "tool-1", "chatty", {"word": "alpha"}),
        call(dispatcher, "2", "tool-1", "chatty", {"word": "beta"}),
        call(dispatcher, "2", "tool-2", "chatty_async", {"word": "gamma"}),
    )
    assert [r.value for r in results] == ["alpha", "beta", "gamma"]
    by_call = {(e.cell_id, e.runtime_tool_call_id) for e in events if e.kind == "output"}
    assert by_call == {("1", "tool-1"), ("2", "tool-1"), ("2", "tool-2")}
    cell1 = [e for e in events if e.cell_id == "1"]
    assert "".join(e.text for e in cell1 if e.stream == "stdout") == "alpha 0\nalpha 1\nalpha 2\n"
    assert "".join(e.text for e in cell1 if e.stream == "stderr") == "alpha warning\n"
    beta = [e for e in events if e.cell_id == "2" and e.runtime_tool_call_id == "tool-1"]
    assert "".join(e.text for e in beta if e.kind == "output" and e.stream == "stdout") == "beta 0\nbeta 1\nbeta 2\n"
    assert outputs(events, "tool-2", "stdout") == "gamma start\ngamma end"
    assert outputs(events, "tool-2", "stderr") == "gamma err\n"
    for cell, runtime_tool_call_id in by_call:
        kinds = [e.kind for e in events if (e.cell_id, e.runtime_tool_call_id) == (cell, runtime_tool_call_id)]
        assert kinds[0] == "started" and kinds[-1] == "finished" and "output" in kinds
        assert all(e.tool in ("chatty", "chatty_async") for e in events if e.kind == "output")
    assert (sys.stdout, sys.stderr) == (stdout_before, stderr_before)  # put back after the calls


async def test_printing_outside_a_call_goes_to_the_original_stream(capsys):
    events = []
    started = threading.Event()
    release = threading.Event()

    async def bystander():
        await asyncio.to_thread(started.wait, 10)
        print("not from a tool")  # the proxy is installed now, but this is no call's context
        release.set()

    async def waiting_tool() -> str:
        """Runs on the async tools' own loop: waits for the bystander in a thread."""
        print("from the tool")
        started.set()
        await asyncio.to_thread(release.wait, 10)
        return "done"

    dispatcher = await make_dispatcher(waiting_tool)
    dispatcher.add_listener(events.append)
    try:
        result, _ = await asyncio.gather(call(dispatcher, "1", "tool-1", "waiting_tool", {}), bystander())
    finally:
        await dispatcher.registry.aclose()
    assert result.value == "done"
    assert outputs(events, "tool-1", "stdout") == "from the tool\n"
    assert capsys.readouterr().out == "not from a tool\n"
