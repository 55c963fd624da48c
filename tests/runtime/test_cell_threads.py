"""Cell threads kept ready (``runtime/cell_thread.py``): a QuickJS cell runs on a thread whose
context was made, and the prelude compiled, before the cell arrived. Nothing of one cell may
reach the next, a heap too small for the prelude fails as it always did, and threads that
served cells end once one of them waits as the spare."""

from __future__ import annotations

import asyncio
import os

import pytest
from polling import poll_until
from rt_client import start_host, text_items

pytestmark = pytest.mark.timeout(120)


async def test_each_cell_starts_from_fresh_globals_on_a_prepared_context(host):
    """What a cell leaves on its globals and on the built-in prototypes is gone in the next cell,
    also when the next one takes the thread (and context) prepared while the first ran."""
    first = await host.run("globalThis.leaked = 1; Object.prototype.polluted = 2; Array.prototype.push = null; text(1)")
    assert text_items(first) == ["1"]
    for _ in range(3):
        later = await host.run("const a = []; a.push(3); text([typeof leaked, typeof ({}).polluted, a.length].join())")
        assert text_items(later) == ["undefined,undefined,1"]


async def test_a_heap_too_small_for_a_prepared_context_gets_its_own():
    """Below the prepared context's heap limit a cell's context is made under its own limit, so a
    heap too small for the prelude ends the cell with the heap-limit error, and a small heap that
    holds the prelude runs the cell."""
    client = await start_host()
    try:
        await client.hello()
        await client.open("tiny", cellExecutionLimits={"maxHeapSizeBytes": 200 * 1024})
        await client.open("small", cellExecutionLimits={"maxHeapSizeBytes": 1024 * 1024})
        tiny = await client.run("text(1)", session_id="tiny")
        assert tiny["Result"]["error_text"] == (
            "RangeError: out of memory: the cell exceeded its heap limit of 204800 bytes (maxHeapSizeBytes)"
        )
        assert text_items(await client.run("text(2)", session_id="small")) == ["2"]
    finally:
        await client.close()


def _threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


async def test_threads_of_finished_cells_end_once_one_is_the_spare(host):
    """Cells running at the same time each get a thread; when they are done one thread stays as
    the spare and the others end, so a host that ran many cells does not keep their threads."""
    assert text_items(await host.run("text(0)")) == ["0"]
    settled = _threads(host.process.pid)
    started = [host.start_execute(f"await tools.sleep({{ms: 300}}); text({n})") for n in range(6)]
    await host.wait_for(lambda: len(host.calls) == 6)  # all six are running, each on its thread
    assert _threads(host.process.pid) >= settled + 5
    answers = await asyncio.gather(*(initial for _, _, initial in started))
    assert sorted(text_items(answer["value"]) for answer in answers) == [[str(n)] for n in range(6)]
    # A thread's end is an event of another process: polled.
    await poll_until(lambda: _threads(host.process.pid) <= settled, "the spare thread alone left")
    assert text_items(await host.run("text(7)")) == ["7"]
