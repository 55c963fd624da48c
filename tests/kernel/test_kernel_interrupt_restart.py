"""The cell after an interrupt runs, also when stopping the interrupted cell restarts the host.

``new Array(1e9) + ""`` spends its time in one native call the runtime host cannot interrupt:
on terminate the host gives the cell half a second, announces its exit (``host/exiting``),
answers with the output the cell produced before, and exits. The kernel replies
``CellTerminated`` within a second, showing that output (the host answers the probe that
follows an unanswered terminate, and the kernel waits for the answer within that second,
``kernel/termination.py``); the next cell, sent the
moment that reply arrives, waits for the terminate and starts on a new host (the client retires
the announcing one), with the stored values. The interrupt comes from jupyter_client's
``interrupt_kernel``, which signals the kernel's whole process group: the host ignores SIGINT.
A background cell of the old host ends with ``HostStopped`` naming the cell whose termination
restarted the host.
"""

from __future__ import annotations

import re

import pytest
from kernel_driver import collect, display_update, execute, send_execute, wait_for_iopub

pytestmark = pytest.mark.timeout(300)
UNSTOPPABLE = 'text("before"); notify("allocating"); new Array(1e9) + ""; text("never")'


def _interrupt_unstoppable(kernel, others: list | None = None) -> dict:
    """Run the unstoppable cell, interrupt it once it runs; its reply metadata. IOPub messages
    of other requests seen meanwhile go to ``others``."""
    msg_id = send_execute(kernel.kc, UNSTOPPABLE)
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "display_data")
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, earlier=seen, others=others)
    cell_id = run.codemode["cell_id"]
    evalue = f"Cell {cell_id} was terminated; output it produced before that is shown above."
    assert (run.content["ename"], run.content["evalue"]) == ("CellTerminated", evalue)
    assert run.codemode["status"] == "terminated"
    assert run.stdout == "before\n"
    return run.codemode


def _generation(cell_id: str) -> int:
    match = re.fullmatch(r"g(\d+):\d+", cell_id)
    return int(match.group(1)) if match else 1


def test_the_cell_sent_right_after_an_interrupt_reply_runs_on_a_new_host(kernel):
    assert execute(kernel.kc, 'store("v", 41); text("stored")').stdout == "stored\n"
    for attempt in range(5):
        interrupted = _interrupt_unstoppable(kernel)
        after = execute(kernel.kc, 'text(load("v") + 1)')  # sent the moment the reply arrived
        assert (after.content["status"], after.stdout) == ("ok", "42\n"), (attempt, after.content)
        assert _generation(after.codemode["cell_id"]) == _generation(interrupted["cell_id"]) + 1


def test_a_background_cell_of_the_restarted_host_is_told_why_it_was_lost(kernel):
    background = execute(kernel.kc, '// @exec: {"yield_time_ms": 0}\nawait tools.sleep({ms: 60000})')
    bg_id = background.codemode["cell_id"]
    assert background.codemode["status"] == "running"
    others: list[dict] = []
    interrupted = _interrupt_unstoppable(kernel, others)
    after = execute(kernel.kc, 'text("next")', others=others)
    assert after.stdout == "next\n"

    why = (
        f"The code-mode runtime host was restarted to stop cell {interrupted['cell_id']}, which did not respond "
        "to termination (code-mode host "
    )
    lost = f"cell {bg_id} was lost"
    bg_parent = background.reply["parent_header"]["msg_id"]
    updates = [
        m["content"]["data"]["text/plain"]
        for m in others
        if m["parent_header"].get("msg_id") == bg_parent and m["msg_type"] == "update_display_data"
    ]
    if not any(lost in text for text in updates):  # not shown yet: read on until it is
        updates += [u["data"]["text/plain"] for u in display_update(kernel.kc, bg_parent, lost)]
    (shown,) = [text for text in updates if lost in text][-1:]
    assert why in shown
    waited = execute(kernel.kc, f"%wait {bg_id}")
    assert waited.content["ename"] == "HostStopped"
    assert waited.content["evalue"].startswith(why)
    assert waited.content["evalue"].endswith(
        f"; cell {bg_id} was lost. The next cell starts a new host; values stored with store() are kept."
    )
