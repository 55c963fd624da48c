"""Interrupts that find no running cell, over jupyter_client.

- An interrupt while the kernel is idle is not matched to later requests by any clock: a
  request sent after it runs normally whatever date its header carries. It terminates the
  cells running in the background instead; one sent right after an execute request stops
  that request and leaves them running.
- An interrupt while the first cell waits for the code-mode session to start ends that
  execute with ``CellTerminated`` and the usual reply metadata (no cell id: no cell existed).
"""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta

import pytest
from kernel_driver import collect, display_update, execute, send_execute, start_kernel, stop_kernel, wait_for_iopub

pytestmark = pytest.mark.timeout(180)


def _idle_interrupt(kernel) -> None:
    """Interrupt the idle kernel, then wait for a reply: the kernel answers shell requests only
    once it knows which requests were queued when the interrupt came."""
    kernel.km.interrupt_kernel()
    kernel.kc.kernel_info()
    kernel.kc.get_shell_msg(timeout=30)


@pytest.mark.parametrize("skew_s", [-1, -10, 1, 10])
def test_a_request_sent_after_an_idle_interrupt_runs_whatever_its_clock(kernel, skew_s):
    assert execute(kernel.kc, 'text("warm")').stdout == "warm\n"
    _idle_interrupt(kernel)
    msg = kernel.kc.session.msg("execute_request", {"code": 'await tools.sleep({ms: 300}); text("ran")'})
    msg["header"]["date"] = datetime.now(UTC) + timedelta(seconds=skew_s)
    kernel.kc.shell_channel.send(msg)
    run = collect(kernel.kc, msg["header"]["msg_id"], timeout=30)
    assert (run.content["status"], run.stdout) == ("ok", "ran\n")
    assert run.codemode["status"] == "completed"


def _stopped_displays(kc, parents: dict[str, str]) -> dict[str, str]:
    """The ``text/plain`` of the first status display update saying "stopped by an interrupt"
    under each request of ``parents`` (request msg_id -> cell id), read from IOPub."""
    found: dict[str, str] = {}
    while len(found) < len(parents):
        msg = kc.get_iopub_msg(timeout=30)
        parent = msg["parent_header"].get("msg_id")
        if parent in parents and parent not in found and msg["msg_type"] == "update_display_data":
            text = msg["content"]["data"]["text/plain"]
            if "stopped by an interrupt" in text:
                found[parent] = text
    return found


def test_an_idle_interrupt_terminates_the_cells_running_in_the_background(kernel):
    kc = kernel.kc
    first = execute(
        kc,
        '// @exec: {"yield_time_ms": 100}\ntext("one"); await tools.sleep({ms: 200}); text("two"); '
        'notify("ready"); await tools.sleep({ms: 60000}); text("never")',
    )
    assert (first.codemode["status"], first.stdout) == ("running", "one\n")
    display_update(kc, first.reply["parent_header"]["msg_id"], "notify: ready")  # "two" was produced
    second = execute(kc, '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 60000}); text("never")')
    assert second.codemode["status"] == "running"
    cells = {run.reply["parent_header"]["msg_id"]: run.codemode["cell_id"] for run in (first, second)}
    before = time.monotonic()
    kernel.km.interrupt_kernel()
    shown = _stopped_displays(kc, cells)
    assert time.monotonic() - before < 5
    for parent, cell_id in cells.items():
        first_line = shown[parent].split("\n")[0]
        expected = (
            rf"Cell {cell_id} was stopped by an interrupt after \d+\.\d s - run %wait {cell_id} to see its output\."
        )
        assert re.fullmatch(expected, first_line), first_line
    # What the cell produced and had not shown yet comes with %wait, then CellTerminated.
    waited = execute(kc, f"%wait {first.codemode['cell_id']}")
    assert (waited.stdout, waited.content["status"], waited.content["ename"]) == ("two\n", "error", "CellTerminated")
    waited = execute(kc, f"%wait {second.codemode['cell_id']}")
    assert (waited.stdout, waited.content["ename"]) == ("", "CellTerminated")
    assert execute(kc, 'text("after")').stdout == "after\n"


def test_an_interrupt_right_after_an_execute_stops_that_execute_not_the_background(kernel):
    kc = kernel.kc
    background = execute(kc, '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 60000}); text("never")')
    cell_id = background.codemode["cell_id"]
    msg_id = send_execute(kc, 'await tools.sleep({ms: 20000}); text("done")')
    kernel.km.interrupt_kernel()
    run = collect(kc, msg_id, timeout=30)
    assert run.content["ename"] == "CellTerminated"
    listing = execute(kc, "%cells").stdout
    assert re.search(rf"^{cell_id} +running ", listing, re.M), listing
    assert execute(kc, f"%terminate {cell_id}").stdout.endswith(f"Cell {cell_id} was terminated.\n")


def test_interrupt_while_the_session_starts_is_cell_terminated(codemode_kernelspec, tmp_path):
    # A tool server that starts slowly: the first cell, which calls its tools, waits for it.
    (tmp_path / "codemode.toml").write_text(
        '[mcp_servers.slow]\ncommand = "sh"\nargs = ["-c", "sleep 60"]\nstartup_timeout_sec = 15\n'
    )
    kernel = start_kernel(tmp_path)
    try:
        before = time.monotonic()
        msg_id = kernel.kc.execute('await tools.mcp__slow__x(); text("never")')
        started = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "execute_input")
        kernel.km.interrupt_kernel()
        run = collect(kernel.kc, msg_id, timeout=60, earlier=started)
        elapsed_ms = (time.monotonic() - before) * 1000
        evalue = "The cell was terminated before it started (the code-mode session was starting); nothing ran."
        assert run.content["status"] == "error"
        assert (run.content["ename"], run.content["evalue"]) == ("CellTerminated", evalue)
        assert run.errors == [{"ename": "CellTerminated", "evalue": evalue, "traceback": [f"CellTerminated: {evalue}"]}]
        assert run.stdout == ""
        metadata = run.codemode
        assert {k: v for k, v in metadata.items() if k != "wall_time_ms"} == {
            "cell_id": None,
            "status": "terminated",
            "tool_calls": [],
        }
        assert 0 < metadata["wall_time_ms"] <= elapsed_ms
        after = execute(kernel.kc, 'text("next")', timeout=60)
        assert after.stdout == "next\n"
    finally:
        stop_kernel(kernel)
