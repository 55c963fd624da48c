"""What following a background cell costs: CPU seconds of the kernel and of the runtime host,
and host frames, while a yielded cell does nothing but await a timer.

    python -m bench.background_cell [--seconds 30]

A real codemode kernel is started (with jupyter_client) through a small launcher
(``bench/counting_kernel.py``) that counts the frames the kernel's host connection writes
and reads. The cell ``await new Promise(r => setTimeout(r, SECONDS * 1000 + 5000))`` yields at
once (``yield_time_ms`` 0); over the next ``--seconds`` seconds the script measures:

- the CPU seconds (user + system) of the kernel process and of the host process (psutil);
- the frames written to the host and read from it (requests, answers, liveness probes).

The numbers are the cost of observation alone: the cell itself runs no JavaScript meanwhile.
Prints one table; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.manager import KernelManager

HERE = Path(__file__).resolve().parent


def _host(kernel_pid: int) -> psutil.Process:
    for proc in psutil.Process(kernel_pid).children(recursive=True):
        if "codemode.runtime" in " ".join(proc.cmdline()):
            return proc
    raise RuntimeError("the kernel has no runtime host")


def _cpu(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return times.user + times.system


def _frames(path: Path) -> dict[str, int]:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {"written": 0, "read": 0}


def _reply(kc, msg_id: str) -> dict:
    while True:
        reply = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def _kernelspec_installed() -> None:
    """Make sure Jupyter finds the ``codemode`` kernelspec (installed into a temp prefix if not)."""
    try:
        KernelSpecManager().get_kernel_spec("codemode")
        return
    except NoSuchKernel:
        pass
    prefix = Path(tempfile.mkdtemp(prefix="codemode-bench-spec-"))
    subprocess.run([sys.executable, "-m", "codemode", "install", "--prefix", str(prefix)], check=True)
    data = str(prefix / "share" / "jupyter")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (data, os.environ.get("JUPYTER_PATH")) if p)


def measure(seconds: float) -> dict[str, float]:
    """Run the background cell for ``seconds`` and return the costs (see the module docstring)."""
    _kernelspec_installed()
    workdir = Path(tempfile.mkdtemp(prefix="codemode-bench-bg-"))
    counts = workdir / "frames.json"
    km = KernelManager(kernel_name="codemode")
    km.kernel_spec.argv = [sys.executable, str(HERE / "counting_kernel.py"), "-f", "{connection_file}"]
    km.start_kernel(cwd=str(workdir), env={**os.environ, "CODEMODE_BENCH_FRAMES": str(counts)})
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        _reply(kc, kc.execute('text("warm")'))
        timer_ms = int(seconds * 1000) + 5000
        code = f'// @exec: {{"yield_time_ms": 0}}\nawait new Promise(r => setTimeout(r, {timer_ms})); text("done")'
        reply = _reply(kc, kc.execute(code))
        assert reply["metadata"]["codemode"]["status"] == "running", reply["metadata"]
        kernel = psutil.Process(km.provisioner.pid)
        host = _host(kernel.pid)
        time.sleep(1.0)  # let the observation settle into its steady state
        before = (_cpu(kernel), _cpu(host), _frames(counts))
        time.sleep(seconds)
        after = (_cpu(kernel), _cpu(host), _frames(counts))
        _reply(kc, kc.execute("%terminate"))
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)
    return {
        "kernel_cpu_s": after[0] - before[0],
        "host_cpu_s": after[1] - before[1],
        "frames_written": after[2]["written"] - before[2]["written"],
        "frames_read": after[2]["read"] - before[2]["read"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    result = measure(args.seconds)
    print(f"background cell awaiting a timer, {args.seconds:g} s:")
    print(f"  kernel CPU      {result['kernel_cpu_s']:.3f} s")
    print(f"  host CPU        {result['host_cpu_s']:.3f} s")
    print(f"  frames written  {result['frames_written']}")
    print(f"  frames read     {result['frames_read']}")


if __name__ == "__main__":
    main()
