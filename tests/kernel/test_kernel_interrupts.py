"""Interrupts that find no running cell, over jupyter_client.

- An interrupt while the kernel is idle is not matched to later requests by any clock: a
  request sent after it runs normally whatever date its header carries.
- An interrupt while the first cell waits for the code-mode session to start ends that
  execute with ``CellTerminated`` and the usual reply metadata (no cell id: no cell existed).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from kernel_driver import collect, execute, start_kernel, stop_kernel, wait_for_iopub

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


def test_an_idle_interrupt_does_not_reach_a_later_wait(kernel):
    run = execute(kernel.kc, '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 500}); text("bg done")')
    assert run.codemode["status"] == "running"
    _idle_interrupt(kernel)
    waited = execute(kernel.kc, f"%wait {run.codemode['cell_id']} --yield-time-ms 20000")
    assert (waited.content["status"], waited.stdout) == ("ok", "bg done\n")


def test_interrupt_while_the_session_starts_is_cell_terminated(codemode_kernelspec, tmp_path):
    # A tool server that starts slowly: the first cell waits for it (the session's start).
    (tmp_path / "codemode.toml").write_text(
        '[mcp_servers.slow]\ncommand = "sh"\nargs = ["-c", "sleep 30"]\nstartup_timeout_sec = 4\n'
    )
    kernel = start_kernel(tmp_path)
    try:
        before = time.monotonic()
        msg_id = kernel.kc.execute('text("never")')
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
