"""Interrupting floods, through a real kernel: a cell flooding ``notify()``, ``text()`` (with a
raised ``max_output_tokens``) or tool calls is interrupted once it has produced far more than
the kernel may keep. Each reply is ``CellTerminated`` and comes promptly (the host answers a
terminate during any flood; ``kernel/termination.py``), the output stays a few messages
(notifications beyond the first ten share one display, ``kernel/notify.py``; a terminated
cell's leftover output is bounded, ``kernel/budget.py``; the reply lists the first 1000 tool
calls and counts the rest), the kernel's memory does not grow with the flood, and the next
cell runs.
"""

from __future__ import annotations

import re
import time

import psutil
import pytest
from kernel_driver import collect, execute, send_execute, wait_for_iopub

pytestmark = pytest.mark.timeout(300)
BOUND_S = 10.0
"""Generous: the terminate's own deadline is 60 s."""
GROWTH_BYTES = 100 * 2**20
"""The kernel's RSS may grow by this much during a flood that produces at least twice as much."""


MAX_MESSAGES = 200
"""More IOPub messages than this for one flooding request: its output is not rate-bounded."""


def _checkpoint(count: int):
    """Matches the display of a cell that sent ``count`` or more notifications: its own
    ``at N`` notification, or the shared display counting them. Fails once the request has
    sent :data:`MAX_MESSAGES` messages without getting there."""
    seen = 0

    def match(msg: dict) -> bool:
        nonlocal seen
        seen += 1
        assert seen < MAX_MESSAGES, f"{seen} messages before the flood got to {count}"
        if msg["msg_type"] not in ("display_data", "update_display_data"):
            return False
        text = msg["content"]["data"].get("text/plain", "")
        found = re.search(r"(?:^at |^notify: at |sent )(\d+)", text, re.M)
        return found is not None and int(found.group(1)) >= count

    return match


FLOODS = {
    # 10 kB per notification; 20 000 of them before the interrupt: 200 MB.
    "notify": ('let i = 0; while (true) { notify(i % 1000 ? "n".repeat(10000) + i : "at " + i); i++; }', 20_000),
    # Short lines, a budget that keeps them all; the host buffers at most a frame's worth.
    "text": (
        '// @exec: {"max_output_tokens": 100000000}\n'
        'let i = 0; while (true) { text("line " + i); if (++i % 20000 === 0) notify("at " + i); }',
        100_000,
    ),
    # Calls not awaited, each with a 10 kB argument: 100 MB.
    "tool calls": (
        'let i = 0; while (true) { tools.echo({i, pad: "p".repeat(10000)}); if (++i % 1000 === 0) notify("at " + i); }',
        10_000,
    ),
}


@pytest.mark.parametrize("kind", list(FLOODS))
def test_interrupting_a_flood_ends_it_promptly_with_bounded_output_and_memory(kernel, kind):
    code, produced = FLOODS[kind]
    assert execute(kernel.kc, 'store("flood", "survived"); text("ready")').stdout == "ready\n"
    process = psutil.Process(kernel.km.provisioner.pid)
    rss_before = process.memory_info().rss

    msg_id = send_execute(kernel.kc, code)
    seen = wait_for_iopub(kernel.kc, msg_id, _checkpoint(produced), timeout=120)
    interrupted = time.monotonic()
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, timeout=120, earlier=seen)
    elapsed_s = time.monotonic() - interrupted

    cell_id = run.codemode["cell_id"]
    evalue = f"Cell {cell_id} was terminated; output it produced before that is shown above."
    assert (run.content["ename"], run.content["evalue"]) == ("CellTerminated", evalue)
    assert elapsed_s < BOUND_S, elapsed_s
    assert len(run.messages) < MAX_MESSAGES, len(run.messages)  # a flood's worth of items is a few messages
    assert process.memory_info().rss - rss_before < GROWTH_BYTES
    if kind == "tool calls":
        assert len(run.codemode["tool_calls"]) == 1000
        assert run.codemode["tool_calls_omitted"] > 0
    if kind == "text":
        assert run.stdout.startswith("Warning: truncated output (original token count: ")

    after = execute(kernel.kc, 'text(load("flood"))')
    assert after.stdout == "survived\n"
