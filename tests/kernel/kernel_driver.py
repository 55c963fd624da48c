"""Drive a real codemode kernel with ``jupyter_client``: start/stop and run cells.

:func:`execute` runs one cell and returns its reply plus the IOPub messages of that request.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import zmq
from jupyter_client.manager import KernelManager
from protocol_checks import SURROGATE_TOOLS, SlowSubscriber  # noqa: F401 - the kernel tests import them from here

KERNEL_NAME = "codemode"
TIMEOUT_S = 60
EVERYTHING = (
    Path(__file__).resolve().parents[2]
    / ".npm-tools"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-everything"
    / "dist"
    / "index.js"
)
"""The npm MCP server ``server-everything`` (``scripts/install-tools.sh`` installs it)."""


@dataclass
class Kernel:
    """A running kernel: its manager, a blocking client and its working folder."""

    km: KernelManager
    kc: Any
    cwd: Path


def start_kernel(
    cwd: Path,
    extra_env: dict[str, str] | None = None,
    *,
    argv_without_safe_path: bool = False,
    kernel_name: str = KERNEL_NAME,
    preload: str | None = None,
    offline: bool = False,
    stderr: IO[bytes] | None = None,
) -> Kernel:
    """Start a codemode kernel (of the kernelspec ``kernel_name``) in ``cwd`` (environment plus
    ``extra_env``) and wait until it answers kernel_info. ``argv_without_safe_path`` drops
    Python's ``-P`` from the kernelspec's command (as an older kernelspec or a kernel started
    by hand would run). ``preload`` names a module of this folder the kernel's process imports
    before the kernel starts (a test hook). ``offline``: the kernel runs under ``unshare -rn``,
    in a network namespace whose only interface is down (no connection can leave it), and
    talks to the client over ZeroMQ's ``ipc`` transport (Unix sockets in ``cwd``). ``stderr``
    (a file open for writing) receives the kernel process's stderr, its log."""
    kernel = _launch_kernel(
        cwd,
        extra_env,
        argv_without_safe_path=argv_without_safe_path,
        kernel_name=kernel_name,
        preload=preload,
        offline=offline,
        stderr=stderr,
    )
    kernel.kc.wait_for_ready(timeout=TIMEOUT_S)
    return kernel


def start_kernels(count: int, cwd: Path, extra_env: dict[str, str] | None = None) -> list[Kernel]:
    """Start ``count`` kernels as :func:`start_kernel` does, at once (they start side by side),
    and wait until each answers kernel_info."""
    kernels = [_launch_kernel(cwd, extra_env) for _ in range(count)]
    for kernel in kernels:
        kernel.kc.wait_for_ready(timeout=TIMEOUT_S)
    return kernels


def _launch_kernel(
    cwd: Path,
    extra_env: dict[str, str] | None = None,
    *,
    argv_without_safe_path: bool = False,
    kernel_name: str = KERNEL_NAME,
    preload: str | None = None,
    offline: bool = False,
    stderr: IO[bytes] | None = None,
) -> Kernel:
    """:func:`start_kernel` without the wait for kernel_info."""
    env = {k: v for k, v in os.environ.items() if k not in ("CODEMODE_CONFIG", "CODEMODE_PROFILE", "CODEMODE_ENGINE")}
    env.update(extra_env or {})
    if offline:
        km = KernelManager(kernel_name=kernel_name, transport="ipc", ip=str(cwd / "kernel-ipc"))
        km.kernel_spec.argv = ["unshare", "-rn", *km.kernel_spec.argv]
    else:
        km = KernelManager(kernel_name=kernel_name)
    if argv_without_safe_path:
        km.kernel_spec.argv = [a for a in km.kernel_spec.argv if a not in ("-P", "-E")]
    if preload is not None:
        argv = km.kernel_spec.argv
        start = (
            f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import {preload}; "
            "from codemode.kernel.__main__ import main; main(sys.argv[1:])"
        )
        module = argv.index("-m")
        km.kernel_spec.argv = [*argv[:module], "-c", start, *argv[module + 2 :]]
    km.start_kernel(cwd=str(cwd), env=env, **({"stderr": stderr} if stderr is not None else {}))
    kc = km.client()
    kc.start_channels()
    return Kernel(km, kc, cwd)


BLOCKING_TOOL = '''

@codemode.tool
def blocking(gate: str) -> str:
    """Says that it blocks (prints ``blocking``), then blocks until the file ``gate`` exists."""
    print("blocking", flush=True)
    while not Path(gate).exists():
        time.sleep(0.02)
    return "unblocked"
'''
"""Source of a sync Python tool that blocks its thread (a tool module with ``time``, ``Path``
and ``codemode`` imported appends it)."""


@contextlib.contextmanager
def kernel_with_tools(folder: Path, module: str, source: str) -> Iterator[Kernel]:
    """A kernel started in ``folder`` with the Python tool module ``module`` (its ``source``
    written beside a ``codemode.toml`` that names it); shut down on leaving."""
    (folder / f"{module}.py").write_text(source)
    (folder / "codemode.toml").write_text(f'[python_tools]\nmodules = ["{module}"]\n')
    kernel = start_kernel(folder)
    try:
        yield kernel
    finally:
        stop_kernel(kernel)


def stop_kernel(kernel: Kernel) -> None:
    """Shut the kernel down cleanly (shutdown_request, then wait)."""
    kernel.kc.stop_channels()
    kernel.km.shutdown_kernel(now=False)


