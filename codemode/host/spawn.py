"""Starting a host process and the handshake (``connection/hello`` -> ``connection/ready``).

The child runs in a new session (its own process group, so a SIGINT aimed at the kernel's
process group does not reach it), with stdin/stdout piped for the protocol and stderr logged
line by line at debug level.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib.util
import json
import logging
import os
import signal
import site
import sys
from typing import Any

from codemode.errors import CodeModeError, HostConnectionError
from codemode.host.connection import WAIT_TRANSPORT_TIMEOUT_S, HostConnection
from codemode.host.liveness import Liveness
from codemode.wire import frame_json, messages
from codemode.wire.framing import CAPABILITIES, PROTOCOL_VERSION, FrameError, encode_frame, read_frame

logger = logging.getLogger("codemode.host")

HOST_STARTUP_TIMEOUT_S = 30.0
"""Handshake deadline (``LOCAL_HOST_STARTUP_TIMEOUT`` of newer Codex clients)."""
MAX_SPAWN_PATH_BYTES = 512


def default_host_command(engine: str = "quickjs", profile: str = "strict") -> list[str]:
    """``$CODEMODE_HOST_BIN --listen stdio`` when set, else our own host via this interpreter.

    Our host runs isolated (``-I``): neither the working folder (a notebook's folder) nor
    ``PYTHONPATH`` (an empty entry in it means the working folder) nor the user's site-packages
    are on the host's import path, so no file a cell could write there is imported into the
    host. It also runs without ``site`` (``-S``), started by ``codemode/runtime/boot.py`` with
    the import path this process knows (:func:`host_import_plan`): running ``site`` (every
    ``.pth`` file, an editable install's import hook) is most of an interpreter's start.
    When codemode's packages cannot be located, the host is ``-I -m codemode.runtime``.
    ``engine``: our host's ``--engine``; ``profile``: its ``--profile`` (``strict`` or
    ``notebook``; Codex's host has only V8 and strict cells, and takes neither flag)."""
    binary = os.environ.get("CODEMODE_HOST_BIN")
    if binary:
        return [binary, "--listen", "stdio"]
    flags = ["--listen", "stdio", "--engine", engine, "--profile", profile]
    plan = host_import_plan()
    if plan is None:
        return [sys.executable, "-I", "-m", "codemode.runtime", *flags]
    script = os.path.join(plan["packages"]["codemode.runtime"], "boot.py")
    return [sys.executable, "-I", "-S", script, json.dumps(plan, separators=(",", ":")), *flags]


@functools.cache
def host_import_plan() -> dict[str, Any] | None:
    """Where the host finds what it imports, as ``codemode/runtime/boot.py`` reads it:
    ``{"path": [this interpreter's site-packages folders], "packages": {"codemode": folder,
    "codemode.runtime": folder}}``, or None when a package's folder cannot be found."""
    packages: dict[str, str] = {}
    for name in ("codemode", "codemode.runtime"):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            return None
        folders = list(spec.submodule_search_locations or []) if spec is not None else []
        if len(folders) != 1 or not os.path.isfile(os.path.join(folders[0], "__init__.py")):
            return None
        packages[name] = os.path.abspath(folders[0])
    if not os.path.isfile(os.path.join(packages["codemode.runtime"], "boot.py")):
        return None
    path = [folder for folder in site.getsitepackages() if os.path.isdir(folder)]
    return {"path": path, "packages": packages}


def _short_path(path: str) -> str:
    data = path.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_SPAWN_PATH_BYTES:
        return path
    tail = data[-(MAX_SPAWN_PATH_BYTES - 3) :]
    return "..." + tail.decode("utf-8", "ignore")


STDERR_GRACE_S = 1.0
"""How long a host that exited during the handshake is given to finish writing its stderr."""


async def _log_stderr(stream: asyncio.StreamReader, pid: int, last: list[str] | None = None) -> None:
    """Log the host's stderr lines; the last non-blank one is kept in ``last`` (one item)."""
    host_logger = logging.getLogger("codemode.host.stderr")
    while True:
        try:
            line = await stream.readline()
        except (OSError, ValueError):
            return
        if not line:
            return
        text = line.decode("utf-8", "replace").rstrip()
        host_logger.debug("[host %d] %s", pid, text)
        if last is not None and text.strip():
            last[:] = [text.strip()]


async def spawn_host(
    command: list[str] | None = None,
    *,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    startup_timeout_s: float = HOST_STARTUP_TIMEOUT_S,
    liveness: Liveness | None = None,
    wait_transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S,
) -> HostConnection:
    """Start a host process and handshake with it; returns a started :class:`HostConnection`.

    Raises :class:`CodeModeError` with Codex's texts: ``failed to spawn code-mode host <path>:
    <error>``, ``timed out negotiating with the code-mode host``, ``code-mode host exited during
    handshake`` (followed by ``: <the last line it wrote on stderr>`` when it wrote one) and
    ``failed to write code-mode host hello: <error>`` are a :class:`HostConnectionError` with
    no generation (the host died before it was ready, as one that dies later does);
    ``code-mode host rejected the handshake: <reason>``, ``code-mode host returned an
    invalid handshake response: …``.
    """
    argv = list(command or default_host_command())
    frame_json.use_orjson()  # the client's frames: imported with the kernel's modules, see frame_json
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            env=env,
            cwd=cwd,
            limit=2**20,
        )
    except OSError as exc:
        raise CodeModeError(f"failed to spawn code-mode host {_short_path(argv[0])}: {exc}") from None
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    last_stderr: list[str] = []
    stderr_task = asyncio.ensure_future(_log_stderr(process.stderr, process.pid, last_stderr))

    async def give_up(text: str, error: type[CodeModeError] = CodeModeError) -> CodeModeError:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()
        return error(text)

    try:
        process.stdin.write(encode_frame(messages.hello([PROTOCOL_VERSION], list(CAPABILITIES))))
        await process.stdin.drain()
    except (OSError, RuntimeError) as exc:  # its stdin is closed: the host is gone
        raise await give_up(f"failed to write code-mode host hello: {exc}", HostConnectionError) from None
    try:
        async with asyncio.timeout(startup_timeout_s):
            answer = await read_frame(process.stdout)
    except TimeoutError:
        raise await give_up("timed out negotiating with the code-mode host") from None
    except (FrameError, OSError) as exc:
        raise await give_up(f"failed to read code-mode host hello: {exc}") from None
    if answer is None:
        await give_up("")
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(STDERR_GRACE_S):
                await stderr_task
        reason = f": {last_stderr[0][:500]}" if last_stderr else ""
        raise HostConnectionError(f"code-mode host exited during handshake{reason}")
    if answer.get("type") == "connection/rejected":
        raise await give_up(f"code-mode host rejected the handshake: {answer.get('reason')!r}")
    capabilities = answer.get("capabilities")
    if (
        answer.get("type") != "connection/ready"
        or answer.get("selectedVersion") != PROTOCOL_VERSION
        or not isinstance(capabilities, list)
    ):
        raise await give_up(f"code-mode host returned an invalid handshake response: {answer!r}")
    connection = HostConnection(
        process.stdout,
        process.stdin,
        process=process,
        capabilities=[c for c in capabilities if isinstance(c, str)],
        liveness=liveness,
        wait_transport_timeout_s=wait_transport_timeout_s,
    )
    connection._tasks.append(stderr_task)
    connection.start()
    logger.info("code-mode host started (pid %d, %s)", process.pid, " ".join(argv))
    return connection
