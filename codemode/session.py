"""``CodeModeSession``: execute / wait / terminate / shutdown of code-mode cells.

One logical session (one kernel session; Codex's ``CodeModeSession``) on top of a remote
session on a host connection (:mod:`codemode.host`):

- the host is spawned on the first call or :meth:`CodeModeSession.open` (:class:`~codemode.host.HostProvider`,
  shareable); each connection names its remote sessions ``session-1``, ``session-2``, …;
- public cell ids are the host's ids in generation 1 and ``g<generation>:<id>`` after a rebuild;
  an earlier generation's ids get ``cell <id> belongs to a stale code-mode host generation``
  (Codex's), an id no generation gave (``nonsense``, ``g1:1``, a later generation's) Codex's
  ``exec cell <id> not found``, without asking a host;
- each cell's events (its answers, notifications, tool calls and close) come in one ordered
  stream, :class:`~codemode.cell_events.CellStream`, which :meth:`CodeModeSession.execute`
  hands to its caller;
- when the connection dies, pending calls fail with its reason (a
  :class:`~codemode.errors.HostConnectionError` naming the generation) and every live cell is
  reported closed once (a :class:`~codemode.cell_events.Closed` in its stream); :meth:`CodeModeSession.host_failure` tells later
  whether a cell was lost that way; the next execute spawns a new host, generation + 1 (a wait
  or terminate then gets the stale-generation error and starts none), and tells its caller
  (``on_idle_loss``) when the old host died with nothing live on it, also when that is
  noticed only under an execute the host had not admitted (the execute is sent again, once);
- a host that announced its exit (``host/exiting``, codemode's extension) is retired: the next
  cell starts on a new host at once (generation + 1, stored values seeded) while the old one
  finishes what is in flight (its answers still arrive; its cells end when it exits);
- a host that stops answering is noticed (:mod:`codemode.host.liveness`), also on demand with
  :meth:`CodeModeSession.probe_host`; :meth:`CodeModeSession.yield_wait` ends a wait early;
- tool calls go to the :class:`~codemode.dispatch.ToolCallRuntime`, whose events join the
  calling cell's stream; after ``shutdown`` every call fails with ``code mode session is shutting down``;
- stored values: the client keeps the committed values (the ``session/storedValues``
  extension) and seeds a rebuilt host's session with them, one value a frame whatever their
  total (:mod:`codemode.wire.stored_values`). Codex's own host rejects unknown fields, so the
  extension is used only with our host (see ``stored_values_extension``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codemode.cell_events import CellEvent, CellStream, Closed, SessionEvent, StoredValuesCommitted, ToolInvoked
from codemode.config import SessionDefaults
from codemode.config.session_defaults import combination_problem
from codemode.errors import CodeModeError, HostConnectionError
from codemode.host import HostConnection, HostProvider
from codemode.host.provider import REFERENCE_HOST_NAME, SHUTTING_DOWN
from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.session_delegate import (
    SessionDelegateAdapter,
    SessionHooks,
    generation_of,
    host_cell_id,
    missing_cell,
    public_cell_id,
    public_outcome,
    stale_cell,
)
from codemode.wire.messages import BINDINGS_CAPABILITY, CellExecutionLimits, OutputTruncation, execute_request

__all__ = [
    "REFERENCE_HOST_NAME",
    "SHUTTING_DOWN",
    "CodeModeSession",
    "HostBinding",
    "HostProvider",
    "StartedCell",
]

logger = logging.getLogger(__name__)

MAX_REMEMBERED_FAILURES = 64
"""How many failed generations :meth:`CodeModeSession.host_failure` remembers (oldest dropped)."""
CLOSED = "code-mode host connection closed"
MAX_UNCLAIMED_STREAMS = 64
"""Streams of closed cells whose execute never returned them (its caller went away), kept
for a late claim; the oldest are dropped."""


@dataclass
class StartedCell:
    """An admitted cell: its public id, the future of its first response, and its ordered
    stream of events (:mod:`codemode.cell_events`), whose :class:`InitialAnswer
    <codemode.cell_events.InitialAnswer>` is the same first response."""

    cell_id: str
    initial_response: asyncio.Future[RuntimeResponse]
    events: CellStream


@dataclass
class HostBinding:
    """Where a :class:`CodeModeSession` runs cells: remote session ``session_id`` on one host
    connection of one generation."""

    connection: HostConnection
    session_id: str
    generation: int

    @property
    def usable(self) -> bool:
        """New cells may start here: the connection is alive and did not announce its exit."""
        return self.connection.alive and self.connection.retiring is None


CLOSING_GRACE_S = 1.0
"""How long :meth:`CodeModeSession.use_host` waits for live cells to close (a cell that just
answered is closed by the host right after) before it refuses."""


class CodeModeSession:
    """The client's view of one code-mode session; see the module docstring.

    ``registry`` supplies ``enabled_tools`` (``await registry.tools_for(source)``), ``dispatcher``
    runs tool calls (the session listens to its events: ``add_listener``), ``defaults`` gives
    yields, budgets and the limits sent on ``session/open``. ``provider`` lets sessions share a host; ``output_truncation`` is sent as
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
        provider: HostProvider | None = None,
        output_truncation: OutputTruncation | None = None,
        stored_values_extension: bool | None = None,
    ) -> None:
        self.registry = registry
        self.dispatcher = dispatcher
        self.defaults = defaults
        self._owns_provider = provider is None
        self.provider = provider or HostProvider(host_command, engine=defaults.engine, profile=defaults.profile)
        self.output_truncation = output_truncation
        self._extension = (
            stored_values_extension if stored_values_extension is not None else not self.provider.is_reference_host
        )
        self._binding: HostBinding | None = None
        self._retired: dict[int, HostBinding] = {}
        """Bindings whose host announced its exit, by generation, until that host is gone."""
        self._open_lock = asyncio.Lock()
        self._stored: dict[str, Any] = {}
        self._live: dict[str, None] = {}
        self._all_closed: asyncio.Event | None = None
        self._shutting_down = False
        self._call_counter = 0
        self._failures: dict[int, str] = {}
        self._streams: dict[str, CellStream] = {}
        """The streams of the live cells."""
        self._closed_streams: weakref.WeakValueDictionary[str, CellStream] = weakref.WeakValueDictionary()
        """The streams of closed cells while their reader holds them (tool calls cleaning up
        still report to them)."""
        self._unclaimed: OrderedDict[str, CellStream] = OrderedDict()
        self._listeners: list[Callable[[CellEvent], None]] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._hooks = SessionHooks(
            invoke=lambda cell_id, invocation, token: self.dispatcher.invoke(cell_id, invocation, token),
            report=self._report,
        )
        add_listener = getattr(dispatcher, "add_listener", None)
        if add_listener is not None:
            add_listener(self._tool_call_event)

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
        new host with its copy); False with Codex's host, which loses them."""
        return self._extension

    def host_failure(self, cell_id: str) -> HostConnectionError | None:
        """The failure of the host connection ``cell_id`` belonged to, or None while that host
        is alive (or the id names no generation this session used).

        Cells of a failed generation are gone; later calls naming them get the stale-generation
        error, so this is how a caller learns why (the reason is Codex's text).
        """
        generation = self.generation_of(cell_id)
        self._forget_gone_hosts()
        binding = self._binding
        if binding is not None and binding.generation == generation and not binding.connection.alive:
            return HostConnectionError(binding.connection.failure or CLOSED, generation)
        failure = self._failures.get(generation) if generation is not None else None
        return HostConnectionError(failure, generation) if failure is not None else None

    def host_replaced(self, cell_id: str) -> bool:
        """True when the host ``cell_id`` ran on is no longer where new cells start (it failed,
        announced its exit or was replaced by ``use_host``): the next cell runs on a new host."""
        binding = self._binding
        return binding is None or binding.generation != self.generation_of(cell_id) or not binding.usable

    def _remember_failure(self, binding: HostBinding) -> None:
        self._failures[binding.generation] = binding.connection.failure or CLOSED
        while len(self._failures) > MAX_REMEMBERED_FAILURES:
            del self._failures[min(self._failures)]

    def _forget_gone_hosts(self) -> None:
        for generation, binding in list(self._retired.items()):
            if not binding.connection.alive:
                del self._retired[generation]
                self._remember_failure(binding)

    # -- id mapping ----------------------------------------------------------------
    generation_of = staticmethod(generation_of)
    public_cell_id = staticmethod(public_cell_id)
    _host_cell_id = staticmethod(host_cell_id)

    # -- binding -------------------------------------------------------------------
    def _limits(self) -> CellExecutionLimits:
        limits: CellExecutionLimits = {}
        if self.defaults.max_yield_time_ms is not None:
            limits["maxYieldTimeMs"] = self.defaults.max_yield_time_ms
        if self.defaults.max_heap_size_bytes is not None:
            limits["maxHeapSizeBytes"] = self.defaults.max_heap_size_bytes
        return limits

    async def _ensure_open(self, on_idle_loss: Callable[[HostConnectionError], None] | None = None) -> HostBinding:
        """The binding new cells go to, opening a remote session on a (new) host when the
        current one is gone or retiring. ``on_idle_loss`` is called, before the new host is
        started, with the failure of a replaced host that died while nothing ran on it."""
        if self._shutting_down:
            raise CodeModeError(SHUTTING_DOWN)
        binding = self._binding
        if binding is not None and binding.usable:
            await binding.connection.notice_exit()
        if binding is not None and binding.usable:
            return binding
        async with self._open_lock:
            if self._shutting_down:
                raise CodeModeError(SHUTTING_DOWN)
            binding = self._binding
            if binding is not None and binding.usable:
                return binding
            if binding is not None:
                if binding.connection.alive:
                    self._retired[binding.generation] = binding
                else:
                    self._remember_failure(binding)
                    if on_idle_loss is not None and binding.connection.failed_idle and not binding.connection.retiring:
                        on_idle_loss(HostConnectionError(binding.connection.failure or CLOSED, binding.generation))
            self._forget_gone_hosts()
            self._binding = None
            connection, generation = await self.provider.connect()
            session_id = self.provider.next_session_id()
            await connection.open_session(
                session_id,
                SessionDelegateAdapter(self._hooks, generation),
                limits=self._limits(),
                stored_values=dict(self._stored) if self._extension else None,
                output_truncation=self.output_truncation,
                cell_id_prefix=(public_cell_id("", generation) or None) if self._extension else None,
            )
            self._binding = HostBinding(connection, session_id, generation)
            return self._binding

    async def open(self) -> None:
        """Start the host and open the session now, not at the first :meth:`execute` (the
        kernel does, as it starts). Raises :class:`CodeModeError` as :meth:`execute` does."""
        await self._ensure_open()

    def _live_binding(self, generation: int) -> HostBinding | None:
        """The binding of ``generation`` while its host is alive (current or retiring)."""
        for binding in (self._binding, self._retired.get(generation)):
            if binding is not None and binding.generation == generation and binding.connection.alive:
                return binding
        return None

    async def _binding_for(self, cell_id: str) -> tuple[HostBinding, str] | None:
        """The binding ``cell_id`` lives on and its host id; None when the id names no cell of
        any generation that existed (malformed, or of a later generation than the current one).
        Raises :func:`stale_cell` for an id of an earlier generation whose host is gone, or of
        the current one when its host died (asking starts no new host)."""
        if self._shutting_down:
            raise CodeModeError(SHUTTING_DOWN)
        generation = self.generation_of(cell_id)
        if generation is None or generation > max(self.generation, 1):
            return None
        binding = self._live_binding(generation)
        if binding is None and (generation < self.generation or self._binding is not None):
            raise stale_cell(cell_id)  # no cell is on a dead host: asking starts no new one
        binding = binding or await self._ensure_open()
        if binding.generation != generation:
            raise stale_cell(cell_id)
        return binding, self._host_cell_id(cell_id)

    # -- operations ------------------------------------------------------------------
    async def execute(
        self,
        source: str,
        *,
        yield_time_ms: int | None = None,
        max_output_tokens: int | None = None,
        tool_call_id: str | None = None,
        on_idle_loss: Callable[[HostConnectionError], None] | None = None,
    ) -> StartedCell:
        """Start a cell; ``source`` is JavaScript without the pragma line.

        ``yield_time_ms`` / ``max_output_tokens`` default to the session defaults.
        ``on_idle_loss(failure)`` is called before anything is sent when the cell goes to a new
        host because the last one died while no cell was live and no execute was in flight (no
        caller was told; a host whose process has exited counts as dead, however recently), and
        also when the connection fails with this execute sent but not yet admitted (then the
        request is sent once more, to the new host).
        Returns when the host admitted the cell. Raises :class:`CodeModeError` (spawn, frame
        limit, host errors such as ``code-mode host has too many active cells``, shutdown).
        """
        binding = await self._ensure_open(on_idle_loss)
        tools = await self.registry.tools_for(source)
        if not binding.usable:  # the host announced its exit or died meanwhile
            binding = await self._ensure_open(on_idle_loss)
        self._call_counter += 1
        request = execute_request(
            tool_call_id or f"call-{self._call_counter}",
            [tool.definition() for tool in tools],
            source,
            self.defaults.yield_time_ms if yield_time_ms is None else yield_time_ms,
            self.defaults.max_output_tokens if max_output_tokens is None else max_output_tokens,
        )
        try:
            host_id, initial = await binding.connection.execute(binding.session_id, request)
        except HostConnectionError:
            # The connection failed before the host admitted the cell (no ``execution/started``
            # read), e.g. a host killed just before the execute went out, its death not yet
            # noticed: the cell did not start. When no started cell was lost with that host,
            # it died as if between cells: the cell goes to a new host, once, as it would have.
            if not binding.connection.failed_idle or binding.connection.retiring:
                raise
            binding = await self._ensure_open(on_idle_loss)
            host_id, initial = await binding.connection.execute(binding.session_id, request)
        public_id = self.public_cell_id(host_id, binding.generation)
        if host_id in binding.connection.live_cells(binding.session_id):
            self._live[public_id] = None
        stream = self._claim(public_id)
        public_future: asyncio.Future[RuntimeResponse] = asyncio.get_running_loop().create_future()

        def relay(done: asyncio.Future[RuntimeResponse]) -> None:
            if public_future.done():
                return
            if done.cancelled():
                public_future.set_exception(CodeModeError("exec runtime ended unexpectedly"))
            elif (exc := done.exception()) is not None:
                public_future.set_exception(exc)
            else:
                response = done.result()
                response.cell_id = public_id
                public_future.set_result(response)

        initial.add_done_callback(relay)
        return StartedCell(public_id, public_future, stream)

    async def wait(self, cell_id: str, *, yield_time_ms: int, max_output_tokens: int | None = None) -> WaitOutcome:
        """Observe ``cell_id`` for up to ``yield_time_ms`` (deadline yield + 1 s + 60 s).

        Returns ``LiveCell``/``MissingCell`` as :class:`WaitOutcome` (public cell ids). Raises
        :class:`CodeModeError` for stale ids, host errors (e.g. ``exec cell 1 already has an
        active observer``), timeouts and connection failures.
        """
        target = await self._binding_for(cell_id)
        if target is None:
            return missing_cell(cell_id)
        binding, host_id = target
        outcome = await binding.connection.wait(binding.session_id, host_id, yield_time_ms, max_output_tokens)
        return public_outcome(outcome, cell_id)

    def yield_wait(self, cell_id: str) -> bool:
        """End the wait in flight on ``cell_id`` now: sends ``operation/yield`` for it, and the
        host answers that wait at once with ``LiveCell`` + ``Yielded`` carrying the output since
        the last observation (Codex's 0.171 host and ours both do, within milliseconds). Returns
        False, sending nothing, when no wait on that cell is in flight (also for a stale id or
        a dead host)."""
        generation = self.generation_of(cell_id)
        binding = self._live_binding(generation) if generation is not None else None
        if binding is None:
            return False
        host_id = self._host_cell_id(cell_id)
        return binding.connection.yield_wait(binding.session_id, host_id)

    async def terminate(self, cell_id: str, *, max_output_tokens: int | None = None) -> WaitOutcome:
        """Stop ``cell_id`` (its tool calls are cancelled) and return its undelivered output
        (``Terminated``), or its ``Result`` when it had already completed."""
        target = await self._binding_for(cell_id)
        if target is None:
            return missing_cell(cell_id)
        binding, host_id = target
        outcome = await binding.connection.terminate(binding.session_id, host_id, max_output_tokens)
        return public_outcome(outcome, cell_id)

    async def bindings(self, path: list[str], timeout_ms: int) -> list[tuple[str, str]] | None:
        """The notebook realm's global bindings (``path`` empty) or the members of the value at
        ``path``, as ``(name, kind)`` pairs (:mod:`codemode.wire.session_bindings`); None when the
        realm was busy for ``timeout_ms``, when no host runs yet, or when the host does not list
        bindings (strict profile, Codex's host). Raises :class:`CodeModeError` on host errors."""
        binding = self._binding
        if binding is None or not binding.usable or BINDINGS_CAPABILITY not in binding.connection.capabilities:
            return None
        return await binding.connection.bindings(binding.session_id, path, timeout_ms)

    async def use_host(self, engine: str, profile: str) -> None:
        """Run the next cells on a host started with ``--engine engine`` (``"quickjs"`` or
        ``"v8"``) and ``--profile profile`` (``"strict"`` or ``"notebook"``): the host is
        replaced, once, by one seeded with the stored values, so ``load()`` goes on working (a
        notebook profile's bindings live in the replaced host and are gone). Public cell ids of
        the new host carry its generation (``g2:1``). Nothing happens when both are the current
        ones.

        Raises :class:`~codemode.errors.CodeModeError`, and changes nothing, when the two cannot
        run together (``combination_problem``), while cells are live (``cannot change the
        <settings> while cells run: <ids>``, the settings being those that change: ``engine``,
        ``profile`` or ``engine and profile``; the cells would be lost), when the values would
        not survive (Codex's host, which has only V8 and strict cells anyway) or when this
        session does not own its host provider.
        """
        changed = [
            name for name, value in (("engine", engine), ("profile", profile)) if getattr(self.defaults, name) != value
        ]
        if not changed:
            return
        settings = " and ".join(changed)
        problem = combination_problem(engine, profile)
        if problem is not None:
            raise CodeModeError(problem)
        if self._live:
            # A cell that just answered is closed by the host a moment later.
            self._all_closed = asyncio.Event()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(CLOSING_GRACE_S):
                    await self._all_closed.wait()
        if self._live:
            raise CodeModeError(f"cannot change the {settings} while cells run: {', '.join(self._live)}")
        if self.provider.is_reference_host or not self._owns_provider:
            raise CodeModeError(
                f"the {settings} can be chosen only for codemode's own host, which this session does not run"
            )
        async with self._open_lock:
            binding, self._binding = self._binding, None
            self.defaults.engine, self.defaults.profile = engine, profile
            await self.provider.use_host(engine, profile)
            if binding is not None:
                self._remember_failure(binding)

    async def probe_host(self, timeout_s: float = 1.0) -> bool:
        """Check that the hosts this session uses still answer, within ``timeout_s`` seconds.

        Returns True when every live host (the current one and one that announced its exit)
        answered a probe; False when there is none alive or one did not answer, in which case
        that connection has failed (``code-mode host stopped responding: …``): its process
        group is killed, every request pending on it (a terminate, a wait, an initial
        response) fails at once with :class:`~codemode.errors.HostConnectionError`, its cells
        are reported closed, and the next call starts a new host with the stored values. Never
        spawns a host. Meant for a caller that must end a request within a bound, e.g. an
        interrupt whose terminate is not answered quickly.
        """
        bindings = [b for b in (self._binding, *self._retired.values()) if b is not None and b.connection.alive]
        if not bindings:
            return False
        answers = await asyncio.gather(*(b.connection.probe(timeout_s) for b in bindings))
        return all(answers)

    async def shutdown(self) -> None:
        """Close the session: ``session/shutdown`` (running cells are stopped and reported
        closed), then stop the host if this session owns it. Idempotent; never spawns a host."""
        if self._shutting_down:
            return
        self._shutting_down = True
        async with self._open_lock:
            bindings = [b for b in (self._binding, *self._retired.values()) if b is not None]
            self._binding = None
            self._retired.clear()
        for binding in bindings:
            if binding.connection.alive:
                with contextlib.suppress(CodeModeError):
                    await binding.connection.shutdown_session(binding.session_id)
        for cell_id in list(self._live):
            self._report(Closed(cell_id))
        if self._owns_provider:
            await self.provider.aclose()

    # -- the cells' streams -------------------------------------------------------------
    def add_listener(self, listener: Callable[[CellEvent], None]) -> None:
        """``listener(event)`` gets every cell event as it enters its cell's stream, on the
        event loop (for traces and tests; it must return at once, and may not put events)."""
        self._listeners.append(listener)

    async def caught_up(self, cell_id: str) -> None:
        """Return once the reader of ``cell_id``'s stream has taken every event put before
        (:meth:`CellStream.caught_up <codemode.cell_events.CellStream.caught_up>`); at once for
        a cell without a stream or whose stream was never handed to a reader."""
        stream = self._streams.get(cell_id) or self._closed_streams.get(cell_id)
        if stream is not None:
            await stream.caught_up()

    def _claim(self, public_id: str) -> CellStream:
        """The stream of a cell just admitted, for the execute's caller (events the host sent
        before ``execute`` returned are in it)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        stream = self._streams.get(public_id) or self._unclaimed.pop(public_id, None)
        if stream is None:
            stream = self._streams[public_id] = CellStream(public_id)
        stream.subscribed = True
        return stream

    def _put(self, event: CellEvent, create: bool = True) -> None:
        """Put ``event`` into its cell's stream; ``create``: make the stream of a cell not seen
        yet (a host event of a cell admitted before its execute returned)."""
        cell_id = event.cell_id
        stream = self._streams.get(cell_id)
        if stream is None:
            stream = self._closed_streams.get(cell_id)
        if stream is None:
            if not create:
                return
            stream = self._streams[cell_id] = CellStream(cell_id)
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception:  # noqa: BLE001
                logger.exception("code-mode event listener failed")
        stream.put(event)
        if isinstance(event, Closed) and self._streams.get(cell_id) is stream:
            del self._streams[cell_id]
            self._closed_streams[cell_id] = stream
            if not stream.subscribed:
                self._unclaimed[cell_id] = stream
                while len(self._unclaimed) > MAX_UNCLAIMED_STREAMS:
                    self._unclaimed.popitem(last=False)

    def _report(self, event: SessionEvent) -> None:
        """What a remote session reported (public cell ids), as the host's frame was read."""
        if isinstance(event, StoredValuesCommitted):
            self._stored.update(event.values)
            return
        if isinstance(event, ToolInvoked):
            self._live.setdefault(event.cell_id, None)  # may come before execute() returned
        if isinstance(event, Closed):
            self._live.pop(event.cell_id, None)
            if not self._live and self._all_closed is not None:
                self._all_closed.set()
            with contextlib.suppress(Exception):
                self.dispatcher.cell_closed(event.cell_id)
        self._put(event)

    def _tool_call_event(self, event: Any) -> None:
        """A dispatcher event (``ToolCallEvent``): into its cell's stream when it happens, on
        the event loop (a tool running in a thread reports from there)."""
        loop = self._loop
        if loop is None or threading.get_ident() == self._loop_thread:
            self._put(event, create=False)
        elif not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._put, event, False)
