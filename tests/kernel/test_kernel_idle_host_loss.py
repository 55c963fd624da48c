"""A runtime host lost while no cell runs, through a real kernel (``kernel/host_loss.py``,
``HostLoss.idle_note``; ``CodeModeSession.execute``'s ``on_idle_loss``).

The host is killed (SIGKILL, found with psutil as the kernel's child) between cells and the
test waits until the kernel has reaped it. The next cell runs on a new host, and its output
begins with one ``stderr`` line saying that the host stopped (Codex's reason in parentheses:
the kernel's reader or its process watcher, whichever noticed first) and what the new host
keeps: stored values (our host), and in the notebook profile not the bindings of earlier
cells; with Codex's host (``CODEMODE_HOST_BIN``) the stored values are lost too. The reply
stays the cell's own. The note comes once, never after a host lost under a running
cell (whose ``HostStopped`` said it) nor after one replaced on purpose (``%config profile=``),
which says so itself. A ``%wait`` in between starts no host.

A host killed just as a cell is sent (``kill -9`` and an execute at once) may take the
execute with it before the kernel noticed the death: the host never admitted it, so the cell
was not started and runs on a new host with the same note. The test pins that ordering:
the host is stopped (SIGSTOP), the execute is sent and read from the stopped host's stdin pipe
until the kernel has written its frame there, then the host is killed. A host that dies
during its handshake ends the cell that started it with ``HostStopped`` (the cell was not
started).
"""

from __future__ import annotations

import fcntl
import os
import signal
import sys
import termios
import time

import pytest
from kernel_driver import collect, execute, runtime_host, send_execute, start_kernel, stop_kernel, wait_for_iopub

pytestmark = pytest.mark.timeout(180)
BOUND_S = 30.0
REASONS = ("code-mode host closed its stdout", "code-mode host exited with status signal: 9 (SIGKILL)")
"""What the kernel may have noticed first about a killed host: its stdout closing or its exit."""
NOTE = (
    "The code-mode runtime host stopped ({reason}) while no cell was running. This cell runs on a new host; {kept}.\n"
)
STRICT_KEPT = "values stored with store() are kept"
NOTEBOOK_KEPT = "the bindings of earlier cells are gone, values stored with store() are kept"


def _kill_host(kernel) -> None:
    """SIGKILL the runtime host and wait until the kernel has reaped it."""
    host = runtime_host(kernel)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=BOUND_S)  # psutil polls until the pid is gone (reaped), within the bound


