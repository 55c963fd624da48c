"""Spawning, talking to and supervising a code-mode runtime host.

The host speaks the 0.171 protocol of ``oracle/README.md`` ("The protocol") over framed JSON on
its stdin/stdout (:mod:`codemode.protocol`). This module owns one connection at a time:

- :func:`spawn_host` starts the host in its own process session (so a SIGINT aimed at the
  kernel's process group does not reach it), logs its stderr line by line, and performs the
  handshake (``connection/hello`` -> ``connection/ready``);
- :class:`HostConnection` allocates request ids ``1, 2, 3…``, matches responses, routes
  ``execute/initialResponse``, serves ``delegate/request`` (tool calls and notifications) through
  each session's :class:`SessionDelegate`, honours ``delegate/cancel`` (the call's token is
  cancelled and no answer is ever sent), reports ``cell/closed`` once per cell, and keeps the
  ``session/storedValues`` extension;
- failure detection (``spec/codex-code-mode.md`` §4.6): host exit, EOF, read or write error, a
  response naming the wrong cell, or a wait/terminate past its deadline mark the connection
  dead once: every pending request fails with the reason, every live cell is reported closed
  exactly once, every delegate call is revoked, and the host process group is killed;
- abandonment (§4.6): a caller that goes away is cleaned up after on the wire. An open whose
  caller left is followed by ``session/shutdown`` once the host committed it; an execute whose
  caller left gets ``operation/cancel`` and, once admitted (even if the answer was already
  delivered but not yet taken), ``session/terminate``; a cancelled wait is retired with
  ``operation/cancel`` and the next wait on that cell is held back until the host answered it
  (one observer per cell); a shutdown runs to its end even when its caller leaves;
- delegate requests (§4.5): one that names a cell not yet admitted while an execute of that
  session is pending is deferred and forwarded, in order, once the cell is admitted (at most
  :data:`MAX_DEFERRED_DELEGATE_MESSAGES`, past which the connection fails); ``delegate/cancel``
  revokes a call at once (it stops counting against :data:`MAX_PENDING_DELEGATE_CALLS`), and
  the revoked handler may finish in the background without ever being answered.

Error texts are Codex's (§4.2, §4.5, §4.6).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from .cancellation import CancellationToken
from .errors import CodeModeError, HostConnectionError
from .protocol import CAPABILITIES, FrameError, FrameTooLarge, encode_frame, read_frame
from .responses import RuntimeResponse, WaitOutcome

logger = logging.getLogger(__name__)

HOST_STARTUP_TIMEOUT_S = 30.0
"""Handshake deadline (``LOCAL_HOST_STARTUP_TIMEOUT`` of newer Codex clients)."""
WAIT_TRANSPORT_TIMEOUT_S = 60.0
"""``DEFAULT_HOST_WAIT_TRANSPORT_TIMEOUT``: added to a wait's yield time + 1 s, and the whole
deadline of a terminate (§4.6)."""
SHUTDOWN_TIMEOUT_S = 5.0
"""How long a closing connection waits for the host to exit before killing its group."""
MAX_PENDING_DELEGATE_CALLS = 1024
"""Delegate calls the client serves at once; the next one is answered with Codex's error
``code-mode host exceeded the limit of 1024 pending delegate calls`` (§4.5)."""
MAX_DEFERRED_DELEGATE_MESSAGES = 1024
"""Delegate requests held for cells not yet admitted; past it the connection fails with
``code-mode host exceeded deferred cross-socket message limit`` (§4.5)."""
MAX_RECENT_DELEGATE_IDS = 4096
"""Finished delegate ids remembered to detect reuse (a reused id is fatal, §4.5)."""
SESSION_RESOURCE_LIMITS_CAPABILITY = "session-cell-execution-resource-limits"
MAX_SPAWN_PATH_BYTES = 512


def default_host_command() -> list[str]:
    """``$CODEMODE_HOST_BIN --listen stdio`` when set, else our own host via this interpreter."""
    binary = os.environ.get("CODEMODE_HOST_BIN")
    if binary:
        return [binary, "--listen", "stdio"]
    return [sys.executable, "-P", "-m", "codemode.runtime", "--listen", "stdio"]


def wait_deadline_s(yield_time_ms: int, transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S) -> float:
    """Seconds a ``session/wait`` may take before the connection is declared dead:
    ``yield_time_ms`` + 1 s + the transport allowance (60 s by default), §4.6."""
    return yield_time_ms / 1000 + 1 + transport_timeout_s


def terminate_deadline_s(transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S) -> float:
    """Seconds a ``session/terminate`` may take: the transport allowance alone (60 s), §4.6."""
    return transport_timeout_s


def _short_path(path: str) -> str:
    data = path.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_SPAWN_PATH_BYTES:
        return path
    tail = data[-(MAX_SPAWN_PATH_BYTES - 3) :]
    return "..." + tail.decode("utf-8", "ignore")


class SessionDelegate(Protocol):
    """What a connection calls back into for one remote session (Codex's
    ``CodeModeSessionDelegate``). Cell ids here are the host's ids."""

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        """Run a tool call; return its JSON result or raise ``ToolCallError`` to reject."""

    async def notify(self, call_id: str, cell_id: str, text: str) -> None:
        """Deliver a ``notify()`` text; raising makes the answer an error."""

    def cell_closed(self, cell_id: str) -> None:
        """The cell is closed; called exactly once per admitted cell."""

    def stored_values(self, values: dict[str, Any]) -> None:
        """A cell committed these store writes (extension message)."""


