"""The process side of a stdio MCP server: finding its command, and reading its stderr.

:func:`server_command` resolves the configured command and environment; :class:`StderrPipe`
is the pipe given to the server as its stderr, logged line by line, whose last lines a
start-up failure quotes.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import os
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

NEUTRAL_FOLDER = "/"
"""Where a stdio server without a ``cwd`` runs when cells can write its config file's folder."""


def server_folder(cwd: str | None, config_folder: Path | None, writable: Iterable[Path]) -> str:
    """The working folder of a stdio MCP server: its ``cwd`` when the config sets one (the
    user chose it, as in Codex); else the config file's folder when it lies in none of the
    ``writable`` folders (the workspace and the writable roots, :meth:`SandboxPolicy.writable_folders
    <codemode.sandbox.policy.SandboxPolicy.writable_folders>`, also those of another
    ``sandbox_mode``: an earlier session may have written there); else ``/``.

    Why not the kernel's working folder (the notebook's), as a plain ``subprocess`` would: a
    server's program looks up code in its working folder. ``npx`` runs the package found in
    ``node_modules`` there or in a folder above; ``python -m`` puts the folder first on
    ``sys.path``, so a ``<module>/__main__.py`` there runs instead of the installed module;
    npm, uv and others read their settings from there. A cell that writes such a file would run
    code outside the sandbox at the next kernel start. A folder inside none of the writable
    folders has no writable folder above it either, so ``npx``'s upward search stays out of
    them too; ``/`` is writable only with ``writable_roots = ["/"]`` (or without a sandbox),
    where nothing is protected anyway.
    """
    if cwd is not None:
        return cwd
    folders = [Path(os.path.realpath(folder)) for folder in writable]
    if config_folder is not None:
        real = Path(os.path.realpath(config_folder))
        if not any(real.is_relative_to(folder) for folder in folders):
            return str(config_folder)
    return NEUTRAL_FOLDER


def server_environment(extra_env: dict[str, str]) -> dict[str, str]:
    """A stdio server's environment: the MCP SDK's default one, with the folder of the Python
    interpreter running the kernel (a venv's ``bin``) at the front of ``PATH``, plus
    ``extra_env`` (the server's ``env``)."""
    from mcp.client.stdio import get_default_environment

    bin_dir = str(Path(sys.executable).parent)
    env = get_default_environment()
    path = env.get("PATH", os.defpath)
    if bin_dir not in path.split(os.pathsep):
        env["PATH"] = bin_dir + os.pathsep + path
    env.update(extra_env)
    return env


def find_command(command: str, path: str) -> str | None:
    """The program a bare ``command`` names on ``path`` (a ``PATH`` value), or None. Relative
    and empty entries (``.``, ``bin``) are skipped: they would be looked up in the kernel's
    working folder, the notebook's, where a cell can put a program of that name for the next
    start (as :func:`codemode.sandbox.bwrap.find_program` skips them for ``bwrap``)."""
    entries = [entry for entry in path.split(os.pathsep) if entry and os.path.isabs(entry)]
    try:
        return shutil.which(command, path=os.pathsep.join(entries))
    except ValueError:  # a NUL in the command or in PATH: nothing can be found
        return None


def server_command(command: str, extra_env: dict[str, str]) -> tuple[str, dict[str, str]]:
    """Resolve a stdio server's command and environment.

    A bare command name (no ``/``) is looked up first in the folder of the Python
    interpreter running the kernel (a venv's ``bin``), then on ``PATH`` (:func:`find_command`),
    so ``command = "mcp-server-time"`` finds the console script installed beside codemode
    even when the venv is not activated. The environment is :func:`server_environment`'s.
    Returns ``(command, env)``. Raises :class:`FileNotFoundError` (a sentence naming the
    command) when it cannot be found or is not executable, so the start-up error says so
    rather than reporting a closed connection from the launcher.
    """
    env = server_environment(extra_env)
    if command and os.sep not in command:
        found = find_command(command, env["PATH"])
        if found is None:
            raise FileNotFoundError(f"the command `{command}` was not found on PATH")
        command = found
    elif not (os.path.isfile(command) and os.access(command, os.X_OK)):
        raise FileNotFoundError(f"the command `{command}` does not exist or is not executable")
    return command, env


