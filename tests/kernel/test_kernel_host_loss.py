"""Cells lost with the runtime host, through a real kernel (``kernel/host_loss.py``).

- The host is killed (SIGKILL; found with psutil as the kernel's child) while a foreground cell
  and a background cell run: both end with ``HostStopped`` naming Codex's reason and the lost
  cell, the next cell starts a new host (ids ``g2:N``) and stored values are kept.
- The forced no-interrupt fallback (``CODEMODE_HOST_NO_INTERRUPT=1``): terminating a CPU-bound
  cell makes the host exit after answering (``runtime/interrupt.py``); the other live cell's
  status display and ``%wait`` say the host was restarted to stop that cell.
"""

from __future__ import annotations

import os
import signal
import time

import pytest
from kernel_driver import collect, execute, runtime_host, send_execute, start_kernel, stop_kernel

pytestmark = pytest.mark.timeout(180)
BOUND_S = 30.0


def _iopub_until(kc, predicate, seen: list[dict]) -> dict:
    """The first IOPub message (from ``seen``, then the channel) for which ``predicate`` holds."""
    for msg in seen:
        if predicate(msg):
            return msg
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline:
        msg = kc.get_iopub_msg(timeout=BOUND_S)
        seen.append(msg)
        if predicate(msg):
            return msg
    raise AssertionError("the expected IOPub message never came")


def _display_update(parent_id: str, needle: str):
    def match(msg: dict) -> bool:
        return (
            msg["parent_header"].get("msg_id") == parent_id
            and msg["msg_type"] == "update_display_data"
            and needle in msg["content"]["data"]["text/plain"]
        )

    return match


def test_killed_host_loses_running_cells_with_a_clear_message(kernel):
    assert execute(kernel.kc, 'store("kept", 7); text("stored")').stdout == "stored\n"
    background = execute(kernel.kc, '// @exec: {"yield_time_ms": 200}\nawait tools.sleep({ms: 60000}); text("never")')
    assert background.codemode["status"] == "running"
    bg_id = background.codemode["cell_id"]
    bg_parent = background.reply["parent_header"]["msg_id"]

    seen: list[dict] = []
    msg_id = send_execute(kernel.kc, 'notify("foreground running"); await tools.sleep({ms: 60000}); text("never")')
    _iopub_until(
        kernel.kc,
        lambda m: m["parent_header"].get("msg_id") == msg_id and m["msg_type"] == "display_data",
        seen,
    )
    os.kill(runtime_host(kernel).pid, signal.SIGKILL)

    foreground = collect(kernel.kc, msg_id, others=seen)
    cell_id = foreground.codemode["cell_id"]
    assert foreground.content["status"] == "error"
    assert foreground.content["ename"] == "HostStopped"
    evalue = foreground.content["evalue"]
    assert evalue.startswith("The code-mode runtime host stopped (code-mode host ")
    assert f"cell {cell_id} was lost. The next cell starts a new host; values stored with store() are kept." in evalue
    assert foreground.errors == [{"ename": "HostStopped", "evalue": evalue, "traceback": [f"HostStopped: {evalue}"]}]
    assert foreground.codemode["status"] == "failed"

    # The background cell's status display says it was lost, and %wait shows why.
    _iopub_until(kernel.kc, _display_update(bg_parent, f"cell {bg_id} was lost"), seen)
    waited = execute(kernel.kc, f"%wait {bg_id}")
    assert waited.content["ename"] == "HostStopped"
    assert waited.content["evalue"].startswith("The code-mode runtime host stopped (code-mode host ")
    assert f"cell {bg_id} was lost" in waited.content["evalue"]

    after = execute(kernel.kc, 'text(JSON.stringify(load("kept")))')
    assert after.stdout == "7\n"
    assert after.codemode["cell_id"].startswith("g2:")


def test_restart_to_stop_an_unresponsive_cell_is_explained(codemode_kernelspec, tmp_path):
    kernel = start_kernel(tmp_path, {"CODEMODE_HOST_NO_INTERRUPT": "1"})
    try:
        other = execute(kernel.kc, '// @exec: {"yield_time_ms": 200}\nawait tools.sleep({ms: 60000})')
        other_id = other.codemode["cell_id"]
        other_parent = other.reply["parent_header"]["msg_id"]
        spinning = execute(kernel.kc, '// @exec: {"yield_time_ms": 200}\nwhile (true) {}')
        spin_id = spinning.codemode["cell_id"]
        assert spinning.codemode["status"] == "running"

        seen: list[dict] = []
        stopped = execute(kernel.kc, f"%terminate {spin_id}", others=seen)
        assert stopped.content["status"] == "ok"
        assert stopped.stdout == f"Cell {spin_id} was terminated.\n"

        why = f"restarted to stop cell {spin_id}, which did not respond to termination"
        update = _iopub_until(kernel.kc, _display_update(other_parent, why), seen)
        assert f"cell {other_id} was lost" in update["content"]["data"]["text/plain"]
        waited = execute(kernel.kc, f"%wait {other_id}")
        assert waited.content["ename"] == "HostStopped"
        assert waited.content["evalue"].startswith(f"The code-mode runtime host was {why} (code-mode host ")
        assert f"cell {other_id} was lost" in waited.content["evalue"]

        assert execute(kernel.kc, 'text("fresh host")').stdout == "fresh host\n"
    finally:
        stop_kernel(kernel)
