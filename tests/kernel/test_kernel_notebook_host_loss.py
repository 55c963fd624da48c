"""The notebook profile tells the user that replacing the runtime host lost the bindings of
earlier cells (``kernel/host_loss.py``): a host that was killed, one that exited to stop a cell
it could not interrupt (``new Array(1e9) + ""``), and ``%config profile=`` / ``engine=``. The
strict profile's messages stay as they were (its cells share no bindings)."""

from __future__ import annotations

import os
import signal

import pytest
from kernel_driver import collect, execute, runtime_host, send_execute, start_kernel, stop_kernel, wait_for_iopub

pytestmark = pytest.mark.timeout(240)

KEPT = "the bindings of earlier cells are gone, values stored with store() are kept."


@pytest.fixture
def notebook_kernel(codemode_kernelspec, tmp_path):
    kernel = start_kernel(tmp_path, {"CODEMODE_PROFILE": "notebook"})
    yield kernel
    stop_kernel(kernel)


def _bound(kernel) -> None:
    """Declare a binding and store a value, and check both are there."""
    assert execute(kernel.kc, 'const answer = 42; store("kept", 7); console.log("ready")').stdout == "ready\n"
    assert execute(kernel.kc, "console.log(answer)").stdout == "42\n"


def _binding_is_gone_and_stored_value_kept(kernel) -> None:
    gone = execute(kernel.kc, "console.log(typeof answer, load('kept'))")
    assert (gone.content["status"], gone.stdout) == ("ok", "undefined 7\n")


def test_a_killed_host_says_the_bindings_are_gone(notebook_kernel):
    kernel = notebook_kernel
    _bound(kernel)
    msg_id = send_execute(kernel.kc, 'notify("running"); await tools.sleep({ms: 60000})')
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "display_data")
    os.kill(runtime_host(kernel).pid, signal.SIGKILL)
    run = collect(kernel.kc, msg_id, earlier=seen)
    cell_id = run.codemode["cell_id"]
    assert run.content["ename"] == "HostStopped"
    evalue = run.content["evalue"]  # Codex's reason in the middle depends on what the client saw first
    assert evalue.endswith(f"; cell {cell_id} was lost. The next cell starts a new host; {KEPT}"), evalue
    assert evalue.startswith("The code-mode runtime host stopped (code-mode host "), evalue
    _binding_is_gone_and_stored_value_kept(kernel)


def test_interrupting_a_cell_the_host_cannot_stop_says_the_bindings_are_gone(notebook_kernel):
    kernel = notebook_kernel
    _bound(kernel)
    msg_id = send_execute(kernel.kc, 'console.log("before"); notify("allocating"); new Array(1e9) + ""')
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "display_data")
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, earlier=seen)
    cell_id = run.codemode["cell_id"]
    # The realm's thread is stuck in one native call: the session's JavaScript context is
    # replaced (the host goes on), and the cell's last output says what that cost.
    assert (run.content["ename"], run.content["evalue"]) == (
        "CellTerminated",
        f"Cell {cell_id} was terminated; output it produced before that is shown above.",
    )
    assert run.stdout == (
        "before\n[The notebook session's JavaScript context was reset to stop this cell: " + KEPT + "]\n"
    )
    _binding_is_gone_and_stored_value_kept(kernel)
    # A cell the host stops in-process leaves the bindings: nothing more is said.
    assert execute(kernel.kc, "const again = 1").content["status"] == "ok"
    msg_id = send_execute(kernel.kc, 'notify("spinning"); while (true) {}')
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "display_data")
    kernel.km.interrupt_kernel()
    spun = collect(kernel.kc, msg_id, earlier=seen)
    assert spun.content["evalue"] == (
        f"Cell {spun.codemode['cell_id']} was terminated; output it produced before that is shown above."
    )
    assert execute(kernel.kc, "console.log(again)").stdout == "1\n"


def test_config_profile_strict_from_notebook_says_the_bindings_are_gone(notebook_kernel):
    kernel = notebook_kernel
    _bound(kernel)
    switched = execute(kernel.kc, "%config profile=strict")
    assert switched.content["status"] == "ok"
    assert switched.stdout.startswith(f"The code-mode runtime host was replaced: {KEPT}\n"), switched.stdout
    back = execute(kernel.kc, "%config profile=notebook")
    # Strict cells share no bindings: replacing their host loses only what the host holds.
    assert back.stdout.startswith("The code-mode runtime host was replaced: values stored with store() are kept.\n")
    _binding_is_gone_and_stored_value_kept(kernel)
    same = execute(kernel.kc, "%config profile=notebook")
    assert same.stdout.startswith("config file: "), same.stdout
