"""Driving Jupyter kernels (codemode, ipykernel's ``python3``, Deno's) for benchmarks.

A :class:`Kernel` is started with ``jupyter_client``'s ``KernelManager`` and a blocking client.
:meth:`Kernel.run` times one cell as a front end sees it: from sending the ``execute_request``
until its ``execute_reply`` (shell) *and* the kernel's ``idle`` status for it (IOPub) have both
been received, collecting its stdout on the way (Jupyter messaging: "Kernel status": ``idle`` is
published after every output of the request). Memory is read from ``/proc/PID/status``.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager

TIMEOUT_S = 120.0
LOG = Path(tempfile.gettempdir()) / "codemode-bench-kernels.log"
"""Where the kernels' own stdout and stderr go (their warnings would clutter the tables)."""
_log: Any = None
DENO_KERNEL = "deno"
"""The name ``deno jupyter --install`` gives Deno's kernelspec."""


@dataclass
class Execution:
    """One cell: seconds from request to reply-and-idle, the reply's content, its stdout."""

    seconds: float
    reply: dict[str, Any]
    stdout: str


def deno_missing() -> str | None:
    """Why Deno's kernel cannot run here (``deno`` not on ``PATH``), or None."""
    return None if shutil.which("deno") else "deno is not on PATH (Deno's kernel is `deno jupyter`)"


def _deno_specs() -> KernelSpecManager:
    """A spec manager that knows Deno's kernel as ``deno jupyter --install`` would declare it."""
    folder = Path(tempfile.mkdtemp(prefix="codemode-bench-deno-")) / DENO_KERNEL
    folder.mkdir()
    argv = [shutil.which("deno") or "deno", "jupyter", "--kernel", "--conn", "{connection_file}"]
    spec = {"argv": argv, "display_name": "Deno", "language": "typescript"}
    (folder / "kernel.json").write_text(json.dumps(spec))
    return KernelSpecManager(kernel_dirs=[str(folder.parent)])


def _start(km: KernelManager) -> None:
    """Start ``km``'s kernel with its stdout and stderr appended to :data:`LOG`."""
    global _log
    if _log is None:
        _log = LOG.open("w", encoding="utf-8")
    km.start_kernel(stdout=_log, stderr=_log)


def manager(kernel_name: str) -> KernelManager:
    """A ``KernelManager`` for ``kernel_name`` (Deno's is declared here, not installed)."""
    if kernel_name == DENO_KERNEL:
        return KernelManager(kernel_name=kernel_name, kernel_spec_manager=_deno_specs())
    return KernelManager(kernel_name=kernel_name)


def collect(kc: Any, msg_id: str, timeout: float = TIMEOUT_S) -> tuple[dict[str, Any], str]:
    """Read ``msg_id``'s ``execute_reply`` and its IOPub messages up to its ``idle`` status;
    returns the reply and the text of its ``stdout`` stream messages. Raises ``queue.Empty``
    when nothing arrives for ``timeout`` seconds."""
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    stdout: list[str] = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            return reply, "".join(stdout)
        if kind == "stream" and content["name"] == "stdout":
            stdout.append(content["text"])


def first_cell(kernel_name: str, code: str) -> float:
    """Seconds from ``start_kernel`` until the ``execute_reply`` of ``code``, the first request
    (sent as soon as the client's channels are up; no ``kernel_info`` handshake, which polls).
    The kernel is shut down afterwards, outside the time."""
    km = manager(kernel_name)
    started = time.perf_counter()
    _start(km)
    kc = km.blocking_client()
    kc.start_channels()
    try:
        msg_id = kc.execute(code)
        reply = kc.get_shell_msg(timeout=TIMEOUT_S)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = kc.get_shell_msg(timeout=TIMEOUT_S)
        elapsed = time.perf_counter() - started
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{kernel_name}: {code!r} failed: {reply['content']}")
        return elapsed
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)


class Kernel:
    """A running kernel and its blocking client; a context manager (shut down on exit)."""

    def __init__(self, kernel_name: str) -> None:
        self.name = kernel_name
        self.km = manager(kernel_name)
        self.kc: Any = None

    def __enter__(self) -> Kernel:
        _start(self.km)
        self.kc = self.km.blocking_client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=TIMEOUT_S)
        return self

    def __exit__(self, *exc: object) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=False)

    def run(self, code: str, timeout: float = TIMEOUT_S) -> Execution:
        """Run ``code`` (see the module docstring); raises ``RuntimeError`` unless its reply is ``ok``."""
        started = time.perf_counter()
        reply, stdout = collect(self.kc, self.kc.execute(code), timeout)
        elapsed = time.perf_counter() - started
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{self.name}: {code[:80]!r} failed: {reply['content']}")
        return Execution(elapsed, reply, stdout)

    @property
    def pid(self) -> int:
        """The kernel process's id."""
        return int(self.km.provisioner.process.pid)  # type: ignore[union-attr]

    def children(self) -> list[int]:
        """Ids of the kernel process's direct children (``/proc/PID/task/*/children``)."""
        found: list[int] = []
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(pid) for pid in (task / "children").read_text().split()]
        return found


def rss(pid: int) -> int:
    """Resident set size of process ``pid`` in bytes (``VmRSS`` of ``/proc/PID/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"process {pid} has no VmRSS (a zombie?)")


def command_line(pid: int) -> str:
    """The command line of process ``pid``, arguments joined by spaces."""
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