@dataclass
class _Pending:
    kind: str
    future: asyncio.Future[Any]
    session_id: str
    cell_id: str | None = None
    abandoned: bool = False
    sent: bool = False
    settled: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the host answered (or the connection died): releases held-back waits."""


@dataclass
class _Session:
    session_id: str
    delegate: SessionDelegate
    live_cells: set[str] = field(default_factory=set)
    closing: bool = False


@dataclass
class _Delegate:
    token: CancellationToken
    session_id: str = ""
    cell_id: str = ""
    task: asyncio.Task[None] | None = None
    revoked: bool = False


@dataclass
class _Deferred:
    delegate_id: int
    session_id: str
    cell_id: str
    request: dict[str, Any]


class HostConnection:
    """One handshaken connection to a host.

    ``reader``/``writer`` are the host's stdout/stdin streams (any object with ``write(bytes)``,
    ``async drain()`` and ``close()`` will do for ``writer``); ``process`` (optional) is the
    child, watched for exit and killed (as a process group) on failure or close.
    ``capabilities`` are those granted in ``connection/ready``. ``wait_transport_timeout_s``
    is the transport allowance of the wait and terminate deadlines (60 s, §4.6; tests shorten
    it instead of pausing time as the Rust tests do).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: Any,
        *,
        process: asyncio.subprocess.Process | None = None,
        capabilities: list[str] | None = None,
        wait_transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self.process = process
        self.capabilities = list(capabilities or [])
        self.wait_transport_timeout_s = wait_transport_timeout_s
        self._next_id = 0
        self._pending: dict[int, _Pending] = {}
        self._initial: dict[int, tuple[asyncio.Future[RuntimeResponse], str, str]] = {}
        self._sessions: dict[str, _Session] = {}
        self._delegates: dict[int, _Delegate] = {}
        self._revoked_tasks: set[asyncio.Task[None]] = set()
        self._deferred: deque[_Deferred] = deque()
        self._recent_delegate_ids: deque[int] = deque()
        self._recent_delegate_set: set[int] = set()
        self._retiring: dict[tuple[str, str], _Pending] = {}
        self._shutdowns: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._write_lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[Any]] = []
        self.reader_task: asyncio.Task[None] | None = None
        """The task reading host messages (the connection's driver); if it ends while the
        connection is alive, the connection fails (``code-mode connection reader exited
        unexpectedly``)."""
        self.generation: int | None = None
        """The host generation, set by :class:`~codemode.session.HostProvider` after the spawn;
        carried by the :class:`~codemode.errors.HostConnectionError` of a failure."""
        self.alive = True
        self._closing = False
        self.failure: str | None = None
        self.closed = asyncio.Event()

    # -- lifecycle ---------------------------------------------------------------
    def start(self) -> None:
        """Start the reader (and the process watcher). Call once after the handshake."""
        self.reader_task = asyncio.ensure_future(self._read_loop())
        self.reader_task.add_done_callback(self._reader_done)
        self._tasks.append(self.reader_task)
        if self.process is not None:
            self._tasks.append(asyncio.ensure_future(self._watch_process()))

    def _reader_done(self, _task: asyncio.Task[None]) -> None:
        if self.alive and not self._closing:
            self.fail("code-mode connection reader exited unexpectedly")

    def _spawn(self, coro: Awaitable[Any]) -> None:
        """Run ``coro`` in the background, keeping a reference until it ends."""
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _watch_process(self) -> None:
        assert self.process is not None
        status = await self.process.wait()
        self.fail(f"code-mode host exited with status {_describe_status(status)}")

    async def _read_loop(self) -> None:
        try:
            while self.alive:
                try:
                    message = await read_frame(self._reader)
                except FrameError as exc:
                    self.fail(f"failed to read code-mode host message: {exc}")
                    return
                except (OSError, ValueError) as exc:
                    self.fail(f"failed to read code-mode host message: {exc}")
                    return
                if message is None:
                    self.fail("code-mode host closed its stdout")
                    return
                if not self.alive:
                    return
                try:
                    self._handle(message)
                except _ProtocolViolation as exc:
                    self.fail(str(exc))
                    return
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - any bug ends the connection, never silently
            logger.exception("code-mode connection reader crashed")
            self.fail(f"code-mode connection reader exited unexpectedly: {exc}")

    def fail(self, reason: str) -> None:
        """Mark the connection dead (once): fail pending calls with ``reason`` (as a
        :class:`~codemode.errors.HostConnectionError`; later calls get the same), report every
        live cell closed once, revoke delegate calls (their tokens are cancelled; they are never
        answered, and nobody waits for them to finish), kill the host's process group."""
        if not self.alive:
            return
        self.alive = False
        self.failure = reason
        if self._closing:
            logger.debug("code-mode host connection closed: %s", reason)
        else:
            logger.warning("code-mode host connection failed: %s", reason)
        for pending in self._pending.values():
            if not pending.future.done():
                pending.future.set_exception(self._failure_error())
                pending.future.exception()  # mark retrieved
            pending.settled.set()
        self._pending.clear()
        self._retiring.clear()
        for future, _, _ in self._initial.values():
            if not future.done():
                future.set_exception(self._failure_error())
                future.exception()
        self._initial.clear()
        self._deferred.clear()
        for entry in self._delegates.values():
            self._revoke(entry)
        self._delegates.clear()
        sessions = list(self._sessions.values())
        self._sessions.clear()
        for session in sessions:
            for cell_id in sorted(session.live_cells, key=_cell_sort_key):
                self._report_closed(session, cell_id)
            session.live_cells.clear()
        self._kill()
        self.closed.set()

    def _kill(self) -> None:
        process = self.process
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
        with contextlib.suppress(Exception):
            self._writer.close()

    async def close(self) -> None:
        """Close stdin, give the host :data:`SHUTDOWN_TIMEOUT_S` to exit, then kill its group;
        the connection is failed with ``code-mode host connection closed``."""
        process = self.process
        self._closing = True
        with contextlib.suppress(Exception):
            self._writer.close()
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), SHUTDOWN_TIMEOUT_S)
            except TimeoutError:
                logger.warning("code-mode host did not exit within %.0f s; killing it", SHUTDOWN_TIMEOUT_S)
        self.fail("code-mode host connection closed")
        if process is not None:
            with contextlib.suppress(Exception):
                await process.wait()
        leftovers = [*self._tasks, *self._background, *self._revoked_tasks]
        for task in leftovers:
            task.cancel()
        for task in leftovers:
            with contextlib.suppress(BaseException):
                await task

    # -- sending ---------------------------------------------------------------
    def _failure_error(self) -> HostConnectionError:
        """The error for calls on (or pending on) a dead connection: its failure reason (Codex's
        text) and this connection's :attr:`generation`."""
        return HostConnectionError(self.failure or "code-mode host connection closed", self.generation)

    def _check_alive(self) -> None:
        if not self.alive:
            raise self._failure_error()

    async def _send(self, message: dict[str, Any]) -> None:
        frame = encode_frame(message)
        await self._send_frame(frame)

    async def _send_frame(self, frame: bytes, pending: _Pending | None = None) -> None:
        async with self._write_lock:
            self._check_alive()
            try:
                self._writer.write(frame)
                if pending is not None:
                    pending.sent = True
                await self._writer.drain()
            except (OSError, RuntimeError) as exc:
                self.fail(f"failed to write code-mode host message: {exc}")
                raise self._failure_error() from None

    def _send_soon(self, message: dict[str, Any]) -> None:
        async def send() -> None:
            with contextlib.suppress(CodeModeError):
                await self._send(message)

        self._spawn(send())

    def _allocate_id(self) -> int:
        self._next_id += 1
        if self._next_id >= 2**63:
            raise CodeModeError("code-mode host request ID space exhausted")
        return self._next_id

    async def _request(
        self,
        kind: str,
        session_id: str,
        body: dict[str, Any],
        *,
        cell_id: str | None = None,
        timeout_s: float | None = None,
        too_large: str | None = None,
    ) -> Any:
        """Send one ``operation/request`` and await its answer.

        ``timeout_s`` bounds everything from the call on (holding back, queueing behind other
        writes, the host's answer); when it passes the connection fails with
        ``code-mode host timed out waiting for <kind> response`` (§4.6).
        """
        self._check_alive()
        if timeout_s is None:
            return await self._request_now(kind, session_id, body, cell_id, too_large)
        try:
            async with asyncio.timeout(timeout_s):
                return await self._request_now(kind, session_id, body, cell_id, too_large)
        except TimeoutError:
            reason = f"code-mode host timed out waiting for {kind} response"
            self.fail(reason)
            raise self._failure_error() from None

    async def _request_now(
        self, kind: str, session_id: str, body: dict[str, Any], cell_id: str | None, too_large: str | None
    ) -> Any:
        if kind == "wait" and cell_id is not None:
            # One observer per cell: a wait waits until a cancelled wait on the cell is answered.
            while (retiring := self._retiring.get((session_id, cell_id))) is not None:
                await retiring.settled.wait()
            self._check_alive()
        request_id = self._allocate_id()
        try:
            frame = encode_frame({"type": "operation/request", "id": request_id, "request": body})
        except FrameTooLarge as exc:
            raise CodeModeError(f"{too_large or 'code-mode request'} exceeds the IPC frame limit: {exc}") from None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        pending = _Pending(kind, future, session_id, cell_id)
        self._pending[request_id] = pending
        try:
            await self._send_frame(frame, pending)
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            self._abandon(request_id, pending)
            raise

    def _abandon(self, request_id: int, pending: _Pending) -> None:
        """The caller of ``request_id`` went away: clean up on the wire (§4.6)."""
        pending.abandoned = True
        future = pending.future
        if future.done() and not future.cancelled() and future.exception() is not None:
            return  # answered with an error: nothing left to clean up
        if not pending.sent:
            self._pending.pop(request_id, None)
            pending.settled.set()
            return
        if not self.alive:
            return
        if pending.kind == "execute":
            if future.done():
                # Delivered but never taken by the caller: the cell is ours to stop.
                cell_id, initial = future.result()
                initial.add_done_callback(_consume_outcome)
                if request_id in self._initial:
                    self._send_soon({"type": "operation/cancel", "id": request_id})
                self._spawn(self._terminate_abandoned(pending.session_id, cell_id))
            else:
                # _on_started terminates the cell if the host admits it after all.
                self._send_soon({"type": "operation/cancel", "id": request_id})
        elif pending.kind == "wait" and not future.done():
            self._send_soon({"type": "operation/cancel", "id": request_id})
            if pending.cell_id is not None:
                self._retiring[(pending.session_id, pending.cell_id)] = pending

    def _settle(self, pending: _Pending) -> None:
        pending.settled.set()
        if pending.cell_id is not None and self._retiring.get((pending.session_id, pending.cell_id)) is pending:
            del self._retiring[(pending.session_id, pending.cell_id)]

    def _open_session_or_fail(self, session_id: str) -> _Session:
        self._check_alive()
        session = self._sessions.get(session_id)
        if session is None or session.closing:
            raise CodeModeError(f"unknown code-mode session {session_id}")
        return session

    # -- operations --------------------------------------------------------------
    async def open_session(
        self,
        session_id: str,
        delegate: SessionDelegate,
        *,
        limits: dict[str, int] | None = None,
        stored_values: dict[str, Any] | None = None,
        output_truncation: str | None = None,
    ) -> None:
        """``session/open``. ``limits``: ``{"maxYieldTimeMs", "maxHeapSizeBytes"}`` (omitted
        when ``None``/empty); ``stored_values`` is the extension field (only for our host).

        If the caller is cancelled while the open is in flight and the host then commits the
        session, the client shuts it down again (``session/shutdown``), §4.6.
        """
        self._check_alive()
        if limits and SESSION_RESOURCE_LIMITS_CAPABILITY not in self.capabilities:
            raise CodeModeError(
                "code-mode host does not support session resource limits: missing "
                f"`{SESSION_RESOURCE_LIMITS_CAPABILITY}` capability"
            )
        if session_id in self._sessions:
            raise CodeModeError(f"code-mode session {session_id} is already open")
        body: dict[str, Any] = {"method": "session/open", "sessionId": session_id}
        if limits:
            body["cellExecutionLimits"] = limits
        if output_truncation is not None:
            body["outputTruncation"] = output_truncation
        if stored_values is not None:
            body["storedValues"] = stored_values
        self._sessions[session_id] = _Session(session_id, delegate)
        task = asyncio.ensure_future(self._open(session_id, body))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(lambda done: self._after_abandoned_open(session_id, done))
            raise

    async def _open(self, session_id: str, body: dict[str, Any]) -> None:
        try:
            value = await self._request("open", session_id, body)
        except BaseException:
            if not (session := self._sessions.get(session_id)) or not session.live_cells:
                self._sessions.pop(session_id, None)
            raise
        if not isinstance(value, dict) or value.get("type") != "session/ready":
            self.fail(f"code-mode host returned an invalid open response: {value!r}")
            raise self._failure_error()

    def _after_abandoned_open(self, session_id: str, task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        if self.alive and session_id in self._sessions:
            logger.debug("caller of session/open %s went away; shutting the session down", session_id)
            self._spawn(self.shutdown_session(session_id))

    async def execute(self, session_id: str, request: dict[str, Any]) -> tuple[str, asyncio.Future[RuntimeResponse]]:
        """``session/execute``: returns the host's cell id and a future of the initial
        response (it fails with the connection's failure reason if the host goes away).

        Raises :class:`CodeModeError`: ``unknown code-mode session <id>`` for a session that is
        not open (or is closing), the frame-limit text for an oversized request, host errors.
        A caller cancelled after the host admitted the cell leaves a cell the client stops.
        """
        self._open_session_or_fail(session_id)
        return await self._request(
            "execute",
            session_id,
            {"method": "session/execute", "sessionId": session_id, "request": request},
            too_large="code-mode execute request",
        )

    async def wait(
        self, session_id: str, cell_id: str, yield_time_ms: int, max_output_tokens: int | None = None
    ) -> WaitOutcome:
        """``session/wait`` with the deadline ``yield + 1 s + 60 s`` (§4.6); a wait behind a
        cancelled, not yet answered wait on the same cell is held back until that is answered."""
        self._open_session_or_fail(session_id)
        body: dict[str, Any] = {
            "method": "session/wait",
            "sessionId": session_id,
            "request": {"cell_id": cell_id, "yield_time_ms": yield_time_ms},
        }
        if max_output_tokens is not None:
            body["maxOutputTokens"] = max_output_tokens
        timeout = wait_deadline_s(yield_time_ms, self.wait_transport_timeout_s)
        return await self._request("wait", session_id, body, cell_id=cell_id, timeout_s=timeout)

    async def terminate(self, session_id: str, cell_id: str, max_output_tokens: int | None = None) -> WaitOutcome:
        """``session/terminate`` with the 60 s deadline (§4.6)."""
        self._open_session_or_fail(session_id)
        body: dict[str, Any] = {"method": "session/terminate", "sessionId": session_id, "cellId": cell_id}
        if max_output_tokens is not None:
            body["maxOutputTokens"] = max_output_tokens
        timeout = terminate_deadline_s(self.wait_transport_timeout_s)
        return await self._request("terminate", session_id, body, cell_id=cell_id, timeout_s=timeout)

    async def shutdown_session(self, session_id: str, timeout_s: float = SHUTDOWN_TIMEOUT_S) -> None:
        """``session/shutdown``; afterwards every cell of the session still live is reported
        closed (once) and the session is forgotten.

        The session counts as unknown from the start (later calls on it fail with
        ``unknown code-mode session <id>``); the shutdown runs to its end even if the caller is
        cancelled. Host errors are logged, not raised.
        """
        task = self._shutdowns.get(session_id)
        if task is None:
            session = self._sessions.get(session_id)
            if session is None:
                return
            session.closing = True
            task = asyncio.ensure_future(self._shutdown(session, timeout_s))
            self._shutdowns[session_id] = task
            task.add_done_callback(lambda _t: self._shutdowns.pop(session_id, None))
        await asyncio.shield(task)

    async def _shutdown(self, session: _Session, timeout_s: float) -> None:
        try:
            await self._request(
                "shutdown",
                session.session_id,
                {"method": "session/shutdown", "sessionId": session.session_id},
                timeout_s=timeout_s,
            )
        except CodeModeError as exc:
            logger.debug("session/shutdown of %s failed: %s", session.session_id, exc)
        finally:
            if self._sessions.get(session.session_id) is session:
                del self._sessions[session.session_id]
            for cell_id in sorted(session.live_cells, key=_cell_sort_key):
                self._report_closed(session, cell_id)
            session.live_cells.clear()
            self._release_deferred(session.session_id)

    def live_cells(self, session_id: str) -> list[str]:
        """Host cell ids of the session's admitted, not yet closed cells."""
        session = self._sessions.get(session_id)
        return sorted(session.live_cells, key=_cell_sort_key) if session else []

    @property
    def pending_requests(self) -> int:
        """Requests not yet answered plus initial responses not yet received."""
        return len(self._pending) + len(self._initial)

    # -- incoming ----------------------------------------------------------------
    def _handle(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        if kind == "operation/response":
            self._on_response(message)
        elif kind == "execute/initialResponse":
            self._on_initial(message)
        elif kind == "delegate/request":
            self._on_delegate(message)
        elif kind == "delegate/cancel":
            self._on_delegate_cancel(message)
        elif kind == "cell/closed":
            self._on_cell_closed(message)
        elif kind == "session/storedValues":
            session = self._sessions.get(str(message.get("sessionId")))
            values = message.get("values")
            if session is not None and isinstance(values, dict):
                _call_quietly(session.delegate.stored_values, values)
        elif kind in ("connection/ready", "connection/rejected"):
            raise _ProtocolViolation("code-mode host sent a second handshake response")
        else:
            raise _ProtocolViolation(f"code-mode host sent an unknown message type {kind!r}")

    def _on_response(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        pending = self._pending.pop(request_id, None) if isinstance(request_id, int) and _is_id(request_id) else None
        if pending is None or not isinstance(request_id, int):
            raise _ProtocolViolation(f"code-mode host answered unknown request ID {request_id!r}")
        self._settle(pending)
        try:
            self._on_answer(request_id, pending, message.get("result"))
        except _ProtocolViolation as exc:
            if not pending.future.done():
                pending.future.set_exception(CodeModeError(str(exc)))
                pending.future.exception()
            raise

    def _on_answer(self, request_id: int, pending: _Pending, result: Any) -> None:
        if not isinstance(result, dict):
            raise _ProtocolViolation(f"code-mode host returned an invalid {pending.kind} response")
        if result.get("status") == "error":
            if not pending.future.done():
                pending.future.set_exception(CodeModeError(str(result.get("message", ""))))
                if pending.abandoned:
                    pending.future.exception()
            if pending.kind == "execute":
                self._release_deferred(pending.session_id)
            return
        value = result.get("value")
        if not isinstance(value, dict):
            raise _ProtocolViolation(f"code-mode host returned an invalid {pending.kind} response")
        if pending.kind == "execute":
            self._on_started(request_id, pending, value)
        elif pending.kind in ("wait", "terminate"):
            self._on_wait_completed(pending, value)
        elif not pending.future.done():
            pending.future.set_result(value)

    def _on_started(self, request_id: int, pending: _Pending, value: dict[str, Any]) -> None:
        if value.get("type") != "execution/started" or not isinstance(value.get("cellId"), str):
            raise _ProtocolViolation("code-mode host returned an invalid execute response")
        cell_id = value["cellId"]
        session = self._sessions.get(pending.session_id)
        if session is None:
            raise _ProtocolViolation(f"code-mode host started cell {cell_id} for a closed session")
        if cell_id in session.live_cells:
            raise _ProtocolViolation(f"code-mode host reused live cell {cell_id}")
        session.live_cells.add(cell_id)
        initial: asyncio.Future[RuntimeResponse] = asyncio.get_running_loop().create_future()
        self._initial[request_id] = (initial, pending.session_id, cell_id)
        if pending.abandoned or pending.future.done():
            initial.add_done_callback(_consume_outcome)
            self._spawn(self._terminate_abandoned(pending.session_id, cell_id))
        else:
            pending.future.set_result((cell_id, initial))
        self._release_deferred(pending.session_id)

    async def _terminate_abandoned(self, session_id: str, cell_id: str) -> None:
        session = self._sessions.get(session_id)
        if session is None or cell_id not in session.live_cells:
            return
        with contextlib.suppress(CodeModeError):
            await self.terminate(session_id, cell_id)

    def _on_initial(self, message: dict[str, Any]) -> None:
        request_id = message.get("id")
        entry = self._initial.pop(request_id, None) if isinstance(request_id, int) and _is_id(request_id) else None
        if entry is None:
            raise _ProtocolViolation(f"code-mode host sent an initial response for unknown request ID {request_id!r}")
        future, _session_id, cell_id = entry
        try:
            self._on_initial_result(future, cell_id, message.get("result"))
        except _ProtocolViolation as exc:
            if not future.done():
                future.set_exception(CodeModeError(str(exc)))
                future.exception()
            raise

    def _on_initial_result(self, future: asyncio.Future[RuntimeResponse], cell_id: str, result: Any) -> None:
        if not isinstance(result, dict):
            raise _ProtocolViolation("code-mode host returned an invalid initial response")
        if result.get("status") == "error":
            if not future.done():
                future.set_exception(CodeModeError(str(result.get("message", ""))))
            return
        try:
            response = RuntimeResponse.from_wire(result.get("value"))  # type: ignore[arg-type]
        except ValueError as exc:
            raise _ProtocolViolation(f"code-mode host returned an invalid initial response: {exc}") from None
        if response.cell_id != cell_id:
            raise _ProtocolViolation(
                f"code-mode host returned initial response for cell {response.cell_id} instead of {cell_id}"
            )
        if not future.done():
            future.set_result(response)

    def _on_wait_completed(self, pending: _Pending, value: dict[str, Any]) -> None:
        if value.get("type") != "wait/completed":
            raise _ProtocolViolation(f"code-mode host returned an invalid {pending.kind} response")
        try:
            outcome = WaitOutcome.from_wire(value.get("outcome"))  # type: ignore[arg-type]
        except ValueError as exc:
            raise _ProtocolViolation(f"code-mode host returned an invalid {pending.kind} response: {exc}") from None
        if outcome.response.cell_id != pending.cell_id:
            raise _ProtocolViolation(
                f"code-mode host returned cell {outcome.response.cell_id} for request targeting {pending.cell_id}"
            )
        if not pending.future.done():
            pending.future.set_result(outcome)

    def _on_cell_closed(self, message: dict[str, Any]) -> None:
        session = self._sessions.get(str(message.get("sessionId")))
        cell_id = str(message.get("cellId"))
        if session is not None and cell_id in session.live_cells:
            self._report_closed(session, cell_id)

    def _report_closed(self, session: _Session, cell_id: str) -> None:
        session.live_cells.discard(cell_id)
        # The cell is gone: calls still in flight for it will never be awaited by the host.
        for delegate_id, entry in list(self._delegates.items()):
            if entry.session_id == session.session_id and entry.cell_id == cell_id:
                self._revoke(entry)
                del self._delegates[delegate_id]
        _call_quietly(session.delegate.cell_closed, cell_id)

    # -- delegate calls ------------------------------------------------------------
    def _remember_delegate_id(self, delegate_id: int) -> None:
        self._recent_delegate_ids.append(delegate_id)
        self._recent_delegate_set.add(delegate_id)
        while len(self._recent_delegate_ids) > MAX_RECENT_DELEGATE_IDS:
            self._recent_delegate_set.discard(self._recent_delegate_ids.popleft())

    def _execute_pending(self, session_id: str) -> bool:
        return any(p.kind == "execute" and p.session_id == session_id for p in self._pending.values())

    def _on_delegate(self, message: dict[str, Any]) -> None:
        delegate_id = message.get("id")
        if not _is_id(delegate_id):
            raise _ProtocolViolation("code-mode host sent a delegate request without an ID")
        assert isinstance(delegate_id, int)
        if (
            delegate_id in self._delegates
            or delegate_id in self._recent_delegate_set
            or any(d.delegate_id == delegate_id for d in self._deferred)
        ):
            raise _ProtocolViolation(f"duplicate code-mode delegate request ID {delegate_id}")
        self._remember_delegate_id(delegate_id)
        session_id = str(message.get("sessionId"))
        request = message.get("request")
        if not isinstance(request, dict):
            raise _ProtocolViolation("code-mode host sent an invalid delegate request")
        kind = request.get("type")
        if kind == "tool/invoke":
            invocation = request.get("invocation")
            if not isinstance(invocation, dict):
                raise _ProtocolViolation("code-mode host sent an invalid delegate request")
            cell_id = str(invocation.get("cell_id"))
        elif kind == "notification/send":
            cell_id = str(request.get("cellId"))
        else:
            raise _ProtocolViolation(f"code-mode host sent an unknown delegate request type {kind!r}")
        session = self._sessions.get(session_id)
        if session is None or session.closing:
            self._respond_soon(
                delegate_id,
                {"status": "error", "message": f"code-mode host delegated for unknown session {session_id}"},
            )
            return
        if cell_id not in session.live_cells and self._execute_pending(session_id):
            # The cell may be the one an execute in flight is about to admit (§4.5).
            if len(self._deferred) >= MAX_DEFERRED_DELEGATE_MESSAGES:
                raise _ProtocolViolation("code-mode host exceeded deferred cross-socket message limit")
            self._deferred.append(_Deferred(delegate_id, session_id, cell_id, request))
            return
        self._dispatch_delegate(delegate_id, session, cell_id, request)

    def _release_deferred(self, session_id: str) -> None:
        """Forward, in arrival order, the deferred delegates of ``session_id`` whose cell is now
        admitted; answer those that can no longer be admitted with the unknown-cell error."""
        if not any(d.session_id == session_id for d in self._deferred):
            return
        session = self._sessions.get(session_id)
        still_possible = session is not None and not session.closing and self._execute_pending(session_id)
        kept: deque[_Deferred] = deque()
        ready: list[_Deferred] = []
        for deferred in self._deferred:
            if deferred.session_id != session_id:
                kept.append(deferred)
            elif session is not None and deferred.cell_id in session.live_cells:
                ready.append(deferred)
            elif still_possible:
                kept.append(deferred)
            else:
                ready.append(deferred)
        self._deferred = kept
        for deferred in ready:
            if session is None or session.closing:
                self._respond_soon(
                    deferred.delegate_id,
                    {"status": "error", "message": f"code-mode host delegated for unknown session {session_id}"},
                )
            else:
                self._dispatch_delegate(deferred.delegate_id, session, deferred.cell_id, deferred.request)

    def _dispatch_delegate(self, delegate_id: int, session: _Session, cell_id: str, request: dict[str, Any]) -> None:
        if cell_id not in session.live_cells:
            self._respond_soon(
                delegate_id,
                {
                    "status": "error",
                    "message": f"code-mode host delegated for unknown cell {cell_id} in session {session.session_id}",
                },
            )
            return
        if len(self._delegates) >= MAX_PENDING_DELEGATE_CALLS:
            self._respond_soon(
                delegate_id,
                {
                    "status": "error",
                    "message": f"code-mode host exceeded the limit of {MAX_PENDING_DELEGATE_CALLS} pending delegate calls",
                },
            )
            return
        entry = _Delegate(CancellationToken(), session.session_id, cell_id)
        self._delegates[delegate_id] = entry
        if request.get("type") == "tool/invoke":
            work = self._run_tool(session, request["invocation"], entry)
        else:
            work = self._run_notify(session, request)
        entry.task = asyncio.ensure_future(self._serve_delegate(delegate_id, entry, work))

    async def _run_tool(self, session: _Session, invocation: dict[str, Any], entry: _Delegate) -> dict[str, Any]:
        value = await session.delegate.invoke_tool(invocation, entry.token)
        return {"status": "ok", "value": {"type": "tool/result", "result": value}}

    async def _run_notify(self, session: _Session, request: dict[str, Any]) -> dict[str, Any]:
        await session.delegate.notify(
            str(request.get("callId")), str(request.get("cellId")), str(request.get("text", ""))
        )
        return {"status": "ok", "value": {"type": "notification/delivered"}}

    async def _serve_delegate(self, delegate_id: int, entry: _Delegate, work: Awaitable[dict[str, Any]]) -> None:
        try:
            try:
                result = await work
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - becomes the call's error answer
                from .errors import ToolCallError

                if isinstance(exc, ToolCallError):
                    result = {"status": "error", "message": str(exc)}
                else:
                    logger.exception("code-mode delegate task failed")
                    result = {"status": "error", "message": f"code-mode delegate task failed: {exc}"}
            if entry.revoked or entry.token.cancelled or not self.alive:
                return
            message = {"type": "delegate/response", "id": delegate_id, "result": result}
            try:
                frame = encode_frame(message)
            except FrameTooLarge as exc:
                frame = encode_frame(
                    {
                        "type": "delegate/response",
                        "id": delegate_id,
                        "result": {
                            "status": "error",
                            "message": f"code-mode tool result exceeds the IPC frame limit: {exc}",
                        },
                    }
                )
            with contextlib.suppress(CodeModeError):
                await self._send_frame(frame)
        finally:
            if self._delegates.get(delegate_id) is entry:
                del self._delegates[delegate_id]

    def _revoke(self, entry: _Delegate) -> None:
        """Cancel a delegate call's token; it is never answered and nobody waits for it."""
        entry.revoked = True
        entry.token.cancel()
        task = entry.task
        if task is not None and not task.done():
            self._revoked_tasks.add(task)
            task.add_done_callback(self._revoked_tasks.discard)

    def _respond_soon(self, delegate_id: int, result: dict[str, Any]) -> None:
        self._send_soon({"type": "delegate/response", "id": delegate_id, "result": result})

    def _on_delegate_cancel(self, message: dict[str, Any]) -> None:
        delegate_id = message.get("id")
        entry = self._delegates.pop(delegate_id, None) if _is_id(delegate_id) else None  # type: ignore[arg-type]
        if entry is not None:
            self._revoke(entry)
            return
        for deferred in self._deferred:
            if deferred.delegate_id == delegate_id:
                self._deferred.remove(deferred)
                return

    @property
    def pending_delegate_calls(self) -> int:
        """Delegate calls being served and not revoked (the count that the 1024 limit bounds)."""
        return len(self._delegates)


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _consume_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


class _ProtocolViolation(Exception):
    """The host broke the protocol; the connection fails with this text."""


def _call_quietly(fn: Callable[..., Any], *args: Any) -> None:
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - a callback bug must not kill the connection
        logger.exception("code-mode session callback failed")


def _cell_sort_key(cell_id: str) -> tuple[int, str]:
    return (int(cell_id), "") if cell_id.isdigit() else (2**63, cell_id)


def _describe_status(status: int | None) -> str:
    if status is None:
        return "unknown"
    if status < 0:
        try:
            return f"signal: {-status} ({signal.Signals(-status).name})"
        except ValueError:
            return f"signal: {-status}"
    return f"exit status: {status}"


async def _log_stderr(stream: asyncio.StreamReader, pid: int) -> None:
    host_logger = logging.getLogger(__name__ + ".stderr")
    while True:
        try:
            line = await stream.readline()
        except (OSError, ValueError):
            return
        if not line:
            return
        host_logger.debug("[host %d] %s", pid, line.decode("utf-8", "replace").rstrip())


async def spawn_host(
    command: list[str] | None = None,
    *,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    startup_timeout_s: float = HOST_STARTUP_TIMEOUT_S,
) -> HostConnection:
    """Start a host process and handshake with it; returns a started :class:`HostConnection`.

    The child runs in a new session (its own process group), with stdin/stdout piped for the
    protocol and stderr logged at debug level. Raises :class:`CodeModeError` with Codex's texts:
    ``failed to spawn code-mode host <path>: <error>``, ``timed out negotiating with the
    code-mode host``, ``code-mode host exited during handshake``, ``code-mode host rejected the
    handshake: <reason>``, ``code-mode host returned an invalid handshake response: …``.
    """
    argv = list(command or default_host_command())
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
    stderr_task = asyncio.ensure_future(_log_stderr(process.stderr, process.pid))

    def kill() -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)

    hello = {
        "type": "connection/hello",
        "supportedVersions": [1],
        "requiredCapabilities": [],
        "optionalCapabilities": list(CAPABILITIES),
    }
    try:
        process.stdin.write(encode_frame(hello))
        await process.stdin.drain()
    except (OSError, RuntimeError) as exc:
        kill()
        await process.wait()
        raise CodeModeError(f"failed to write code-mode host hello: {exc}") from None
    try:
        answer = await asyncio.wait_for(read_frame(process.stdout), startup_timeout_s)
    except TimeoutError:
        kill()
        await process.wait()
        raise CodeModeError("timed out negotiating with the code-mode host") from None
    except (FrameError, OSError) as exc:
        kill()
        await process.wait()
        raise CodeModeError(f"failed to read code-mode host hello: {exc}") from None
    if answer is None:
        kill()
        await process.wait()
        raise CodeModeError("code-mode host exited during handshake")
    if answer.get("type") == "connection/rejected":
        kill()
        await process.wait()
        raise CodeModeError(f"code-mode host rejected the handshake: {answer.get('reason')!r}")
    if answer.get("type") != "connection/ready" or answer.get("selectedVersion") != 1:
        kill()
        await process.wait()
        raise CodeModeError(f"code-mode host returned an invalid handshake response: {answer!r}")
    connection = HostConnection(
        process.stdout, process.stdin, process=process, capabilities=list(answer.get("capabilities") or [])
    )
    connection._tasks.append(stderr_task)
    connection.start()
    logger.info("code-mode host started (pid %d, %s)", process.pid, " ".join(argv))
    return connection
