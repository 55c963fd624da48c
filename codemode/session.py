"""``CodeModeSession``: execute / wait / terminate / shutdown of code-mode cells.

One logical session (one kernel session) on top of a host connection
(:mod:`codemode.host_client`), following ``spec/codex-code-mode.md`` §3 and §4.6:

- the host is spawned lazily on the first call (:class:`HostProvider`, shareable by several
  sessions); each connection names its remote sessions ``session-1``, ``session-2``, …;
- public cell ids are the host's ids in generation 1 and ``g<generation>:<id>`` after a
  rebuild; ids of another generation are rejected with
  ``cell <id> belongs to a stale code-mode host generation`` (§3.5);
- when the connection dies, pending calls fail with its reason (a
  :class:`~codemode.errors.HostConnectionError` naming the generation) and every live cell is
  reported closed once (``on_cell_closed``); :meth:`CodeModeSession.host_failure` tells later
  whether a cell was lost that way; the next call spawns a new host, generation + 1;
- tool calls go to the :class:`~codemode.dispatch.ToolCallRuntime`, notifications to
  ``on_notify``; after ``shutdown`` every call fails with ``code mode session is shutting down``;
- stored values: the client keeps the committed values (the ``session/storedValues``
  extension) and seeds a rebuilt host's session with them. Codex's own host rejects unknown
  fields, so the extension is used only with our host (see ``stored_values_extension``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .cancellation import CancellationToken
from .config import SessionDefaults
from .errors import CodeModeError, HostConnectionError, ToolCallError
from .host_client import HostConnection, default_host_command, spawn_host
from .responses import RuntimeResponse, WaitOutcome

logger = logging.getLogger(__name__)

SHUTTING_DOWN = "code mode session is shutting down"
REFERENCE_HOST_NAME = "codex-code-mode-host"
MAX_REMEMBERED_FAILURES = 64
"""How many failed generations :meth:`CodeModeSession.host_failure` remembers (oldest dropped)."""


@dataclass
class StartedCell:
    """An admitted cell: its public id and the future of its first response (§3.1)."""

    cell_id: str
    initial_response: asyncio.Future[RuntimeResponse]


class HostProvider:
    """Spawns the host lazily and replaces it after a failure (generation + 1).

    ``command``: argv of the host (default :func:`~codemode.host_client.default_host_command`);
    ``env``/``cwd`` for the child. Several sessions may share one provider: after a crash they all
    move to the same new host. Only one spawn runs at a time.
    """

    def __init__(
        self, command: list[str] | None = None, *, env: dict[str, str] | None = None, cwd: str | None = None
    ) -> None:
        self.command = list(command) if command else default_host_command()
        self.env = env
        self.cwd = cwd
        self.generation = 0
        self._connection: HostConnection | None = None
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
        """The live connection and its generation, spawning a new host if needed."""
        async with self._lock:
            if self._closed:
                raise CodeModeError(SHUTTING_DOWN)
            if self._connection is None or not self._connection.alive:
                if self._connection is not None:
                    await self._connection.close()
                self._connection = await spawn_host(self.command, env=self.env, cwd=self.cwd)
                self.generation += 1
                self._connection.generation = self.generation
                self._session_counter = 0
            return self._connection, self.generation

    def next_session_id(self) -> str:
        """``session-N``, numbered per connection."""
        self._session_counter += 1
        return f"session-{self._session_counter}"

    async def aclose(self) -> None:
        """Stop the host (no orphans); later :meth:`connect` calls fail."""
        async with self._lock:
            self._closed = True
            if self._connection is not None:
                await self._connection.close()


@dataclass
class _Binding:
    connection: HostConnection
    session_id: str
    generation: int


class CodeModeSession:
    """The client's view of one code-mode session; see the module docstring.

    ``registry`` supplies ``enabled_tools`` (``await registry.ready_tools()``), ``dispatcher``
    runs tool calls, ``defaults`` gives yields, budgets and the limits sent on ``session/open``.
    ``on_notify(cell_id, text)`` and ``on_cell_closed(cell_id)`` (exactly once per cell) are called
    on the event loop. ``provider`` lets sessions share a host; ``output_truncation`` is sent as
    ``outputTruncation`` when set; ``stored_values_extension`` forces the extension on/off
    (default: on unless the host is Codex's).
    """

    def __init__(
        self,
        *,
        registry: Any,
        dispatcher: Any,
        defaults: SessionDefaults,
        host_command: list[str] | None = None,
        on_notify: Callable[[str, str], None] | None = None,
        on_cell_closed: Callable[[str], None] | None = None,
        provider: HostProvider | None = None,
        output_truncation: str | None = None,
        stored_values_extension: bool | None = None,
    ) -> None:
        self.registry = registry
        self.dispatcher = dispatcher
        self.defaults = defaults
        self.on_notify = on_notify
        self.on_cell_closed = on_cell_closed
        self._owns_provider = provider is None
        self.provider = provider or HostProvider(host_command)
        self.output_truncation = output_truncation
        self._extension = (
            stored_values_extension if stored_values_extension is not None else not self.provider.is_reference_host
        )
        self._binding: _Binding | None = None
        self._open_lock = asyncio.Lock()
        self._stored: dict[str, Any] = {}
        self._live: dict[str, None] = {}
        self._shutting_down = False
        self._call_counter = 0
        self._failures: dict[int, str] = {}

    # -- properties ----------------------------------------------------------------
    @property
    def live_cells(self) -> list[str]:
        """Public ids of admitted cells not yet closed, oldest first."""
        return list(self._live)

    @property
    def stored_values(self) -> dict[str, Any]:
        """The client's copy of committed ``store()`` values (kept across host rebuilds)."""
        return dict(self._stored)

    @property
    def generation(self) -> int:
        """The generation of the current binding (0 before the host was first used)."""
        return self._binding.generation if self._binding else self.provider.generation

    @property
    def stored_values_kept(self) -> bool:
        """True when values stored with ``store()`` survive a host rebuild (the client seeds the
        new host with its copy); False with Codex's host, which loses them (§4.6)."""
        return self._extension

    def host_failure(self, cell_id: str) -> HostConnectionError | None:
        """The failure of the host connection ``cell_id`` belonged to, or None while that host
        is alive (or the id names no generation this session used).

        Cells of a failed generation are gone; later calls naming them get the stale-generation
        error, so this is how a caller learns why (the reason is Codex's text, §4.6).
        """
        generation = self.generation_of(cell_id)
        binding = self._binding
        if binding is not None and binding.generation == generation and not binding.connection.alive:
            reason = binding.connection.failure or "code-mode host connection closed"
            return HostConnectionError(reason, generation)
        failure = self._failures.get(generation)
        return HostConnectionError(failure, generation) if failure is not None else None

    def _remember_failure(self, binding: _Binding) -> None:
        if not binding.connection.alive:
            self._failures[binding.generation] = binding.connection.failure or "code-mode host connection closed"
            while len(self._failures) > MAX_REMEMBERED_FAILURES:
                del self._failures[min(self._failures)]

    # -- id mapping ----------------------------------------------------------------
    @staticmethod
    def generation_of(public_id: str) -> int:
        """The host generation a public cell id belongs to: N for ``gN:<id>``, else 1 (§3.5)."""
        if public_id.startswith("g") and ":" in public_id:
            head = public_id[1:].split(":", 1)[0]
            if head.isdigit():
                return int(head)
        return 1

    @staticmethod
    def public_cell_id(host_cell_id: str, generation: int) -> str:
        """``host_cell_id`` in generation 1, else ``g<generation>:<host_cell_id>`` (§3.5)."""
        return host_cell_id if generation <= 1 else f"g{generation}:{host_cell_id}"

    def _host_cell_id(self, public_id: str, generation: int) -> str:
        stale = CodeModeError(f"cell {public_id} belongs to a stale code-mode host generation")
        if generation <= 1:
            if public_id.startswith("g") and ":" in public_id:
                raise stale
            return public_id
        prefix = f"g{generation}:"
        if not public_id.startswith(prefix):
            raise stale
        return public_id[len(prefix) :]

    # -- binding -------------------------------------------------------------------
    def _limits(self) -> dict[str, int]:
        limits: dict[str, int] = {}
        if self.defaults.max_yield_time_ms is not None:
            limits["maxYieldTimeMs"] = self.defaults.max_yield_time_ms
        if self.defaults.max_heap_size_bytes is not None:
            limits["maxHeapSizeBytes"] = self.defaults.max_heap_size_bytes
        return limits

    async def _ensure_open(self) -> _Binding:
        if self._shutting_down:
            raise CodeModeError(SHUTTING_DOWN)
        binding = self._binding
        if binding is not None and binding.connection.alive:
            return binding
        async with self._open_lock:
            if self._shutting_down:
                raise CodeModeError(SHUTTING_DOWN)
            binding = self._binding
            if binding is not None and binding.connection.alive:
                return binding
            if binding is not None:
                self._remember_failure(binding)
            self._binding = None
            connection, generation = await self.provider.connect()
            session_id = self.provider.next_session_id()
            await connection.open_session(
                session_id,
                _Delegate(self, generation),
                limits=self._limits(),
                stored_values=dict(self._stored) if self._extension else None,
                output_truncation=self.output_truncation,
            )
            self._binding = _Binding(connection, session_id, generation)
            return self._binding

    # -- operations ------------------------------------------------------------------
    async def execute(
        self,
        source: str,
        *,
        yield_time_ms: int | None = None,
        max_output_tokens: int | None = None,
        tool_call_id: str | None = None,
    ) -> StartedCell:
        """Start a cell; ``source`` is JavaScript without the pragma line.

        ``yield_time_ms`` / ``max_output_tokens`` default to the session defaults.
        Returns when the host admitted the cell. Raises :class:`CodeModeError` (spawn, frame
        limit, host errors such as ``code-mode host has too many active cells``, shutdown).
        """
        binding = await self._ensure_open()
        tools = await self.registry.ready_tools()
        self._call_counter += 1
        request = {
            "tool_call_id": tool_call_id or f"call-{self._call_counter}",
            "enabled_tools": [tool.definition() for tool in tools],
            "source": source,
            "yield_time_ms": self.defaults.yield_time_ms if yield_time_ms is None else yield_time_ms,
            "max_output_tokens": self.defaults.max_output_tokens if max_output_tokens is None else max_output_tokens,
        }
        host_id, initial = await binding.connection.execute(binding.session_id, request)
        public_id = self.public_cell_id(host_id, binding.generation)
        if host_id in binding.connection.live_cells(binding.session_id):
            self._live[public_id] = None
        loop = asyncio.get_running_loop()
        public_future: asyncio.Future[RuntimeResponse] = loop.create_future()

        def relay(done: asyncio.Future[RuntimeResponse]) -> None:
            if public_future.done():
                return
            if done.cancelled():
                public_future.set_exception(CodeModeError("exec runtime ended unexpectedly"))
            elif done.exception() is not None:
                public_future.set_exception(done.exception())  # type: ignore[arg-type]
            else:
                response = done.result()
                response.cell_id = public_id
                public_future.set_result(response)

        initial.add_done_callback(relay)
        return StartedCell(public_id, public_future)

    async def _binding_for(self, cell_id: str) -> tuple[_Binding, str]:
        binding = await self._ensure_open()
        return binding, self._host_cell_id(cell_id, binding.generation)

    def _publish(self, outcome: WaitOutcome, public_id: str) -> WaitOutcome:
        outcome.response.cell_id = public_id
        if not outcome.live and outcome.response.error_text:
            outcome.response.error_text = outcome.response.error_text.replace(
                f"exec cell {self._strip(public_id)} not found", f"exec cell {public_id} not found"
            )
        return outcome

    @staticmethod
    def _strip(public_id: str) -> str:
        return public_id.split(":", 1)[1] if public_id.startswith("g") and ":" in public_id else public_id

    async def wait(self, cell_id: str, *, yield_time_ms: int, max_output_tokens: int | None = None) -> WaitOutcome:
        """Observe ``cell_id`` for up to ``yield_time_ms`` (deadline yield + 1 s + 60 s).

        Returns ``LiveCell``/``MissingCell`` as :class:`WaitOutcome` (public cell ids). Raises
        :class:`CodeModeError` for stale ids, host errors (e.g. ``exec cell 1 already has an
        active observer``), timeouts and connection failures.
        """
        binding, host_id = await self._binding_for(cell_id)
        outcome = await binding.connection.wait(binding.session_id, host_id, yield_time_ms, max_output_tokens)
        return self._publish(outcome, cell_id)

    async def terminate(self, cell_id: str, *, max_output_tokens: int | None = None) -> WaitOutcome:
        """Stop ``cell_id`` (its tool calls are cancelled) and return its undelivered output
        (``Terminated``), or its ``Result`` when it had already completed (§3.4)."""
        binding, host_id = await self._binding_for(cell_id)
        outcome = await binding.connection.terminate(binding.session_id, host_id, max_output_tokens)
        return self._publish(outcome, cell_id)

    async def shutdown(self) -> None:
        """Close the session: ``session/shutdown`` (running cells are stopped and reported
        closed), then stop the host if this session owns it. Idempotent; never spawns a host."""
        if self._shutting_down:
            return
        self._shutting_down = True
        async with self._open_lock:
            binding = self._binding
            self._binding = None
        if binding is not None and binding.connection.alive:
            with contextlib.suppress(CodeModeError):
                await binding.connection.shutdown_session(binding.session_id)
        for cell_id in list(self._live):
            self._cell_closed(cell_id)
        if self._owns_provider:
            await self.provider.aclose()

    # -- delegate callbacks -----------------------------------------------------------
    def _cell_closed(self, public_id: str) -> None:
        if public_id not in self._live:
            return
        del self._live[public_id]
        with contextlib.suppress(Exception):
            self.dispatcher.cell_closed(public_id)
        if self.on_cell_closed is not None:
            try:
                self.on_cell_closed(public_id)
            except Exception:  # noqa: BLE001
                logger.exception("on_cell_closed callback failed")

    def _merge_stored(self, values: dict[str, Any]) -> None:
        self._stored.update(values)


class _Delegate:
    """Routes one remote session's delegate calls into the owning :class:`CodeModeSession`."""

    def __init__(self, session: CodeModeSession, generation: int) -> None:
        self.session = session
        self.generation = generation

    def _public(self, host_cell_id: str) -> str:
        return CodeModeSession.public_cell_id(host_cell_id, self.generation)

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        public_id = self._public(str(invocation.get("cell_id")))
        # The cell may be reported before execute() returned; make sure it is known as live.
        self.session._live.setdefault(public_id, None)
        result = await self.session.dispatcher.invoke(public_id, invocation, cancellation)
        if result.outcome == "completed":
            return result.value
        raise ToolCallError(result.error or "tool call failed")

    async def notify(self, call_id: str, cell_id: str, text: str) -> None:
        callback = self.session.on_notify
        if callback is not None:
            callback(self._public(cell_id), text)

    def cell_closed(self, cell_id: str) -> None:
        public_id = self._public(cell_id)
        self.session._live.setdefault(public_id, None)
        self.session._cell_closed(public_id)

    def stored_values(self, values: dict[str, Any]) -> None:
        self.session._merge_stored(values)