@dataclass
class Execution:
    """One execute request's reply and its IOPub messages (between busy and idle)."""

    reply: dict[str, Any]
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def content(self) -> dict[str, Any]:
        return self.reply["content"]

    @property
    def codemode(self) -> dict[str, Any]:
        return self.reply["metadata"]["codemode"]

    def of_type(self, msg_type: str) -> list[dict[str, Any]]:
        return [m["content"] for m in self.messages if m["msg_type"] == msg_type]

    @property
    def stdout(self) -> str:
        return "".join(c["text"] for c in self.of_type("stream") if c["name"] == "stdout")

    @property
    def stderr_messages(self) -> list[str]:
        """The texts of the ``stderr`` stream messages, one per message."""
        return [c["text"] for c in self.of_type("stream") if c["name"] == "stderr"]

    @property
    def errors(self) -> list[dict[str, Any]]:
        return self.of_type("error")


def shell_reply(kc: Any, msg_id: str, timeout: float = TIMEOUT_S) -> dict[str, Any]:
    """The shell reply to request ``msg_id`` (replies to other requests read on the way are
    dropped)."""
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    return reply


def send_execute(kc: Any, code: str, **kwargs: Any) -> str:
    """Send an execute request without waiting; returns its msg_id."""
    return kc.execute(code, **kwargs)


def wait_for_iopub(
    kc: Any, msg_id: str, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT_S
) -> list[dict[str, Any]]:
    """Read IOPub until a message of request ``msg_id`` satisfies ``predicate``.

    Returns the messages of ``msg_id`` read on the way (the matching one last); pass them to
    :func:`collect` as ``earlier`` so none is lost. Raises ``queue.Empty`` after ``timeout`` s
    without a message.
    """
    seen = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") == msg_id:
            seen.append(msg)
            if predicate(msg):
                return seen


def display_update(kc: Any, parent_id: str, needle: str, timeout: float = TIMEOUT_S) -> list[dict[str, Any]]:
    """The ``update_display_data`` contents under request ``parent_id`` read until one whose
    ``text/plain`` contains ``needle`` (last). Raises ``queue.Empty`` after ``timeout`` s
    without a message."""
    seen = wait_for_iopub(
        kc,
        parent_id,
        lambda m: m["msg_type"] == "update_display_data" and needle in m["content"]["data"]["text/plain"],
        timeout,
    )
    return [m["content"] for m in seen if m["msg_type"] == "update_display_data"]


def collect(
    kc: Any,
    msg_id: str,
    timeout: float = TIMEOUT_S,
    others: list[dict[str, Any]] | None = None,
    earlier: list[dict[str, Any]] | None = None,
) -> Execution:
    """Wait for ``msg_id``'s reply and its IOPub messages up to the idle status; IOPub
    messages of other requests seen meanwhile are appended to ``others`` (if given);
    ``earlier`` are messages of ``msg_id`` already read (see :func:`wait_for_iopub`)."""
    reply = kc.get_shell_msg(timeout=timeout)
    while reply["parent_header"].get("msg_id") != msg_id:
        reply = kc.get_shell_msg(timeout=timeout)
    messages = [m for m in earlier or [] if m["msg_type"] not in ("status", "execute_input")]
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            if others is not None:
                others.append(msg)
            continue
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
        if msg["msg_type"] not in ("status", "execute_input"):
            messages.append(msg)
    return Execution(reply, messages)


def reply_or_question(kc: Any, msg_id: str, timeout: float = TIMEOUT_S) -> tuple[str, Any]:
    """Wait for whichever comes first: a question on the stdin channel (``("asked",
    message)``) or the shell reply of request ``msg_id`` (``("done", Execution)``)."""
    poller = zmq.Poller()
    poller.register(kc.stdin_channel.socket, zmq.POLLIN)
    poller.register(kc.shell_channel.socket, zmq.POLLIN)
    ready = dict(poller.poll(timeout * 1000))
    if kc.stdin_channel.socket in ready:
        return "asked", kc.get_stdin_msg(timeout=timeout)
    assert kc.shell_channel.socket in ready, "neither a question nor a reply came"
    return "done", collect(kc, msg_id, timeout)


def answer(kc: Any, question: dict[str, Any], value: str) -> None:
    """Answer ``question`` (an ``input_request``) with an ``input_reply`` naming it as its parent
    (``kc.input()`` names none)."""
    kc.session.send(kc.stdin_channel.socket, kc.session.msg("input_reply", {"value": value}, parent=question["header"]))


def execute(
    kc: Any, code: str, timeout: float = TIMEOUT_S, others: list[dict[str, Any]] | None = None, **kwargs: Any
) -> Execution:
    """Run one cell and return its reply and output messages (see :func:`collect` for ``others``)."""
    return collect(kc, send_execute(kc, code, **kwargs), timeout, others)


def runtime_host(kernel: Kernel) -> Any:
    """The kernel's one runtime host process (``python -m codemode.runtime``), a
    ``psutil.Process`` (zombies left by an earlier host are skipped)."""
    import psutil

    hosts = []
    for proc in psutil.Process(kernel.km.provisioner.pid).children(recursive=True):
        try:
            if "codemode.runtime" in " ".join(proc.cmdline()) and proc.status() != psutil.STATUS_ZOMBIE:
                hosts.append(proc)
        except psutil.NoSuchProcess:
            continue
    assert len(hosts) == 1, hosts
    return hosts[0]
