"""The driver of one host connection: it reads the host's messages, writes frames, watches the
process and the host's liveness, and applies the effects of :class:`~codemode.host.state.ConnectionState`
(in :meth:`HostConnection._apply`, the one place where futures, tasks and the pipe change).

Callers use :meth:`HostConnection.open_session`, :meth:`~HostConnection.execute`,
:meth:`~HostConnection.wait`, :meth:`~HostConnection.terminate`,
:meth:`~HostConnection.shutdown_session`, :meth:`~HostConnection.yield_wait` and
:meth:`~HostConnection.probe`. Deadlines (Codex's ``DEFAULT_HOST_WAIT_TRANSPORT_TIMEOUT``): a
wait may take its yield time + 1 s + 60 s, a terminate 60 s; past that the connection fails with
``code-mode host timed out waiting for <kind> response``.
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
from codemode.host.requests import PendingRequest, RequestKind
from codemode.host.state import ConnectionState
from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire import messages
from codemode.wire.frame_writer import FrameWriter
from codemode.wire.framing import (
    RAW_TEXT_CAPABILITY,
    FrameError,
    FrameTooLarge,
    encode_frame,
    read_attached_payload,
    read_frame,
)
from codemode.wire.messages import RequestBody
from codemode.wire.raw_text import RAW_MEMBER, put_back

logger = logging.getLogger("codemode.host")

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


class ConnectionDriver:
    """One handshaken connection to a host.

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
                self._delegates.serve(effect, self.state.answers.get(effect.session.session_id, effect.cell_id))
            elif isinstance(effect, fx.Revoke):
                self._delegates.revoke(effect.delegate_id)
            elif isinstance(effect, fx.CellClosed):
                _call_quietly(effect.session.delegate.cell_closed, effect.cell_id)
            elif isinstance(effect, fx.StoredValues):
                _call_quietly(effect.session.delegate.stored_values, effect.values)
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
