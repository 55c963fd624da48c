"""Helpers for end-to-end tests that run Jupyter servers as subprocesses.

Used by ``test_gateway.py`` (Jupyter Kernel Gateway), ``test_jupyterlab.py`` (JupyterLab) and
``test_server_output.py`` (Jupyter Server): a free loopback port, bounded polling for a
condition, :class:`ServerProcess`, which starts a server in its own session (process group),
remembers every process it ever saw below it and stops them all - SIGTERM first, then SIGKILL
for the group and every remembered straggler - so a failing test leaves nothing running - and
:func:`ws_execute`, which runs a cell over a kernel's ``channels`` websocket.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import psutil
import requests
import websocket

log = logging.getLogger(__name__)

T = TypeVar("T")

DEADLINE_S = 30.0
"""Default upper bound (seconds) for a bounded wait; waits end as soon as the condition holds."""

POLL_S = 0.1
"""Pause (seconds) between two checks of a polled condition."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(check: Callable[[], T | None], what: str, deadline_s: float = DEADLINE_S) -> T:
    """Call ``check`` every :data:`POLL_S` until it returns something truthy and return that.

    Exceptions raised by ``check`` count as "not yet" (a server that is still starting refuses
    connections). Raises ``AssertionError`` naming ``what`` and the last exception when
    ``deadline_s`` seconds pass first.
    """
    end = time.monotonic() + deadline_s
    last: BaseException | None = None
    while True:
        try:
            value = check()
            if value:
                return value
        except Exception as exc:  # noqa: BLE001 - any failure means "not ready yet"
            last = exc
        if time.monotonic() >= end:
            raise AssertionError(f"Timed out after {deadline_s:.0f} s waiting for {what} (last error: {last!r}).")
        time.sleep(POLL_S)


def alive(proc: psutil.Process) -> bool:
    """Whether ``proc`` still runs (a zombie counts as gone)."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def cmdline(proc: psutil.Process) -> str:
    """``proc``'s command line as one string; empty when it is gone or hidden."""
    try:
        return " ".join(proc.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return ""


class ServerProcess:
    """A server subprocess (``argv``) in its own session, with its output in ``log_path``.

    ``seen`` holds every descendant observed by :meth:`remember` (``commands``: their command
    lines, pid -> str, read when first seen); :meth:`stop` ends the server and all of them. Use as a context manager or call :meth:`stop` in a ``finally``.
    """

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str], log_path: Path) -> None:
        self.log_path = log_path
        self._log = open(log_path, "wb")  # noqa: SIM115 - closed in stop()
        self.popen = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.process = psutil.Process(self.popen.pid)
        self.seen: dict[int, psutil.Process] = {self.popen.pid: self.process}
        self.commands: dict[int, str] = {self.popen.pid: " ".join(argv)}

    def __enter__(self) -> ServerProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def output(self) -> str:
        """What the server wrote so far (stdout and stderr), for failure messages."""
        self._log.flush()
        return self.log_path.read_text(errors="replace")

    def check_running(self) -> None:
        """Raise ``AssertionError`` with the server's output when it has exited."""
        code = self.popen.poll()
        if code is not None:
            raise AssertionError(f"The server exited with code {code}; its output:\n{self.output()}")

    def remember(self) -> list[psutil.Process]:
        """Record the server's current descendants in ``seen`` and return the live ones."""
        try:
            children = self.process.children(recursive=True)
        except psutil.NoSuchProcess:
            children = []
        for child in children:
            if child.pid not in self.seen:
                self.seen[child.pid] = child
                self.commands[child.pid] = cmdline(child)
        return [c for c in children if alive(c)]

    def survivors(self) -> list[psutil.Process]:
        """Every process in ``seen`` that still runs."""
        return [p for p in self.seen.values() if alive(p)]

    def terminate(self, deadline_s: float = DEADLINE_S) -> int | None:
        """SIGTERM the server and wait up to ``deadline_s`` for it; its exit code or ``None``."""
        self.remember()
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(deadline_s)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """End the server and everything it started, whatever state they are in (idempotent)."""
        self.terminate(deadline_s=10.0)
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for proc in self.survivors():
            log.warning("killing leftover process %s: %s", proc.pid, cmdline(proc))
            try:
                proc.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(list(self.seen.values()), timeout=5)
        if self.popen.poll() is None:
            self.popen.wait(5)
        self._log.close()

    def assert_all_gone(self, deadline_s: float = DEADLINE_S) -> None:
        """Wait (bounded) until no process in ``seen`` runs; ``AssertionError`` lists survivors."""
        end = time.monotonic() + deadline_s
        while True:
            left = self.survivors()
            if not left:
                return
            if time.monotonic() >= end:
                raise AssertionError(
                    "Processes outlived the server: " + "; ".join(f"{p.pid} {cmdline(p)}" for p in left)
                )
            time.sleep(POLL_S)


