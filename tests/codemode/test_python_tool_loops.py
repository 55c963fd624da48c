"""Async Python tools run on an event loop of their own (``codemode.tools.loops``).

Through the dispatcher, and through CodeModeSession with a real runtime host: a tool that spins
or blocks its loop is aborted (its cell terminated) at once while it still blocks, and the
cell's yield comes on time; the kernel's loop keeps turning meanwhile (built-ins, sync tools and
other cells answer), later async calls go to a fresh loop; cancellation reaches coroutines that
await; a loop-bound client keeps working across calls and cells; what a tool prints reaches its
call; and no thread of the lane is left at the end. Fixtures: ``pytools/cm_async_tools.py``.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import sys
import threading
from pathlib import Path

import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config
from codemode.dispatch import ToolCallRuntime
from codemode.tools import threads
from codemode.tools.loops import ASYNC_PYTHON_TOOLS
from codemode.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent / "pytools"))
from host_harness import HostSession, texts  # noqa: E402

pytestmark = pytest.mark.timeout(120)

HANG_GUARD_S = 30
"""Bound of every wait on an event: a guard against a hang (the failure pinned), not a speed check."""

STALL_AFTER_S = 1.0
"""The lane's stall time in these tests (the default is longer)."""


def fixtures():
    """The tool module as the registry imported it."""
    return importlib.import_module("cm_async_tools")


def lane_threads() -> list[threading.Thread]:
    """The threads of the async tools' lane still alive: loops and the watchdog."""
    return [t for t in threading.enumerate() if t.name.startswith(f"codemode-{ASYNC_PYTHON_TOOLS.name}-")]


async def happened(event: threading.Event) -> bool:
    """Wait (in a thread, never blocking this loop) until ``event`` is set; False after
    :data:`HANG_GUARD_S`."""
    return await asyncio.to_thread(event.wait, HANG_GUARD_S)


@pytest.fixture
async def lane():
    """The lane of async Python tools; at the end the blocking tools are released, the lane is
    shut down, and no thread of it may be left (async, so it runs before the test's event loop
    closes)."""
    module = fixtures()
    module.reset()
    yield ASYNC_PYTHON_TOOLS
    module.release_all()
    await asyncio.to_thread(ASYNC_PYTHON_TOOLS.shutdown)
    for thread in lane_threads():
        await asyncio.to_thread(thread.join, HANG_GUARD_S)
    assert lane_threads() == []
    assert ASYNC_PYTHON_TOOLS.abandoned == 0
    module.CLIENT.clear()
    module.reset()


@pytest.fixture
def quick_stall(lane, monkeypatch):
    """The lane with a stall time of :data:`STALL_AFTER_S`, for the tests that block its loop
    (the others keep the default, so that a loaded machine cannot make them move loops)."""
    monkeypatch.setattr(lane, "stall_after", STALL_AFTER_S)
    return lane


@pytest.fixture
async def dispatcher(lane):
    registry = await ToolRegistry.create(Config(python_modules=["cm_async_tools", "cm_failing_tools"]))
    assert registry.errors == []
    events: list = []
    dispatcher = ToolCallRuntime(registry)
    dispatcher.add_listener(events.append)
    dispatcher.events = events  # type: ignore[attr-defined]
    yield dispatcher
    await registry.aclose()


def call(dispatcher, name, args, token=None, runtime_tool_call_id=None):
    wire = {"name": name, "namespace": None}
    token = token or CancellationToken()
    return dispatcher.handle_tool_call("1", runtime_tool_call_id or f"tool-{name}", wire, "function", args, token)


async def guarded(awaitable):
    return await asyncio.wait_for(awaitable, HANG_GUARD_S)


def printed(dispatcher, runtime_tool_call_id):
    return "".join(
        e.text for e in dispatcher.events if e.kind == "output" and e.runtime_tool_call_id == runtime_tool_call_id
    )


@pytest.mark.slow
@pytest.mark.parametrize(("blocker", "running"), [("spin", "SPINNING"), ("nap", "NAPPING")])
async def test_a_blocked_tool_loop_never_blocks_the_kernel_and_cancelling_abandons_it(
    dispatcher, quick_stall, caplog, blocker, running
):
    lane = quick_stall
    caplog.set_level(logging.WARNING, logger="codemode.tools.loops")
    module = fixtures()
    token = CancellationToken()
    blocked = asyncio.ensure_future(call(dispatcher, blocker, {}, token))
    assert await happened(getattr(module, running))
    first_loop = lane.loop_thread

    # The kernel's loop turns: built-ins and sync tools answer while the tool loop is blocked.
    assert (await guarded(call(dispatcher, "sleep", {"ms": 1}))).value == {"slept_ms": 1}
    assert (await guarded(call(dispatcher, "double", {"n": 21}))).value == 42
    # An async call made now waits for the stalled loop to be noticed, then runs on a fresh one.
    greeting = await guarded(call(dispatcher, "greet", {"name": "ada"}, runtime_tool_call_id="tool-greet-1"))
    assert (greeting.outcome, greeting.value) == ("completed", "hello ada")
    assert printed(dispatcher, "tool-greet-1") == "greeting ada\n"
    assert lane.loop_thread is not first_loop and first_loop.is_alive()
    assert lane.abandoned == 1 and threads.abandoned_threads()["python-async-tools"] == 1
    assert not blocked.done()  # the blocked call is still running: nothing answered for it

    token.cancel()
    result = await guarded(blocked)
    assert (result.outcome, result.error[:16]) == ("aborted", "aborted by user ")
    assert not module.SPUN.is_set() and not module.WAKE.is_set()  # aborted while still blocked
    assert [(e.kind, e.outcome) for e in dispatcher.events if e.runtime_tool_call_id == f"tool-{blocker}"] == [
        ("started", None),
        ("finished", "aborted"),
    ]
    warning = [r.getMessage() for r in caplog.records if r.name == "codemode.tools.loops"]
    assert warning == [
        f"the event loop of async Python tools (loop {first_loop.name.rsplit('-', 1)[1]}) has not turned for "
        f"{STALL_AFTER_S:.1f} s; calls running on it: `{blocker}`. New calls go to a fresh loop; 1 abandoned "
        "loop thread(s) of the python-async-tools lane are still blocked (a thread cannot be stopped: an async "
        "tool must await, and run blocking work with asyncio.to_thread)"
    ]

    # Once the blocking code returns, the abandoned loop ends and is no longer counted.
    module.release_all()
    await asyncio.to_thread(first_loop.join, HANG_GUARD_S)
    assert not first_loop.is_alive() and lane.abandoned == 0
    after = await guarded(call(dispatcher, "greet", {"name": "bo"}, runtime_tool_call_id="tool-greet-2"))
    assert after.value == "hello bo" and printed(dispatcher, "tool-greet-2") == "greeting bo\n"


