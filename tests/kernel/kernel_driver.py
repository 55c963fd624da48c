"""Drive a real codemode kernel with ``jupyter_client``: start/stop and run cells.

:func:`execute` runs one cell and returns its reply plus the IOPub messages of that request.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

KERNEL_NAME = "codemode"
TIMEOUT_S = 60


@dataclass
class Kernel:
    """A running kernel: its manager, a blocking client and its working folder."""

    km: KernelManager
    kc: Any
    cwd: Path


def start_kernel(cwd: Path, extra_env: dict[str, str] | None = None, *, argv_without_safe_path: bool = False) -> Kernel:
    """Start a codemode kernel in ``cwd`` (environment plus ``extra_env``) and wait until it
    answers kernel_info. ``argv_without_safe_path`` drops Python's ``-P`` from the kernelspec's
    command (as an older kernelspec or a kernel started by hand would run)."""
    env = {k: v for k, v in os.environ.items() if k != "CODEMODE_CONFIG"}
    env.update(extra_env or {})
    km = KernelManager(kernel_name=KERNEL_NAME)
    if argv_without_safe_path:
        km.kernel_spec.argv = [a for a in km.kernel_spec.argv if a != "-P"]
    km.start_kernel(cwd=str(cwd), env=env)
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=TIMEOUT_S)
    return Kernel(km, kc, cwd)


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
    def errors(self) -> list[dict[str, Any]]:
        return self.of_type("error")


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


def execute(
    kc: Any, code: str, timeout: float = TIMEOUT_S, others: list[dict[str, Any]] | None = None, **kwargs: Any
) -> Execution:
    """Run one cell and return its reply and output messages (see :func:`collect` for ``others``)."""
    return collect(kc, send_execute(kc, code, **kwargs), timeout, others)