@contextlib.contextmanager
def jupyter_app(
    tmp_path: Path,
    app: str,
    *options: str,
    ready_path: str,
    token: str,
    command: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[tuple[str, ServerProcess]]:
    """Run ``python -m jupyter APP --ip=127.0.0.1 --port=<free> OPTIONS...`` (or ``command``
    in place of ``python -m jupyter APP``) in ``tmp_path`` (log: ``tmp_path/APP.log``; ``env``
    added to :func:`server_env`'s) until it answers ``GET ready_path`` with ``token``; yields
    ``(base_url, server)`` and stops the server and everything it started afterwards."""
    port = free_port()
    server = ServerProcess(
        [*(command or [sys.executable, "-m", "jupyter", app]), "--ip=127.0.0.1", f"--port={port}", *options],
        cwd=tmp_path,
        env={**server_env(tmp_path), **(env or {})},
        log_path=tmp_path / f"{app}.log",
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def up() -> bool:
            server.check_running()
            return requests.get(f"{base}{ready_path}", headers={"Authorization": f"token {token}"}, timeout=2).ok

        wait_for(up, f"jupyter {app}'s {ready_path}")
        yield base, server
    finally:
        server.stop()


def server_env(tmp_path: Path) -> dict[str, str]:
    """The environment for a server under test: this process's (``JUPYTER_PATH`` from
    ``tests/conftest.py`` included) with Jupyter's runtime, config and data folders in
    ``tmp_path`` and no ``CODEMODE_CONFIG``, so kernels read no configuration of the user's."""
    env = {k: v for k, v in os.environ.items() if k != "CODEMODE_CONFIG"}
    for name, sub in (
        ("JUPYTER_RUNTIME_DIR", "runtime"),
        ("JUPYTER_CONFIG_DIR", "config"),
        ("JUPYTERLAB_SETTINGS_DIR", "lab-settings"),
        ("JUPYTERLAB_WORKSPACES_DIR", "lab-workspaces"),
    ):
        folder = tmp_path / sub
        folder.mkdir(parents=True, exist_ok=True)
        env[name] = str(folder)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class Execution:
    """What the kernel sent for one execute_request: the reply and the iopub messages."""

    reply: dict[str, Any]
    iopub: list[dict[str, Any]] = field(default_factory=list)

    @property
    def stdout(self) -> str:
        """The concatenated ``stdout`` stream texts."""
        return "".join(
            m["content"]["text"] for m in self.iopub if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
        )

    def of_type(self, msg_type: str) -> list[dict[str, Any]]:
        """The iopub messages of ``msg_type``, in arrival order."""
        return [m for m in self.iopub if m["msg_type"] == msg_type]


def ws_execute(ws: websocket.WebSocket, code: str, *, allow_stdin: bool = False) -> Execution:
    """Send ``code`` as an execute_request (Jupyter protocol 5.3 over the gateway's websocket;
    ``allow_stdin`` false, as a headless harness sends it, unless given) and collect messages
    until both its execute_reply and its iopub ``idle`` arrived."""
    msg_id = uuid.uuid4().hex
    ws.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "username": "e2e",
                    "session": uuid.uuid4().hex,
                    "date": "",
                    "version": "5.3",
                },
                "parent_header": {},
                "metadata": {},
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": allow_stdin,
                    "stop_on_error": True,
                },
                "buffers": [],
                "channel": "shell",
            }
        )
    )
    reply: dict[str, Any] | None = None
    iopub: list[dict[str, Any]] = []
    idle = False
    while reply is None or not idle:
        msg = json.loads(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if msg["channel"] == "shell" and msg["msg_type"] == "execute_reply":
            reply = msg
        elif msg["channel"] == "iopub":
            iopub.append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                idle = True
    return Execution(reply, iopub)


def open_channels(base: str, kernel_id: str, token: str, timeout_s: float = DEADLINE_S * 2) -> websocket.WebSocket:
    """The ``channels`` websocket of kernel ``kernel_id`` on the server at ``base``
    (``http://HOST:PORT``), authorised with ``token``."""
    return websocket.create_connection(
        f"ws{base[len('http') :]}/api/kernels/{kernel_id}/channels",
        header=[f"Authorization: token {token}"],
        timeout=timeout_s,
    )
