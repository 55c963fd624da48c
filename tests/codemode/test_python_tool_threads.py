"""Blocked sync tools never starve the others (``codemode.tools.threads``): after many calls of a
sync Python tool that blocks for ever were cancelled (or their cells terminated), the built-ins
and other sync tools still answer; the abandoned threads are counted and logged, and end when
their function returns. Fixtures: ``pytools/cm_failing_tools.py`` (``blocker``, ``double``).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import re
import sys
import threading
from pathlib import Path

import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config
from codemode.dispatch import ToolCallRuntime
from codemode.errors import ToolCallError
from codemode.tools import threads
from codemode.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent / "pytools"))
from host_harness import HostSession, texts  # noqa: E402

pytestmark = pytest.mark.timeout(120)

BLOCKED = 20
"""More than the 6 workers of the default executor on a 2-core machine."""

ANSWER_BOUND_S = 30
"""Guard against a hang (the failure this file pins), not a speed check."""


def fixtures():
    """The tool module as the registry imported it (the same object: its events are the
    ones ``blocker`` waits on, even when another test dropped the module from sys.modules)."""
    return importlib.import_module("cm_failing_tools")


def blocker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "codemode-python-tools:blocker"]


@pytest.fixture
async def release_blockers():
    """Release every ``blocker`` at the end and wait until its thread is gone: no thread leaks.
    (Async, so it runs before the test's event loop closes.)"""
    yield
    fixtures().release_all()
    for thread in blocker_threads():
        thread.join(ANSWER_BOUND_S)
    assert blocker_threads() == []
    assert threads.abandoned_threads() == {"python-tools": 0, "builtins": 0, "python-async-tools": 0}
    fixtures().GATES.clear()
    fixtures().ENTERED.clear()


async def entered(key: str) -> None:
    """Until ``blocker(key)`` runs in its thread (waited for in a thread of its own: the
    default executor is what a regression would fill)."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def wait() -> None:
        started = fixtures().entered(key).wait(ANSWER_BOUND_S)
        loop.call_soon_threadsafe(done.set_result, started)

    threading.Thread(target=wait, daemon=True).start()
    assert await done, f"blocker({key!r}) did not start within {ANSWER_BOUND_S} s"


@pytest.mark.unit
async def test_cancelled_blocked_calls_leave_builtins_and_sync_tools_answering(tmp_path, caplog, release_blockers):
    registry = await ToolRegistry.create(Config(python_modules=["cm_failing_tools"]))
    dispatcher = ToolCallRuntime(registry)
    caplog.set_level(logging.WARNING, logger="codemode.tools.threads")

    def call(name, args, token=None):
        wire = {"name": name, "namespace": None}
        return dispatcher.handle_tool_call("1", f"tool-{name}", wire, "function", args, token or CancellationToken())

    try:
        for i in range(BLOCKED):
            token = CancellationToken()
            task = asyncio.ensure_future(call("blocker", {"key": f"d{i}"}, token))
            await entered(f"d{i}")
            token.cancel()
            result = await task
            assert result.outcome == "aborted"
        assert threads.PYTHON_TOOLS.abandoned == BLOCKED
        assert threads.abandoned_threads() == {"python-tools": BLOCKED, "builtins": 0, "python-async-tools": 0}
        assert len(blocker_threads()) == BLOCKED

        target = tmp_path / "note.txt"
        written = await asyncio.wait_for(call("write_file", {"path": str(target), "content": "é"}), ANSWER_BOUND_S)
        assert written.value == {"bytes_written": 2}
        read = await asyncio.wait_for(call("read_file", {"path": str(target)}), ANSWER_BOUND_S)
        assert read.value == {"content": "é"}
        listed = await asyncio.wait_for(call("list_dir", {"path": str(tmp_path)}), ANSWER_BOUND_S)
        assert listed.value == {"entries": [{"name": "note.txt", "type": "file", "size": 2}]}
        doubled = await asyncio.wait_for(call("double", {"n": 21}), ANSWER_BOUND_S)
        assert doubled.value == 42
        # Cancelled one at a time: one line each, with the lane's count.
        assert caplog.records[-1].getMessage() == (
            f"cell 1: 1 call(s) were cancelled while their threads were still running (`blocker`); {BLOCKED} "
            "abandoned thread(s) of the python-tools lane are still running (a Python thread cannot be stopped; "
            "each ends when its function returns)"
        )
        assert len([r for r in caplog.records if r.name == "codemode.tools.threads"]) == BLOCKED
    finally:
        await registry.aclose()
    fixtures().release_all()
    for thread in blocker_threads():
        thread.join(ANSWER_BOUND_S)
    assert threads.PYTHON_TOOLS.abandoned == 0 and threads.PYTHON_TOOLS.running == 0


async def test_terminated_cells_leave_builtins_and_sync_tools_answering(tmp_path, release_blockers):
    async with HostSession(["cm_failing_tools"]) as h:
        finished: asyncio.Queue = asyncio.Queue()
        h.dispatcher.add_listener(lambda e: e.kind == "finished" and finished.put_nowait((e.cell_id, e.outcome)))
        for i in range(BLOCKED):
            cell, response = await h.run(f'await tools.blocker({{key: "s{i}"}}); text("never")', yield_time_ms=10)
            assert response.kind == "Yielded"
            await entered(f"s{i}")
            outcome = await h.session.terminate(cell)
            assert outcome.response.kind == "Terminated"
            assert await asyncio.wait_for(finished.get(), ANSWER_BOUND_S) == (cell, "aborted")
        assert threads.PYTHON_TOOLS.abandoned == BLOCKED
        target = tmp_path / "cell.txt"
        source = (
            f"const w = await tools.write_file({{path: {str(target)!r}, content: 'from a cell'}});\n"
            f"const r = await tools.read_file({{path: {str(target)!r}}});\n"
            "const d = await tools.double({n: 4});\n"
            "text(JSON.stringify([w, r, d]));"
        )
        _, response = await asyncio.wait_for(h.run(source), ANSWER_BOUND_S)
        assert texts(response) == ['[{"bytes_written":11},{"content":"from a cell"},8]']


@pytest.mark.unit
def test_lane_refuses_new_calls_past_its_bound():
    lane = threads.ThreadLane("test", max_abandoned=2)
    release = threading.Event()

    async def scenario():
        started = [threading.Event() for _ in range(3)]
        for i in range(2):
            task = asyncio.ensure_future(lane.run("hold", lambda i=i: (started[i].set(), release.wait())))
            await asyncio.get_running_loop().run_in_executor(None, started[i].wait, ANSWER_BOUND_S)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert (lane.abandoned, lane.running) == (2, 2)
        with pytest.raises(ToolCallError) as info:
            await lane.run("next", lambda: 1)
        assert str(info.value) == (
            "`next` was not started: 2 threads of cancelled calls in the test lane are still blocked "
            "(the most kept is 2); restart the kernel to end them."
        )

    try:
        asyncio.run(scenario())
    finally:
        release.set()
    for thread in [t for t in threading.enumerate() if t.name == "codemode-test:hold"]:
        thread.join(ANSWER_BOUND_S)
    assert (lane.abandoned, lane.running) == (0, 0)


@pytest.mark.unit
def test_a_cells_calls_cancelled_together_are_one_warning(caplog):
    """926 warning lines for one terminated cell's calls: one line per cell, with a count."""
    lane = threads.ThreadLane("test")
    release = threading.Event()
    caplog.set_level(logging.INFO, logger="codemode.tools.threads")

    async def scenario():
        started = threading.Semaphore(0)

        def hold():
            started.release()
            release.wait()

        tasks = [asyncio.ensure_future(lane.run("hold", hold, group="7")) for _ in range(60)]
        tasks += [asyncio.ensure_future(lane.run(name, hold, group="8")) for name in ("a", "b", "a")]
        for _ in tasks:
            await asyncio.get_running_loop().run_in_executor(None, started.acquire, True, ANSWER_BOUND_S)
        for task in tasks:  # as a terminated cell's calls are cancelled
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for _ in range(3):  # the report waits for a loop iteration without more of them
            await asyncio.sleep(0)

    asyncio.run(scenario())
    tail = (
        "abandoned thread(s) of the test lane are still running (a Python thread cannot be stopped; each ends "
        "when its function returns)"
    )
    assert [r.getMessage() for r in caplog.records] == [
        f"cell 7: 60 call(s) were cancelled while their threads were still running (`hold` (60)); 63 {tail}",
        f"cell 8: 3 call(s) were cancelled while their threads were still running (`a` (2), `b`); 63 {tail}",
    ]
    release.set()
    for thread in [t for t in threading.enumerate() if t.name.startswith("codemode-test:")]:
        thread.join(ANSWER_BOUND_S)
    assert (lane.abandoned, lane.running) == (0, 0)
    returned = sorted(r.getMessage() for r in caplog.records[2:])
    assert len(returned) == 2, returned
    assert re.fullmatch(
        r"cell 7: all 60 abandoned thread\(s\) of its calls returned, the last after \d+\.\d s; \d+ abandoned "
        r"thread\(s\) of the test lane still running",
        returned[0],
    )
    assert re.fullmatch(
        r"cell 8: all 3 abandoned thread\(s\) of its calls returned, the last after \d+\.\d s; \d+ abandoned "
        r"thread\(s\) of the test lane still running",
        returned[1],
    )
