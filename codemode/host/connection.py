"""One handshaken connection to a host (:class:`HostConnection`): the operations callers use
(open a remote session, execute, wait, terminate, yield a wait, probe, shut a session down),
and what carries them out: it reads the host's messages, writes frames, watches the process and
the host's liveness, and applies the effects of :class:`~codemode.host.state.ConnectionState`
(in :meth:`HostConnection._apply`, the one place where futures, tasks and the pipe change).

Each operation checks its arguments against the connection's state and sends one request.
Deadlines (Codex's ``DEFAULT_HOST_WAIT_TRANSPORT_TIMEOUT``): a wait may take its yield time +
1 s + 60 s, a terminate 60 s; past that the connection fails with ``code-mode host timed out
waiting for <kind> response``. What the host reports about a cell goes to its remote session's
delegate as the frame is read (:class:`~codemode.host.effects.Report`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Coroutine
from typing import Any

from codemode.errors import CodeModeError, HostConnectionError
from codemode.host import effects as fx
from codemode.host.delegate_server import DelegateServer
from codemode.host.liveness import Liveness, probe_body, stopped_responding
from codemode.host.remote_sessions import SessionDelegate, cell_sort_key
from codemode.host.request_tracker import PendingRequest, RequestKind
from codemode.host.state import ConnectionState
from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire import messages, stored_values
from codemode.wire.frame_json import json_text
from codemode.wire.frame_writer import FrameWriter
from codemode.wire.framing import (
    RAW_TEXT_CAPABILITY,
    FrameError,
    FrameTooLarge,
    encode_frame,
    read_attached_payload,
    read_frame,
    text_frame_parts,
)
from codemode.wire.messages import OutputTruncation, RequestBody
from codemode.wire.raw_text import RAW_MEMBER, put_back

logger = logging.getLogger("codemode.host")
SESSION_RESOURCE_LIMITS_CAPABILITY = "session-cell-execution-resource-limits"

WAIT_TRANSPORT_TIMEOUT_S = 60.0
"""``DEFAULT_HOST_WAIT_TRANSPORT_TIMEOUT``: added to a wait's yield time + 1 s, and the whole
deadline of a terminate."""
SHUTDOWN_TIMEOUT_S = 5.0
"""How long a closing connection waits for the host to exit before killing its group."""


def wait_deadline_s(yield_time_ms: int, transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S) -> float:
    """Seconds a ``session/wait`` may take before the connection is declared dead:
    ``yield_time_ms`` + 1 s + the transport allowance (60 s by default)."""
    return yield_time_ms / 1000 + 1 + transport_timeout_s


def terminate_deadline_s(transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S) -> float:
    """Seconds a ``session/terminate`` may take: the transport allowance alone (60 s)."""
    return transport_timeout_s


class HostConnection:
    """One handshaken connection to a host (see the module docstring).

    ``reader``/``writer`` are the host's stdout/stdin streams (any object with ``write(bytes)``,
    ``async drain()`` and ``close()`` will do for ``writer``); ``process`` (optional) is the
    child, watched for exit and killed (as a process group) on failure or close.
    ``capabilities`` are those granted in ``connection/ready``. ``wait_transport_timeout_s`` is
    the transport allowance of the wait and terminate deadlines (tests shorten it);
    ``liveness`` sets when a silent host is probed (:class:`~codemode.host.liveness.Liveness`).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: Any,
        *,
        process: asyncio.subprocess.Process | None = None,
        capabilities: list[str] | None = None,
        wait_transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S,
        liveness: Liveness | None = None,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._frames = FrameWriter(writer)
        self.process = process
        self.capabilities = list(capabilities or [])
        self._raw_texts = RAW_TEXT_CAPABILITY in self.capabilities
        self.wait_transport_timeout_s = wait_transport_timeout_s
        self.liveness = liveness or Liveness()
        self.state = ConnectionState()
        self._futures: dict[int, asyncio.Future[Any]] = {}
        self._settled: dict[int, asyncio.Event] = {}
        self._initial: dict[int, asyncio.Future[RuntimeResponse]] = {}
        self._delegates = DelegateServer(self._send_frame, lambda: self.alive, self.state.delegate_finished)
        self._shutdowns: dict[str, asyncio.Task[None]] = {}
        self._background: set[asyncio.Task[Any]] = set()
        self._write_lock = asyncio.Lock()
        self._tasks: list[asyncio.Task[Any]] = []
        self._last_heard = 0.0
        self._closing = False
        self.reader_task: asyncio.Task[None] | None = None
        """The task reading host messages; if it ends while the connection is alive, the
        connection fails (``code-mode connection reader exited unexpectedly``)."""
        self.generation: int | None = None
        """The host generation, set by :class:`~codemode.session.HostProvider` after the spawn;
        carried by the :class:`~codemode.errors.HostConnectionError` of a failure."""
        self.closed = asyncio.Event()
        """Set once the connection failed or was closed."""

    @property
    def alive(self) -> bool:
        return self.state.alive

    @property
    def failure(self) -> str | None:
        """Why the connection died (Codex's text), ``None`` while it is alive."""
        return self.state.failure

    @property
    def failed_idle(self) -> bool:
        """The connection failed, not closed by the client, while no started cell was live and
        no open was in flight (:attr:`~codemode.host.state.ConnectionState.failed_idle`): no
        started cell was lost; an execute in flight was not admitted and may go to a new host."""
        return self.state.failed_idle and not self._closing

    @property
    def retiring(self) -> str | None:
        """The reason of the host's exit notice (``host/exiting``), once it sent one: no new cell
        starts on this connection, answers in flight still arrive."""
        return self.state.retiring

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the reader, the process watcher and the liveness watchdog (once, after the handshake)."""
        self._last_heard = asyncio.get_running_loop().time()
        self.reader_task = asyncio.ensure_future(self._read_loop())
        self.reader_task.add_done_callback(self._reader_done)
        self._tasks += [self.reader_task, asyncio.ensure_future(self._watch_liveness())]
        if self.process is not None:
            self._tasks.append(asyncio.ensure_future(self._watch_process()))

    def _reader_done(self, _task: asyncio.Task[None]) -> None:
        if self.alive and not self._closing:
            self.fail("code-mode connection reader exited unexpectedly")

    def _spawn(self, coro: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _watch_process(self) -> None:
        assert self.process is not None
        status = await self.process.wait()
        self.fail(f"code-mode host exited with status {describe_status(status)}")

    async def notice_exit(self, within_s: float = SHUTDOWN_TIMEOUT_S) -> None:
        """If the host process has already exited, wait (at most ``within_s`` seconds) until
        the connection has failed with what the process watcher or the reader report
        (``code-mode host exited with status …`` or ``… closed its stdout``).

        Both notice an exit on the event loop, so a caller that checks :attr:`alive` right
        after the host died may still find it alive and send to a dead pipe; calling this first
        makes "the host had exited before the request" a fact, not a race. The check
        (``waitid`` with ``WNOWAIT``) does not reap the child, so asyncio's child watcher still
        gets its status; a child already reaped has exited.
        """
        process = self.process
        if not self.alive or process is None or (process.returncode is None and not _exited(process.pid)):
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                status = await process.wait()
                self.fail(f"code-mode host exited with status {describe_status(status)}")

    async def _read_loop(self) -> None:
        try:
            while self.alive:
                try:
                    message = await read_frame(self._reader)
                    if message is not None and RAW_MEMBER in message and self._raw_texts:
                        message = await put_back(message, lambda: read_attached_payload(self._reader))
                except (FrameError, OSError, ValueError) as exc:
                    self.fail(f"failed to read code-mode host message: {exc}")
                    return
                if message is None:
                    self.fail("code-mode host closed its stdout")
                    return
                if not self.alive:
                    return
                self._last_heard = asyncio.get_running_loop().time()
                self._apply(self.state.on_message(message))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - any bug ends the connection, never silently
            logger.exception("code-mode connection reader crashed")
            self.fail(f"code-mode connection reader exited unexpectedly: {exc}")

    async def _watch_liveness(self) -> None:
        """Probe the host when it has been silent for ``liveness.silence_s`` while a caller
        waits for it; :meth:`probe` fails the connection when the probe goes unanswered."""
        loop = asyncio.get_running_loop()
        busy_since: float | None = None
        while self.alive:
            await asyncio.sleep(self.liveness.tick_s)
            if not self.state.requests.awaiting_host():
                busy_since = None
                continue
            now = loop.time()
            busy_since = now if busy_since is None else busy_since
            if now - max(self._last_heard, busy_since) >= self.liveness.silence_s:
                await self.probe(self.liveness.answer_s)

    def fail(self, reason: str) -> None:
        """Mark the connection dead (once): pending calls fail with ``reason`` (as a
        :class:`~codemode.errors.HostConnectionError`; later calls get the same), every live cell
        is reported closed once, delegate calls are revoked, the host's process group is killed."""
        if self.alive:
            if self._closing:
                logger.debug("code-mode host connection closed: %s", reason)
            else:
                logger.warning("code-mode host connection failed: %s", reason)
        self._apply(self.state.fail(reason))

    def _kill(self) -> None:
        process = self.process
        if process is not None and process.returncode is None:
            # The host leads its own process group (spawned in a new session): one signal ends it
            # and whatever it started. Never ``process.kill()``: ``Popen.send_signal`` polls first,
            # which can reap the host behind asyncio's child watcher, and the watcher then logs
            # "Unknown child process pid N, will report returncode 255" (on a notebook's stderr)
            # and reports 255 instead of the host's real status.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self._writer.close()
        self.closed.set()

    async def close(self) -> None:
        """Close stdin, give the host :data:`SHUTDOWN_TIMEOUT_S` to exit, then kill its group;
        the connection is failed with ``code-mode host connection closed``."""
        process = self.process
        self._closing = True
        with contextlib.suppress(Exception):
            self._frames.flush()  # what was written last (a shutdown) goes before the EOF
            self._writer.close()
        if process is not None and process.returncode is None:
            try:
                async with asyncio.timeout(SHUTDOWN_TIMEOUT_S):
                    await process.wait()
            except TimeoutError:
                logger.warning("code-mode host did not exit within %.0f s; killing it", SHUTDOWN_TIMEOUT_S)
        self.fail("code-mode host connection closed")
        if process is not None:
            with contextlib.suppress(Exception):
                await process.wait()
        leftovers = [*self._tasks, *self._background, *self._delegates.tasks()]
        for task in leftovers:
            task.cancel()
        for task in leftovers:
            with contextlib.suppress(BaseException):
                await task

    # -- operations -----------------------------------------------------------------------------
    async def open_session(
        self,
        session_id: str,
        delegate: SessionDelegate,
        *,
        limits: messages.CellExecutionLimits | None = None,
        stored_values: dict[str, Any] | None = None,
        output_truncation: OutputTruncation | None = None,
        cell_id_prefix: str | None = None,
    ) -> None:
        """``session/open``. ``limits``: ``{"maxYieldTimeMs", "maxHeapSizeBytes"}`` (omitted when
        empty); ``cell_id_prefix`` is codemode's extension field (only for our host;
        :func:`codemode.wire.messages.open_body`). ``stored_values`` (only for our host) are the values
        to seed the session with: the open carries codemode's ``storedValues`` extension field
        empty (the host then reports what cells store), and once it is answered each value
        follows in a ``session/storedValues`` frame of its own (:mod:`codemode.wire.stored_values`), so
        no total meets the frame limit (a value too large for one, which our host never reports,
        is logged and left out). Raises :class:`CodeModeError` as any request does.

        If the caller is cancelled while the open is in flight and the host then commits the
        session, the client shuts it down again (``session/shutdown``).
        """
        self._check_alive()
        self._check_not_retiring()
        if limits and SESSION_RESOURCE_LIMITS_CAPABILITY not in self.capabilities:
            raise CodeModeError(
                "code-mode host does not support session resource limits: missing "
                f"`{SESSION_RESOURCE_LIMITS_CAPABILITY}` capability"
            )
        self.state.add_session(session_id, delegate)
        body = messages.open_body(
            session_id,
            limits=limits,
            output_truncation=output_truncation,
            stored_values=None if stored_values is None else {},
            cell_id_prefix=cell_id_prefix,
        )
        task = asyncio.ensure_future(self._open(session_id, body, dict(stored_values or {})))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(lambda done: self._after_abandoned_open(session_id, done))
            raise

    async def _open(self, session_id: str, body: messages.OpenBody, seeds: dict[str, Any]) -> None:
        try:
            await self._request("open", session_id, body)
        except BaseException:
            self.state.open_failed(session_id)
            raise
        for key, value in seeds.items():
            text = stored_values.message_text(session_id, key, json_text(value))
            try:
                header, payload = text_frame_parts(text)
            except FrameTooLarge as exc:  # never from our host, whose store() refuses such a value
                logger.error("stored value %s is not given to the new host: %s", json_text(key)[:80], exc)
                continue
            await self._send_frame(header + payload)

    def _after_abandoned_open(self, session_id: str, task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        if self.alive and session_id in self.state.sessions:
            logger.debug("caller of session/open %s went away; shutting the session down", session_id)
            self._spawn(self.shutdown_session(session_id))

    def _check_not_retiring(self) -> None:
        if self.retiring is not None:
            raise CodeModeError(f"code-mode host is exiting ({self.retiring}); start the cell on a new host")

    async def execute(
        self, session_id: str, request: messages.ExecuteRequest
    ) -> tuple[str, asyncio.Future[RuntimeResponse]]:
        """``session/execute``: returns the host's cell id and a future of the initial response
        (it fails with the connection's failure reason if the host goes away).

        Raises :class:`CodeModeError`: ``unknown code-mode session <id>`` for a session that is not
        open (or is closing), the frame-limit text for an oversized request, host errors, and
        ``code-mode host is exiting …`` after the host's exit notice. A caller cancelled after
        the host admitted the cell leaves a cell the client stops.
        """
        self._check_alive()
        self.state.require_session(session_id)
        self._check_not_retiring()
        body = messages.execute_body(session_id, request)
        return await self._request("execute", session_id, body, too_large="code-mode execute request")

    async def wait(
        self, session_id: str, cell_id: str, yield_time_ms: int, max_output_tokens: int | None = None
    ) -> WaitOutcome:
        """``session/wait`` with the deadline ``yield + 1 s + 60 s``; a wait behind a cancelled,
        not yet answered wait on the same cell is held back until that is answered."""
        self._check_alive()
        self.state.require_session(session_id)
        body = messages.wait_body(session_id, cell_id, yield_time_ms, max_output_tokens)
        timeout = wait_deadline_s(yield_time_ms, self.wait_transport_timeout_s)
        return await self._request("wait", session_id, body, cell_id=cell_id, timeout_s=timeout)

    def yield_wait(self, session_id: str, cell_id: str) -> bool:
        """Send ``operation/yield`` for the wait in flight on the cell, which the host then answers
        at once with ``LiveCell`` + ``Yielded`` (the output since the last observation). False
        when no wait on that cell is in flight (or the connection is dead)."""
        if not self.alive:
            return False
        effects = self.state.yield_wait(session_id, cell_id)
        self._apply(effects)
        return bool(effects)

    async def terminate(self, session_id: str, cell_id: str, max_output_tokens: int | None = None) -> WaitOutcome:
        """``session/terminate`` with the 60 s deadline."""
        return await self._terminate(session_id, cell_id, max_output_tokens)

    async def shutdown_session(self, session_id: str, timeout_s: float = SHUTDOWN_TIMEOUT_S) -> None:
        """``session/shutdown``; afterwards every cell of the session still live is reported
        closed (once) and the session is forgotten.

        The session counts as unknown from the start (later calls on it fail with ``unknown
        code-mode session <id>``); the shutdown runs to its end even if the caller is cancelled.
        Host errors are logged, not raised.
        """
        task = self._shutdowns.get(session_id)
        if task is None:
            session = self.state.begin_shutdown(session_id)
            if session is None:
                return

            async def shutdown() -> None:
                try:
                    await self._request("shutdown", session_id, messages.shutdown_body(session_id), timeout_s=timeout_s)
                except CodeModeError as exc:
                    logger.debug("session/shutdown of %s failed: %s", session_id, exc)
                finally:
                    self._apply(self.state.finish_shutdown(session))

            task = asyncio.ensure_future(shutdown())
            self._shutdowns[session_id] = task
            task.add_done_callback(lambda _t: self._shutdowns.pop(session_id, None))
        await asyncio.shield(task)

    async def bindings(self, session_id: str, path: list[str], timeout_ms: int) -> list[tuple[str, str]] | None:
        """``session/bindings`` (codemode's extension, :mod:`codemode.wire.session_bindings`): the
        ``(name, kind)`` pairs the notebook realm lists at ``path``, None when it was busy for
        ``timeout_ms``. Raises :class:`CodeModeError` when the host did not grant the
        extension, the session is not open, or the connection fails."""
        self._check_alive()
        self.state.require_session(session_id)
        if messages.BINDINGS_CAPABILITY not in self.capabilities:
            raise CodeModeError("code-mode host does not list bindings (not codemode's host in the notebook profile)")
        body = messages.bindings_body(session_id, path, timeout_ms)
        result: list[tuple[str, str]] | None = await self._request("bindings", session_id, body)
        return result

    def live_cells(self, session_id: str) -> list[str]:
        """Host cell ids of the session's admitted, not yet closed cells."""
        session = self.state.sessions.get(session_id)
        return sorted(session.live_cells, key=cell_sort_key) if session else []

    @property
    def pending_requests(self) -> int:
        """Requests not yet answered plus initial responses not yet received."""
        return len(self.state.requests.pending) + len(self.state.requests.initial)

    @property
    def pending_delegate_calls(self) -> int:
        """Delegate calls being served and not revoked (the count that the 1024 limit bounds)."""
        return len(self.state.delegates.served)

    # -- applying the state machine's effects -----------------------------------------------------
    def _error(self, reason: str, connection_error: bool) -> CodeModeError:
        if connection_error:
            return HostConnectionError(self.failure or reason, self.generation)
        return CodeModeError(reason)

    def _apply(self, effects: list[fx.Effect]) -> None:
        for effect in effects:
            if isinstance(effect, fx.Send):
                self._send_soon(effect.message)
            elif isinstance(effect, fx.Resolve | fx.Reject):
                future = self._futures.pop(effect.request_id, None)
                if future is None or future.done():
                    continue
                if isinstance(effect, fx.Resolve):
                    future.set_result(effect.value)
                else:
                    future.set_exception(self._error(effect.reason, effect.connection_error))
                    future.exception()  # retrieved: awaiting it still raises
            elif isinstance(effect, fx.Settle):
                event = self._settled.pop(effect.request_id, None)
                if event is not None:
                    event.set()
            elif isinstance(effect, fx.Admitted):
                initial: asyncio.Future[RuntimeResponse] = asyncio.get_running_loop().create_future()
                initial.add_done_callback(_retrieve)
                self._initial[effect.request_id] = initial
                future = self._futures.pop(effect.request_id, None)
                if effect.deliver and future is not None and not future.done():
                    future.set_result((effect.cell_id, initial))
            elif isinstance(effect, fx.InitialResolve | fx.InitialReject):
                expected = self._initial.pop(effect.request_id, None)
                if expected is None or expected.done():
                    continue
                if isinstance(effect, fx.InitialResolve):
                    expected.set_result(effect.response)
                else:
                    expected.set_exception(self._error(effect.reason, effect.connection_error))
            elif isinstance(effect, fx.TerminateAbandoned):
                self._spawn(self._terminate_abandoned(effect.session_id, effect.cell_id))
            elif isinstance(effect, fx.ServeDelegate):
                self._delegates.serve(effect)
            elif isinstance(effect, fx.Revoke):
                self._delegates.revoke(effect.delegate_id)
            elif isinstance(effect, fx.Report):
                _call_quietly(effect.session.delegate.report, effect.event)
            elif isinstance(effect, fx.HostExiting):
                logger.info("code-mode host announced its exit (%s); new cells go to a new host", effect.reason)
            else:
                self._kill()

    # -- sending --------------------------------------------------------------------------------
    def _check_alive(self) -> None:
        if not self.alive:
            raise self._error("code-mode host connection closed", True)

    async def _send_frame(self, frame: bytes, pending: PendingRequest | None = None) -> None:
        async with self._write_lock:
            self._check_alive()
            try:
                self._frames.write(frame)
                if pending is not None:
                    pending.sent = True
                await self._frames.wait_for_room()
            except (OSError, RuntimeError) as exc:
                if self.state.retiring is not None:
                    # The host announced its exit and is closing its pipes: its exit, which the
                    # reader and the process watcher report (with its status), ends the
                    # connection, not this write. Only this message is lost.
                    raise CodeModeError(
                        f"code-mode host is exiting ({self.state.retiring}); the message was not sent"
                    ) from None
                self.fail(f"failed to write code-mode host message: {exc}")
                raise self._error("", True) from None

    def _send_soon(self, message: Any) -> None:
        async def send() -> None:
            with contextlib.suppress(CodeModeError):
                await self._send_frame(encode_frame(message))

        self._spawn(send())

    async def _terminate(self, session_id: str, cell_id: str, max_output_tokens: int | None) -> WaitOutcome:
        self._check_alive()
        self.state.require_session(session_id)
        body = messages.terminate_body(session_id, cell_id, max_output_tokens)
        timeout = terminate_deadline_s(self.wait_transport_timeout_s)
        return await self._request("terminate", session_id, body, cell_id=cell_id, timeout_s=timeout)

    async def _terminate_abandoned(self, session_id: str, cell_id: str) -> None:
        session = self.state.sessions.get(session_id)
        if session is None or cell_id not in session.live_cells:
            return
        with contextlib.suppress(CodeModeError):
            await self._terminate(session_id, cell_id, None)

    async def probe(self, timeout_s: float) -> bool:
        """Check that the host answers: True once it answered a probe; False when the connection
        is (or meanwhile became) dead. A probe not answered within ``timeout_s`` seconds fails the
        connection with ``code-mode host stopped responding: …`` (see :mod:`codemode.host.liveness`)."""
        if not self.alive:
            return False
        try:
            await self._request(
                "probe", "", probe_body(), timeout_s=timeout_s, timeout_reason=stopped_responding(timeout_s)
            )
        except CodeModeError:
            return False
        return True

    async def _request(
        self,
        kind: RequestKind,
        session_id: str,
        body: RequestBody,
        *,
        cell_id: str | None = None,
        timeout_s: float | None = None,
        timeout_reason: str | None = None,
        too_large: str | None = None,
    ) -> Any:
        """Send one ``operation/request`` and await its answer.

        ``timeout_s`` bounds everything from the call on (holding back, queueing behind other
        writes, the host's answer); when it passes the connection fails with ``timeout_reason``
        (default ``code-mode host timed out waiting for <kind> response``).
        """
        self._check_alive()
        if timeout_s is None:
            return await self._request_now(kind, session_id, body, cell_id, too_large)
        try:
            async with asyncio.timeout(timeout_s):
                return await self._request_now(kind, session_id, body, cell_id, too_large)
        except TimeoutError:
            self.fail(timeout_reason or f"code-mode host timed out waiting for {kind} response")
            raise self._error("", True) from None

    async def _request_now(
        self, kind: RequestKind, session_id: str, body: RequestBody, cell_id: str | None, too_large: str | None
    ) -> Any:
        if kind == "wait" and cell_id is not None:
            # One observer per cell: a wait waits until a cancelled wait on the cell is answered.
            while (retiring := self.state.requests.retiring_wait(session_id, cell_id)) is not None:
                await self._settled.setdefault(retiring.request_id, asyncio.Event()).wait()
            self._check_alive()
        pending = self.state.begin(kind, session_id, cell_id)
        request_id = pending.request_id
        try:
            frame = encode_frame(messages.operation_request(request_id, body))
        except FrameTooLarge as exc:
            self.state.requests.pending.pop(request_id, None)
            raise CodeModeError(f"{too_large or 'code-mode request'} exceeds the IPC frame limit: {exc}") from None
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._futures[request_id] = future
        self._settled[request_id] = asyncio.Event()
        try:
            try:
                await self._send_frame(frame, pending)
            except CodeModeError:
                if self.alive:  # not sent to a host that is exiting: nothing will answer it
                    self.state.requests.pending.pop(request_id, None)
                    self._futures.pop(request_id, None)
                    self._settled.pop(request_id, asyncio.Event()).set()
                raise
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            self._apply(self.state.abandon(pending))
            raise


def _retrieve(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _call_quietly(fn: Any, *args: Any) -> None:
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - a callback bug must not kill the connection
        logger.exception("code-mode session callback failed")


def _exited(pid: int) -> bool:
    """The child ``pid`` has exited (a zombie, or already reaped), without reaping it."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def describe_status(status: int | None) -> str:
    """An exit status as Codex words it: ``exit status: 1``, ``signal: 9 (SIGKILL)``."""
    if status is None:
        return "unknown"
    if status < 0:
        try:
            return f"signal: {-status} ({signal.Signals(-status).name})"
        except ValueError:
            return f"signal: {-status}"
    return f"exit status: {status}"
