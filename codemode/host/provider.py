"""Which host connection a client's code-mode sessions use: :class:`HostProvider` spawns the
host lazily, replaces it after a failure or an exit notice (generation + 1), and names the
remote sessions opened on each connection ``session-1``, ``session-2``, …"""

from __future__ import annotations

import asyncio
import os

from codemode.errors import CodeModeError
from codemode.host.connection import HostConnection
from codemode.host.liveness import Liveness
from codemode.host.spawn import default_host_command, spawn_host

SHUTTING_DOWN = "code mode session is shutting down"
REFERENCE_HOST_NAME = "codex-code-mode-host"


class HostProvider:
    """Spawns the host lazily and replaces it after a failure or an exit notice (generation + 1).

    ``command``: argv of the host (default :func:`~codemode.host.default_host_command` with
    ``engine`` and ``profile``);
    ``env``/``cwd`` for the child; ``liveness``: when a silent host is probed (default
    :class:`~codemode.host.Liveness`: after 5 s of silence, 5 s for the answer). Several
    sessions may share one provider: after a crash they all move to the same new host. Only one
    spawn runs at a time.
    """

    def __init__(
        self,
        command: list[str] | None = None,
        *,
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        liveness: Liveness | None = None,
        engine: str = "quickjs",
        profile: str = "strict",
    ) -> None:
        self.command = list(command) if command else default_host_command(engine, profile)
        self.env = env
        self.cwd = cwd
        self.liveness = liveness
        self.generation = 0
        self._connection: HostConnection | None = None
        self._retired: set[HostConnection] = set()
        self._reapers: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()
        self._session_counter = 0
        self._closed = False

    @property
    def is_reference_host(self) -> bool:
        """True when the command runs Codex's own host binary."""
        return os.path.basename(self.command[0]) == REFERENCE_HOST_NAME

    @property
    def connection(self) -> HostConnection | None:
        """The current connection, alive or not (``None`` before the first spawn)."""
        return self._connection

    async def connect(self) -> tuple[HostConnection, int]:
        """The connection new cells go to and its generation, spawning a new host when there is
        none, it died, or it announced its exit. A retiring host is left to finish what is in
        flight; it is closed once it is gone, or by :meth:`aclose`."""
        async with self._lock:
            if self._closed:
                raise CodeModeError(SHUTTING_DOWN)
            current = self._connection
            if current is not None and current.alive and current.retiring is None:
                return current, self.generation
            if current is not None and current.alive:
                self._retire(current)
            elif current is not None:
                await current.close()
            fresh = await spawn_host(self.command, env=self.env, cwd=self.cwd, liveness=self.liveness)
            self._connection = fresh
            self.generation += 1
            fresh.generation = self.generation
            self._session_counter = 0
            return fresh, self.generation

    async def use_host(self, engine: str, profile: str) -> None:
        """Start later hosts with ``--engine engine`` and ``--profile profile``; the current
        host is closed (its sessions end), so the next :meth:`connect` spawns one. Only for the
        default command."""
        async with self._lock:
            self.command = default_host_command(engine, profile)
            current, self._connection = self._connection, None
        if current is not None:
            await current.close()

    def _retire(self, connection: HostConnection) -> None:
        self._retired.add(connection)

        async def close_when_gone() -> None:
            await connection.closed.wait()
            await connection.close()
            self._retired.discard(connection)

        reaper = asyncio.ensure_future(close_when_gone())
        self._reapers.add(reaper)
        reaper.add_done_callback(self._reapers.discard)

    def next_session_id(self) -> str:
        """``session-N``, numbered per connection."""
        self._session_counter += 1
        return f"session-{self._session_counter}"

    async def aclose(self) -> None:
        """Stop every host it started (no orphans); later :meth:`connect` calls fail."""
        async with self._lock:
            self._closed = True
            for connection in [*self._retired, *([self._connection] if self._connection else [])]:
                await connection.close()
            for reaper in list(self._reapers):
                reaper.cancel()
