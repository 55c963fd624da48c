"""``print()`` inside a Python tool shows in the calling cell: as ``stream`` messages under the
running request for a foreground cell, under the cell's original request once it yielded."""

from __future__ import annotations

import pytest
from kernel_driver import (
    BLOCKING_TOOL,
    collect,
    execute,
    kernel_with_tools,
    send_execute,
    wait_for_iopub,
)

pytestmark = pytest.mark.timeout(120)

TOOLS = (
    '''
import asyncio
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import codemode

SHARED_POOL = ThreadPoolExecutor(1)


@codemode.tool
def fanout(n: int) -> str:
    """Prints from a pool's workers, from a thread it starts and from that thread's own thread."""
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda i: print(f"pool {i}"), range(n)))

    def outer():
        print("thread")
        inner = threading.Thread(target=print, args=("grandchild",), kwargs={"file": sys.stderr})
        inner.start()
        inner.join()

    thread = threading.Thread(target=outer)
    thread.start()
    thread.join()
    return "fanned"


@codemode.tool
def pooled(word: str) -> str:
    """Prints ``word`` from the worker of a pool made at import (shared by every call)."""
    SHARED_POOL.submit(print, f"pooled {word}").result()
    return word


@codemode.tool
async def async_fanout() -> str:
    """Prints from the default executor of its loop and from asyncio.to_thread."""
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, print, "executor")
    await asyncio.to_thread(print, "to_thread")
    return "async fanned"


@codemode.tool
def noisy(word: str) -> str:
    """Prints a line on stdout and one on stderr, then returns ``word``."""
    print(f"noisy says {word}")
    print(f"noisy warns {word}", file=sys.stderr)
    return word


@codemode.tool
def gated(word: str, gate: str) -> str:
    """Waits until the file ``gate`` exists, then prints ``word`` and returns it."""
    while not Path(gate).exists():
        time.sleep(0.02)
    print(f"gated says {word}")
    return word


@codemode.tool
def chatty(n: int) -> str:
    """Prints ``n`` numbered lines, then returns "done"."""
    for i in range(n):
        print(f"line {i}", flush=True)
    return "done"
'''
    + BLOCKING_TOOL
)


@pytest.fixture(scope="module")
def tool_kernel(codemode_kernelspec, tmp_path_factory):
    with kernel_with_tools(tmp_path_factory.mktemp("tool-output"), "cm_kernel_print_tools", TOOLS) as kernel:
        yield kernel


def test_a_foreground_cells_tool_output_is_shown_in_that_cell(tool_kernel):
    run = execute(tool_kernel.kc, 'const r = await tools.noisy({word: "hi"});\ntext(r);')
    assert run.content["status"] == "ok", run.content
    assert run.stdout == "noisy says hi\nhi\n"
    assert run.stderr_messages == ["noisy warns hi\n"]


def test_a_yielded_cells_tool_output_goes_to_its_original_request(tool_kernel):
    gate = tool_kernel.cwd / "gate-open"
    code = (
        '// @exec: {"yield_time_ms": 100}\n'
        f'const r = await tools.gated({{word: "later", gate: {str(gate)!r}}});\n'
        'text("cell says " + r);'
    )
    msg_id = send_execute(tool_kernel.kc, code)
    run = collect(tool_kernel.kc, msg_id)
    assert run.content["status"] == "ok" and run.codemode["status"] == "running", run.content
    gate.write_text("open")
    [printed] = wait_for_iopub(tool_kernel.kc, msg_id, lambda m: m["msg_type"] == "stream")[-1:]
    assert printed["content"] == {"name": "stdout", "text": "gated says later\n"}
    waited = execute(tool_kernel.kc, "%wait --yield-time-ms 20000")
    assert waited.stdout == "cell says later\n"
    assert "gated says" not in waited.stdout  # shown once, in the cell that made the call


def test_tools_magic_shows_threads_of_cancelled_calls_while_they_run(tool_kernel):
    assert "Threads of cancelled tool calls" not in execute(tool_kernel.kc, "%tools").stdout
    gate = tool_kernel.cwd / "gate-abandoned"
    msg_id = send_execute(tool_kernel.kc, f"await tools.blocking({{gate: {str(gate)!r}}})")
    seen = wait_for_iopub(tool_kernel.kc, msg_id, lambda m: m["msg_type"] == "stream")  # the thread runs
    tool_kernel.km.interrupt_kernel()
    assert collect(tool_kernel.kc, msg_id, earlier=seen).content["ename"] == "CellTerminated"
    listing = execute(tool_kernel.kc, "%tools").stdout
    assert listing.endswith(
        "Threads of cancelled tool calls still running: 1 in the python-tools lane. They end when "
        "their functions return; a lane refuses new calls while it holds 256.\n"
    ), listing
    gate.write_text("open")  # the thread's function returns; the count drops
    for _ in range(200):
        if "Threads of cancelled tool calls" not in execute(tool_kernel.kc, "%tools").stdout:
            break
    else:
        raise AssertionError("the abandoned thread is still counted after its function returned")


LINES = "".join(f"line {i}\n" for i in range(1000))


def test_what_tools_print_shares_the_cells_max_output_tokens(tool_kernel):
    # 10 tokens are 40 bytes for everything the cell's tools print, across its calls; then one
    # notice on stderr, and nothing more from its tools. The cell's own output has its budget.
    run = execute(
        tool_kernel.kc,
        '// @exec: {"max_output_tokens": 10}\ntext(await tools.chatty({n: 1000})); text(await tools.chatty({n: 1000}))',
    )
    assert run.content["status"] == "ok", run.content
    assert run.stdout == LINES[:40] + "\ndone\ndone\n"  # the cut line ends there
    assert run.stderr_messages == [
        "\n[The tools of this cell printed more than its max_output_tokens (10 tokens, 40 bytes); "
        "the rest of what they print is not shown.]\n"
    ]


def test_tool_output_within_the_budget_is_shown_whole(tool_kernel):
    run = execute(tool_kernel.kc, "text(await tools.chatty({n: 1000}))")
    assert run.stdout == LINES + "done\n"
    assert run.stderr_messages == []


def test_what_a_tools_threads_print_is_shown_in_the_calling_cell(tool_kernel):
    """ipykernel #1370: prints from a tool's own threads went out with an empty parent."""
    run = execute(tool_kernel.kc, "text(await tools.fanout({n: 4}))")
    assert run.content["status"] == "ok", run.content
    lines = run.stdout.splitlines()
    assert sorted(lines[:4]) == ["pool 0", "pool 1", "pool 2", "pool 3"]
    assert lines[4:] == ["thread", "fanned"]
    assert run.stderr_messages == ["grandchild\n"]


def test_a_shared_pools_prints_go_to_each_calls_own_cell(tool_kernel):
    for word in ("first", "second"):
        run = execute(tool_kernel.kc, f'text(await tools.pooled({{word: "{word}"}}))')
        assert run.stdout == f"pooled {word}\n{word}\n"


def test_an_async_tools_executor_prints_are_shown_in_the_calling_cell(tool_kernel):
    run = execute(tool_kernel.kc, "text(await tools.async_fanout())")
    assert run.stdout == "executor\nto_thread\nasync fanned\n"
