"""Kernel lifecycle: nothing the kernel started survives its shutdown; jupyter console works."""

from __future__ import annotations

import time

import psutil
from console_driver import Console
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
    """The console runs cells, and a slow one yields at its default yield time (300 ms here):
    the console sends ``allow_stdin`` true, so its requests are not headless
    (:mod:`codemode.kernel.headless`), and ``%wait`` shows the cell's end."""
    (tmp_path / "codemode.toml").write_text("[session]\nyield_time_ms = 300\n")
    with Console(tmp_path) as console:
        console.wait_for("In [1]")
        console.keys('text("from-" + "console")', "Enter")
        console.wait_for("from-console")
        console.keys('await tools.sleep({ms: 1500}); text("after-" + "sleep")', "Enter")
        console.wait_for("Cell 2 is running")
        console.keys("%wait 2 --yield-time-ms 20000", "Enter")
        console.wait_for("after-sleep")
        console.quit()


def _hosts(kernel_pid: int) -> list[psutil.Process]:
    return [p for p in _descendants(kernel_pid) if _alive(p) and "codemode.runtime" in " ".join(p.cmdline())]


def _started_hosts(kernel_pid: int) -> list[psutil.Process]:
    """The kernel's runtime hosts, once there is one (no cell is sent meanwhile)."""
    deadline = time.monotonic() + 20
    while not _hosts(kernel_pid):
        assert time.monotonic() < deadline, "no runtime host started before the first cell"
        time.sleep(0.05)
    return _hosts(kernel_pid)


def test_the_runtime_host_starts_with_the_kernel_and_runs_the_first_cell(codemode_kernelspec, tmp_path):
    # The host starts while the frontend connects, so the first cell does not wait for it.
    kernel = start_kernel(tmp_path)
    kernel_pid = kernel.km.provisioner.pid
    try:
        started = [p.pid for p in _started_hosts(kernel_pid)]
        assert execute(kernel.kc, 'text("first")').stdout == "first\n"
        assert [p.pid for p in _hosts(kernel_pid)] == started
    finally:
        stop_kernel(kernel)


def test_a_kernel_shut_down_before_any_cell_leaves_no_host(codemode_kernelspec, tmp_path):
    kernel = start_kernel(tmp_path)
    try:
        hosts = _started_hosts(kernel.km.provisioner.pid)
    finally:
        stop_kernel(kernel)
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in hosts) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p.pid for p in hosts if _alive(p)] == []