def _host_input_waiting(pid: int) -> int:
    """Bytes written to host ``pid``'s stdin pipe and not yet read by it (``FIONREAD`` on the
    pipe, opened through ``/proc``)."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK)
    try:
        return int.from_bytes(fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"), sys.byteorder)
    finally:
        os.close(fd)


def _generation(cell_id: str) -> int:
    """The host generation of a public cell id (``3``: 1, ``g2:3``: 2)."""
    return int(cell_id.split(":")[0][1:]) if ":" in cell_id else 1


def _notes(kept: str) -> list[list[str]]:
    return [[NOTE.format(reason=reason, kept=kept)] for reason in REASONS]


@pytest.fixture
def notebook_kernel(codemode_kernelspec, tmp_path):
    kernel = start_kernel(tmp_path, {"CODEMODE_PROFILE": "notebook"})
    yield kernel
    stop_kernel(kernel)


def test_a_host_lost_between_cells_is_told_once_on_the_next_cell(kernel):
    assert execute(kernel.kc, 'store("kept", 7); text("stored")').stdout == "stored\n"
    normal = execute(kernel.kc, 'text("same host")')
    assert (normal.content["status"], normal.stderr_messages) == ("ok", [])
    _kill_host(kernel)

    after = execute(kernel.kc, 'text(JSON.stringify(load("kept")))')
    assert after.content["status"] == "ok"
    assert after.stderr_messages in _notes(STRICT_KEPT), after.stderr_messages
    assert [m["content"]["name"] for m in after.messages] == ["stderr", "stdout"]  # the note first
    assert after.stdout == "7\n"
    assert after.codemode["cell_id"].startswith("g2:")

    again = execute(kernel.kc, 'text("still the new host")')
    assert (again.content["status"], again.stderr_messages, again.stdout) == ("ok", [], "still the new host\n")
    assert again.codemode["cell_id"].startswith("g2:")


def test_a_cell_sent_to_a_host_killed_before_it_answered_runs_on_a_new_host(kernel):
    stored = execute(kernel.kc, 'store("sent", 8); text("stored")')
    assert stored.stdout == "stored\n"
    generation = _generation(stored.codemode["cell_id"])
    host = runtime_host(kernel)
    host.send_signal(signal.SIGSTOP)
    msg_id = send_execute(kernel.kc, 'text(JSON.stringify(load("sent")))')
    deadline = time.monotonic() + BOUND_S
    while _host_input_waiting(host.pid) == 0:  # no event tells a test that a pipe was written
        assert time.monotonic() < deadline, "the kernel did not send the execute"
        time.sleep(0.01)
    host.send_signal(signal.SIGKILL)
    after = collect(kernel.kc, msg_id)
    assert after.content["status"] == "ok", after.content
    assert after.stderr_messages in _notes(STRICT_KEPT), after.stderr_messages
    assert (after.stdout, _generation(after.codemode["cell_id"])) == ("8\n", generation + 1)
    again = execute(kernel.kc, 'text("same new host")')
    assert (again.stderr_messages, _generation(again.codemode["cell_id"])) == ([], generation + 1)


def test_a_host_lost_under_a_running_cell_is_told_by_that_cell_alone(kernel):
    msg_id = send_execute(kernel.kc, 'notify("running"); await tools.sleep({ms: 60000})')
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "display_data")
    _kill_host(kernel)
    lost = collect(kernel.kc, msg_id, earlier=seen)
    assert lost.content["ename"] == "HostStopped"
    assert lost.content["evalue"].endswith(f"The next cell starts a new host; {STRICT_KEPT}.")
    after = execute(kernel.kc, 'text("after")')
    assert (after.content["status"], after.stderr_messages, after.stdout) == ("ok", [], "after\n")


def test_a_wait_between_the_loss_and_the_next_cell_starts_no_host(kernel):
    first = execute(kernel.kc, 'text("before")')
    cell_id = first.codemode["cell_id"]
    _kill_host(kernel)
    waited = execute(kernel.kc, f"%wait {cell_id}")
    assert (waited.content["ename"], waited.content["evalue"]) == (
        "CellNotFound",
        f"cell {cell_id} belongs to a stale code-mode host generation",
    )
    after = execute(kernel.kc, 'text("after")')
    assert after.stderr_messages in _notes(STRICT_KEPT), after.stderr_messages
    assert after.stdout == "after\n"


def test_the_notebook_profile_says_the_bindings_are_gone(notebook_kernel):
    kernel = notebook_kernel
    assert execute(kernel.kc, 'let x = 1; store("kept", 7); console.log("ready")').stdout == "ready\n"
    assert execute(kernel.kc, "x").of_type("execute_result")[0]["data"]["text/plain"] == "1"
    _kill_host(kernel)

    gone = execute(kernel.kc, "x")
    assert gone.stderr_messages in _notes(NOTEBOOK_KEPT), gone.stderr_messages
    assert (gone.content["status"], gone.content["ename"], gone.content["evalue"]) == (
        "error",
        "ReferenceError",
        "x is not defined",
    )
    assert [m["msg_type"] for m in gone.messages] == ["stream", "error"]  # the note before the error

    kept = execute(kernel.kc, 'load("kept")')
    assert kept.stderr_messages == []
    assert kept.of_type("execute_result")[0]["data"]["text/plain"] == "7"


def test_a_host_replaced_on_purpose_gives_no_note(notebook_kernel):
    kernel = notebook_kernel
    assert execute(kernel.kc, "let y = 2").content["status"] == "ok"
    switched = execute(kernel.kc, "%config profile=strict")
    assert switched.stdout.startswith(f"The code-mode runtime host was replaced: {NOTEBOOK_KEPT}.\n")
    after = execute(kernel.kc, 'text("on the strict host")')
    assert (after.content["status"], after.stderr_messages, after.stdout) == ("ok", [], "on the strict host\n")


def test_with_codexs_host_the_note_says_the_stored_values_were_lost(codemode_kernelspec, tmp_path):
    """``CODEMODE_HOST_BIN`` naming Codex's host (a stand-in under its name running codemode's
    host): the client does not seed a new host with the stored values, and the note says so."""
    stand_in = tmp_path / "bin" / "codex-code-mode-host"
    stand_in.parent.mkdir()
    stand_in.write_text(f'#!/bin/sh\nexec {sys.executable} -I -m codemode.runtime "$@"\n')
    stand_in.chmod(0o755)
    kernel = start_kernel(tmp_path, {"CODEMODE_HOST_BIN": str(stand_in)})
    try:
        assert execute(kernel.kc, 'store("kept", 7); text("stored")').stdout == "stored\n"
        _kill_host(kernel)
        after = execute(kernel.kc, "text(String(load('kept')))")
        assert after.stderr_messages in _notes("values stored with store() were lost with the host")
        assert (after.content["status"], after.stdout) == ("ok", "undefined\n")
    finally:
        stop_kernel(kernel)


def test_a_host_that_dies_during_its_handshake_stops_the_cell_that_started_it(codemode_kernelspec, tmp_path):
    """``CODEMODE_HOST_BIN`` naming a host that reads a byte of the hello, writes a line on
    stderr and exits before it answers the handshake: each cell ends with ``HostStopped`` (the reason is the client's
    ``code-mode host exited during handshake: <its last stderr line>``); the kernel lives."""
    broken = tmp_path / "bin" / "dying-host"
    broken.parent.mkdir()
    broken.write_text("#!/bin/sh\nhead -c 1 >/dev/null\necho 'dying-host: cannot start' >&2\nexit 3\n")
    broken.chmod(0o755)
    kernel = start_kernel(tmp_path, {"CODEMODE_HOST_BIN": str(broken)})
    try:
        for _ in range(2):
            stopped = execute(kernel.kc, 'text("x")')
            assert (stopped.content["ename"], stopped.content["evalue"]) == (
                "HostStopped",
                "The code-mode runtime host stopped (code-mode host exited during handshake: dying-host: "
                "cannot start); the cell was not started. The next cell starts a new host; "
                f"{STRICT_KEPT}.",
            )
    finally:
        stop_kernel(kernel)
