"""A runtime host that stops answering (``kill -STOP``), through a real kernel
(``kernel/termination.py``, the client's liveness probe).

- Interrupting a foreground cell (or a ``%wait``) whose host is stopped: the terminate is not
  answered, the host fails the probe that follows, and the reply is ``HostStopped`` (the cell
  was lost with its host) long before any 60 s deadline; the next cell starts a new host with
  the stored values.
- A ``%wait`` on a stopped host, with no interrupt: the yield it sends is not answered, the
  host fails the probe that follows, and the reply is ``HostStopped`` within about a second.
- A host stopped while the kernel is idle: the next cell's execute is not answered, the host
  fails the client's liveness probe with no started cell on it, so the cell (never admitted)
  runs on a new host, its output beginning with the idle-loss note; the cell after it runs.

The reply's bound (10 s) is generous: a kernel that waited for the terminate's own deadline
(60 s) or for the liveness probe of a silent host (about 11 s) fails it.
"""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest
from kernel_driver import collect, execute, runtime_host, send_execute, wait_for_iopub

pytestmark = pytest.mark.timeout(180)
BOUND_S = 10.0
LOST = (
    "The code-mode runtime host stopped (code-mode host stopped responding: no answer to a liveness "
    "probe within 0.4 s); cell {cell} was lost. The next cell starts a new host; values stored with "
    "store() are kept."
)


def _stop_host(kernel) -> psutil.Process:
    host = runtime_host(kernel)
    os.kill(host.pid, signal.SIGSTOP)
    return host


def _ended(host: psutil.Process) -> bool:
    try:
        return host.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def _gone(host: psutil.Process, within_s: float = 5.0) -> bool:
    """True once ``host`` has ended (or is a zombie): the kernel kills a failed host's process
    group when the connection fails, and the process may still be dying when the reply comes."""
    deadline = time.monotonic() + within_s
    while not _ended(host):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _output(run) -> list[tuple[str, str]]:
    """The request's outputs in order: (msg_type, the text shown)."""
    shown = []
    for msg in run.messages:
        content = msg["content"]
        if msg["msg_type"] == "error":
            shown.append(("error", content["ename"]))
        elif msg["msg_type"] == "stream":
            shown.append(("stream", content["text"]))
        else:
            shown.append((msg["msg_type"], content["data"]["text/plain"]))
    return shown


def test_interrupting_a_cell_of_a_stopped_host_replies_host_stopped_at_once(kernel):
    assert execute(kernel.kc, 'store("kept", 7); text("stored")').stdout == "stored\n"
    msg_id = send_execute(kernel.kc, 'text("before"); notify("running"); await tools.sleep({ms: 60000}); text("never")')
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "display_data")
    host = _stop_host(kernel)

    interrupted = time.monotonic()
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, timeout=60, earlier=seen)
    elapsed_s = time.monotonic() - interrupted

    cell_id = run.codemode["cell_id"]
    assert elapsed_s < BOUND_S, elapsed_s
    assert run.content["status"] == "error"
    assert (run.content["ename"], run.content["evalue"]) == ("HostStopped", LOST.format(cell=cell_id))
    # The notification came while the cell ran; the cell's text never left the stopped host.
    assert _output(run) == [("display_data", "running"), ("error", "HostStopped")]
    assert run.codemode["status"] == "failed"
    assert _gone(host)  # the client killed the stopped host's process group

    after = execute(kernel.kc, 'text(JSON.stringify(load("kept")))')
    assert after.stdout == "7\n"
    assert after.codemode["cell_id"].startswith("g2:")


def test_interrupting_a_wait_on_a_stopped_host_replies_host_stopped_at_once(kernel):
    assert execute(kernel.kc, 'store("waited", "yes")').content["status"] == "ok"
    background = execute(kernel.kc, '// @exec: {"yield_time_ms": 0}\nawait tools.sleep({ms: 60000})')
    cell_id = background.codemode["cell_id"]
    assert background.codemode["status"] == "running"
    host = _stop_host(kernel)
    msg_id = send_execute(kernel.kc, f"%wait {cell_id} --yield-time-ms 120000")
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "execute_input")

    interrupted = time.monotonic()
    kernel.km.interrupt_kernel()
    waited = collect(kernel.kc, msg_id, timeout=60, earlier=seen)
    elapsed_s = time.monotonic() - interrupted

    assert elapsed_s < BOUND_S, elapsed_s
    assert (waited.content.get("ename"), waited.content.get("evalue")) == (
        "HostStopped",
        LOST.format(cell=cell_id),
    ), (waited.content, [(m["msg_type"], m["content"]) for m in waited.messages])
    assert waited.codemode["cell_id"] == cell_id
    assert _gone(host)
    after = execute(kernel.kc, "text(load('waited'))")
    assert after.stdout == "yes\n"


def test_a_wait_on_a_stopped_host_replies_host_stopped_without_an_interrupt(kernel):
    # The %wait yields the observer's wait in flight; a host that does not answer within half a
    # second is probed, fails the probe, and the waited cell is shown lost with it.
    assert execute(kernel.kc, 'store("waited2", "yes")').content["status"] == "ok"
    background = execute(kernel.kc, '// @exec: {"yield_time_ms": 0}\nawait tools.sleep({ms: 60000})')
    cell_id = background.codemode["cell_id"]
    host = _stop_host(kernel)
    waited = execute(kernel.kc, f"%wait {cell_id} --yield-time-ms 5000", timeout=60)
    assert (waited.content["ename"], waited.content["evalue"]) == ("HostStopped", LOST.format(cell=cell_id))
    assert waited.codemode["status"] == "failed"
    assert _gone(host)
    after = execute(kernel.kc, "text(load('waited2'))")
    assert after.stdout == "yes\n"


def test_a_host_stopped_while_idle_is_noticed_by_the_next_cell(kernel):
    assert execute(kernel.kc, 'store("idle", 1); text("warm")').stdout == "warm\n"
    host = _stop_host(kernel)
    stopped = execute(kernel.kc, 'text("on a new host")', timeout=60)
    assert stopped.content["status"] == "ok", stopped.content
    assert stopped.stderr_messages == [
        "The code-mode runtime host stopped (code-mode host stopped responding: no answer to a liveness "
        "probe within 5 s) while no cell was running. This cell runs on a new host; values stored "
        "with store() are kept.\n"
    ]
    assert stopped.stdout == "on a new host\n"
    assert _gone(host)
    after = execute(kernel.kc, 'text(load("idle") + 1)')
    assert after.stdout == "2\n"