def server_programs(servers: Iterable[Any]) -> list[Path]:
    """Where the bare commands of ``servers`` (stdio ones, ``McpServerConfig``) are looked up
    on their ``PATH`` (:func:`find_command`): the program found now, and the same name in each
    folder before it (every folder when none is found), which does not hold it yet. Protected
    like the files their command lines name (:func:`codemode.sandbox.startup.startup_code`),
    the missing ones kept from being created, since a ``PATH`` folder may lie in the workspace
    (a project's venv, ``~/.local/bin`` when the notebook is in the home folder): a program a
    cell wrote there would be found first at the next start."""
    found: list[Path] = []
    for server in servers:
        command = getattr(server, "command", None)
        if command and os.sep not in command and "\0" not in command:
            path = server_environment(dict(server.env)).get("PATH", os.defpath)
            program = find_command(command, path)
            for entry in (e for e in path.split(os.pathsep) if e and os.path.isabs(e)):
                candidate = Path(entry) / command
                if program is not None and os.path.normpath(candidate) == os.path.normpath(program):
                    break
                found.append(candidate)
            if program is not None:
                found.append(Path(program))
    return found


STDERR_TAIL_LINES = 20
"""How many of a server's last stderr lines a start-up failure quotes."""

STDERR_TAIL_BYTES = 2048
"""The most stderr text (UTF-8 bytes, from the end) a start-up failure quotes."""


class StderrPipe:
    """A pipe whose write end is the server's stderr; lines are logged at debug level and the
    last :data:`STDERR_TAIL_LINES` kept for :meth:`tail` (a start-up failure quotes them)."""

    def __init__(self, server: str) -> None:
        self.server = server
        read_fd, write_fd = os.pipe()
        self.writer = os.fdopen(write_fd, "w")
        self._read_fd = read_fd
        self._last: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
        self._task: asyncio.Task[None] | None = asyncio.ensure_future(self._pump())

    async def _pump(self) -> None:
        log = logging.getLogger(__name__ + ".stderr")
        reader = asyncio.StreamReader(limit=2**20)
        loop = asyncio.get_running_loop()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(self._read_fd, "rb", buffering=0)
        )
        try:
            while True:
                try:
                    raw = await reader.readuntil(b"\n")
                except asyncio.IncompleteReadError as end:
                    raw = end.partial
                except asyncio.LimitOverrunError as over:
                    raw = await reader.readexactly(over.consumed)  # an over-long line, in parts
                if not raw:
                    return
                line = raw.decode("utf-8", "replace").rstrip()
                self._last.append(line[-STDERR_TAIL_BYTES:])
                log.debug("[mcp %s] %s", self.server, line)
        finally:
            transport.close()

    def tail(self) -> str:
        """The server's last stderr lines (at most :data:`STDERR_TAIL_LINES` lines and about
        :data:`STDERR_TAIL_BYTES` bytes, whole lines from the end), joined by newlines; empty
        when it wrote nothing."""
        kept: list[str] = []
        size = 0
        for line in reversed(self._last):
            size += len(line.encode("utf-8")) + 1
            if kept and size > STDERR_TAIL_BYTES:
                break
            kept.append(line)
        return "\n".join(reversed(kept)).strip("\n")

    def close_writer(self) -> None:
        """Drop our copy of the write end (the child keeps its own)."""
        with contextlib.suppress(OSError):
            self.writer.close()

    async def aclose(self) -> None:
        """Close our write end and wait (at most 1 s) until the server's stderr is read to its end."""
        self.close_writer()
        if self._task is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError, Exception):
                async with asyncio.timeout(1.0):
                    await self._task
            self._task.cancel()
            self._task = None
