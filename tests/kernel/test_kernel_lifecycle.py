"""Kernel lifecycle: nothing the kernel started survives its shutdown; jupyter console works."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
from dependencies import require
from kernel_driver import execute, start_kernel, stop_kernel


def _descendants(pid: int) -> list[psutil.Process]:
    return psutil.Process(pid).children(recursive=True)


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_shutdown_leaves_no_process_running(codemode_kernelspec, tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        assert execute(kernel.kc, 'text("warm")').stdout == "warm\n"
        run = execute(
            kernel.kc,
            '// @exec: {"yield_time_ms": 300}\nawait tools.exec_command({cmd: "sleep 120"}); text("never")',
        )
        assert run.codemode["status"] == "running"
        kernel_pid = kernel.km.provisioner.pid
        deadline = time.monotonic() + 10
        while not any("sleep" in " ".join(p.cmdline()) for p in _descendants(kernel_pid) if _alive(p)):
            assert time.monotonic() < deadline, "the exec_command child never started"
            time.sleep(0.1)
        started = [p for p in _descendants(kernel_pid) if _alive(p)]
        assert started  # at least the runtime host and the sleep
    finally:
        stop_kernel(kernel)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p.pid for p in started if _alive(p)] == []


def test_jupyter_console_runs_a_cell(codemode_kernelspec, tmp_path):
    require(shutil.which("tmux") is not None, "tmux is not installed")
    session = f"codemode-{uuid.uuid4().hex[:8]}"
    console = Path(sys.executable).parent / "jupyter-console"
    command = f"cd {tmp_path} && {console} --kernel codemode"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "160", "-y", "40", command], check=True)

    def pane() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout

    def wait_for(text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = pane()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the pane shows:\n{pane()}")

    try:
        wait_for("In [1]")
        subprocess.run(["tmux", "send-keys", "-t", session, 'text("from-" + "console")', "Enter"], check=True)
        wait_for("from-console")
        subprocess.run(["tmux", "send-keys", "-t", session, "C-d"], check=True)
        wait_for("exit")
        subprocess.run(["tmux", "send-keys", "-t", session, "y", "Enter"], check=True)
        deadline = time.monotonic() + 20
        while subprocess.run(["tmux", "has-session", "-t", session], capture_output=True).returncode == 0:
            # The console ran as the session's only command: the session ends when it exits.
            assert time.monotonic() < deadline, f"jupyter console did not exit; the pane shows:\n{pane()}"
            time.sleep(0.2)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)