@pytest.mark.unit
async def test_cancellation_reaches_a_coroutine_on_the_tool_loop(dispatcher, lane):
    token = CancellationToken()
    pending = asyncio.ensure_future(call(dispatcher, "wait_forever", {}, token))
    assert await happened(fixtures().WAITING)
    token.cancel()
    result = await guarded(pending)
    assert result.outcome == "aborted"
    assert await happened(fixtures().CANCELLED)
    assert lane.abandoned == 0


@pytest.mark.unit
async def test_a_loop_bound_client_works_across_calls(dispatcher, lane):
    values = [(await guarded(call(dispatcher, "client_double", {"n": n}))).value for n in (1, 2, 3)]
    assert values == [{"doubled": 2, "served": 1}, {"doubled": 4, "served": 2}, {"doubled": 6, "served": 3}]


@pytest.mark.unit
async def test_a_systemexit_in_a_tools_own_task_leaves_the_loop_serving(dispatcher, lane, caplog):
    caplog.set_level(logging.ERROR, logger="codemode.tools.loops")
    started = await guarded(call(dispatcher, "exit_in_background", {}))
    assert (started.outcome, started.value) == ("completed", "started")
    loop_thread = lane.loop_thread
    assert (await guarded(call(dispatcher, "greet", {"name": "again"}))).value == "hello again"
    assert lane.loop_thread is loop_thread and loop_thread.is_alive()
    assert [r.getMessage() for r in caplog.records if r.name == "codemode.tools.loops"] == [
        "a task left on the event loop of async Python tools raised SystemExit; the loop goes on"
    ]


# -- through a real host ---------------------------------------------------------------


def finished_queue(h: HostSession) -> asyncio.Queue:
    """``(cell_id, tool, outcome)`` of every call as it finishes."""
    queue: asyncio.Queue = asyncio.Queue()
    h.dispatcher.add_listener(lambda e: e.kind == "finished" and queue.put_nowait((e.cell_id, e.tool, e.outcome)))
    return queue


@pytest.mark.parametrize(("blocker", "running"), [("spin", "SPINNING"), ("nap", "NAPPING")])
async def test_a_cell_blocked_in_an_async_tool_yields_on_time_and_terminates(quick_stall, blocker, running):
    lane = quick_stall
    module = fixtures()
    async with HostSession(["cm_async_tools"]) as h:
        finished = finished_queue(h)
        started = await h.session.execute(f"text(await tools.{blocker}())", yield_time_ms=100)
        assert await happened(getattr(module, running))
        response = await asyncio.wait_for(started.initial_response, HANG_GUARD_S)
        # The 100 ms yield arrived while the tool still blocks its loop.
        assert (response.kind, texts(response)) == ("Yielded", [])
        assert not module.SPUN.is_set() and not module.WAKE.is_set()

        # Other cells run meanwhile: a sync built-in path and an async tool (on a fresh loop).
        cell, response = await asyncio.wait_for(
            h.run('text(JSON.stringify(await tools.echo({n: 1}))); text(await tools.greet({name: "eve"}))'),
            HANG_GUARD_S,
        )
        assert (response.kind, texts(response)) == ("Result", ['{"n":1}', "hello eve"])
        output = [(e.stream, e.text) for e in h.events if e.kind == "output" and e.cell_id == cell]
        assert output == [("stdout", "greeting eve\n")]
        assert lane.abandoned == 1

        terminated = await asyncio.wait_for(h.session.terminate(started.cell_id), HANG_GUARD_S)
        assert terminated.response.kind == "Terminated"
        outcomes = [await asyncio.wait_for(finished.get(), HANG_GUARD_S) for _ in range(3)]
        assert (started.cell_id, blocker, "aborted") in outcomes
        assert not module.SPUN.is_set() and not module.WAKE.is_set()  # terminated while still blocked

        module.release_all()
        _, response = await asyncio.wait_for(h.run('text(await tools.greet({name: "finn"}))'), HANG_GUARD_S)
        assert texts(response) == ["hello finn"]


async def test_a_loop_bound_client_works_across_cells(lane):
    async with HostSession(["cm_async_tools"]) as h:
        values = []
        for n in (5, 6):
            _, response = await asyncio.wait_for(
                h.run(f"text(JSON.stringify(await tools.client_double({{n: {n}}})))"), HANG_GUARD_S
            )
            values.extend(texts(response))
        assert values == ['{"doubled":10,"served":1}', '{"doubled":12,"served":2}']
