"""The connection of ``codemode-host``: handshake, requests, delegates, the order of frames.

Speaks Codex's code-mode host protocol, version 1 as Codex 0.171's host speaks it, over
two asyncio streams. Every message is built by its constructor in :mod:`codemode.wire.messages`
(the definitions the client shares) and framed by :func:`codemode.wire.framing.encode_frame_parts`,
whose payload is valid UTF-8 whatever a string holds. Host-side rules and limits, as in
Codex's host: request ids may not repeat
while active or among the last 4096 finished (fatal), session ids may not be reopened or
reused, at most 256 requests in flight, 128 active cells and 1024 pending delegate
calls (each answered with an error; the connection stays).

Fatal problems (a frame that does not decode or does not match the schema, decoded by
:mod:`codemode.runtime.validate`; a duplicate request id; a second hello) raise
:class:`FatalConnectionError`; ``runtime/stdio.py`` prints Codex's text on stderr
(``Error: failed to read code-mode client hello`` for the first frame, ``... client
message`` for later ones, ``Error: duplicate code-mode request ID RequestId(1)``) and
the host exits 1.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
from collections.abc import Callable
from typing import Any, assert_never

from codemode.runtime import profile
from codemode.runtime.bindings import list_bindings
from codemode.runtime.delegates import DelegateTable
from codemode.runtime.errors import READING_HELLO, READING_MESSAGE, FatalConnectionError, HelloNotWritten, ProtocolError
from codemode.runtime.host_session import HostSession, LiveCell, missing_cell, runtime_response
from codemode.runtime.stdio_files import exit_process
from codemode.runtime.validate import DecodeError, decode_client_frame
from codemode.wire import messages, raw_text
from codemode.wire.frame_writer import FrameWriter
from codemode.wire.framing import (
    CAPABILITIES,
    EXIT_NOTICE_CAPABILITY,
    MAX_FRAME_BYTES,
    PROTOCOL_VERSION,
    RAW_TEXT_CAPABILITY,
    FrameEof,
    FrameError,
    FrameTooLarge,
    encode_frame_parts,
    read_payload,
    text_frame_parts,
)

log = logging.getLogger(__name__)

MAX_IN_FLIGHT_REQUESTS = 256
MAX_ACTIVE_CELLS = 128
MAX_RECENT_IDS = 4096
FALLBACK_EXIT_STATUS = 3
"""Exit status of a host that exited because a cell could not be stopped."""
FALLBACK_FLUSH_TIMEOUT_S = 5.0
"""How long an exiting host waits for the client to read its last frames."""
NEGATIVE_OUTPUT_TOKENS = "invalid code-mode execute request: number too small to fit in target type"
"""Codex's answer to an execute whose ``max_output_tokens`` is negative (a valid ``i32``)."""


class _Recent:
    """A bounded set remembering the most recent ids (oldest forgotten first)."""

    def __init__(self, limit: int) -> None:
        self._items: collections.OrderedDict[Any, None] = collections.OrderedDict()
        self._limit = limit

    def add(self, item: Any) -> None:
        self._items[item] = None
        self._items.move_to_end(item)
        while len(self._items) > self._limit:
            self._items.popitem(last=False)

    def __contains__(self, item: Any) -> bool:
        return item in self._items


class Connection:
    """One client connection: sessions, in-flight requests and delegate calls."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self.frames = FrameWriter(writer)
        """Where frames go (coalesced per loop iteration, :mod:`codemode.wire.frame_writer`)."""
        self.sessions: dict[str, HostSession] = {}
        self._recent_sessions = _Recent(MAX_RECENT_IDS)
        self._active_requests: dict[int, asyncio.Task[None]] = {}
        self._recent_requests = _Recent(MAX_RECENT_IDS)
        self.observing: dict[int, LiveCell] = {}
        self._early_yields: set[int] = set()
        """Requests whose ``operation/yield`` came before their observation began."""
        self._delegates = DelegateTable(self.send, self.send_text)
        self._exit_reason: str | None = None
        self._granted: list[str] = []
        self._raw_texts = False
        self._silent = False
        self._answered: set[int] = set()

    # ---- output ----------------------------------------------------------------

    def send(self, message: messages.HostFrame) -> None:
        """Write one frame. Raises :class:`FrameTooLarge` for an oversized message.

        Nothing is written once the connection is ending (:meth:`serve` left its loop).
        """
        parts = raw_text.frames(message) if self._raw_texts else None  # type: ignore[arg-type]
        if parts is None:
            parts = [encode_frame_parts(message)]
        if not self._silent:
            for header, payload in parts:
                self.frames.write_parts(header, payload)

    def send_text(self, text: str) -> None:
        """Write one frame whose payload is the JSON text ``text`` (:meth:`send` of a message
        built as text). Raises :class:`FrameTooLarge` for an oversized one."""
        header, payload = text_frame_parts(text)
        if not self._silent:
            self.frames.write_parts(header, payload)

    def _respond(self, request_id: int, result: messages.WireResult) -> None:
        try:
            self.send(messages.operation_response(request_id, result))
        except FrameTooLarge as exc:
            text = f"code-mode host response exceeds the IPC frame limit: {exc}"
            self.send(messages.operation_response(request_id, messages.error(text)))

    def _initial_response(self, request_id: int, response: messages.WireRuntimeResponse) -> None:
        try:
            self.send(messages.initial_response(request_id, messages.ok(response)))
        except FrameTooLarge as exc:
            text = f"code-mode initial response exceeds the IPC frame limit: {exc}"
            self.send(messages.initial_response(request_id, messages.error(text)))

    def cell_closed(self, session: HostSession, cell: LiveCell) -> None:
        """Send ``cell/closed`` for ``cell``."""
        self.send(messages.cell_closed(session.session_id, cell.cell_id))

    # ---- delegates (runtime/delegates.py) ----------------------------------------------

    def delegate_tool(
        self, cell: LiveCell, index: int, runtime_tool_call_id: str, input_json: str, via_ended: str | None = None
    ) -> None:
        """Send a ``tool/invoke`` delegate request; the answer settles the JS promise."""
        self._delegates.tool(cell, index, runtime_tool_call_id, input_json, via_ended)

    def delegate_notify(self, cell: LiveCell, text: str) -> None:
        """Send a ``notification/send`` delegate request (its answer is only logged)."""
        self._delegates.notify(cell, text)

    def cancel_delegate(self, delegate_id: int) -> None:
        """Send ``delegate/cancel``; a late answer is then ignored."""
        self._delegates.cancel(delegate_id)

    # ---- fallback ------------------------------------------------------------------

    def schedule_fallback_exit(self, reason: str) -> None:
        """A cell could not be stopped in-process: the host exits once the terminate is answered.

        ``reason`` names the cell. The terminate that found the cell still running sends
        ``host/exiting`` first (when the client was granted codemode's
        ``codemode-host-exit-notice-v1``), then its answer, flushes and exits
        (:meth:`_exit_after_answer`); the client closes every live cell once and starts a
        new host.
        """
        log.error("%s; exiting the host so the client can start a new one", reason)
        if self._exit_reason is None:
            self._exit_reason = reason

    def _announce_exit(self) -> None:
        """``host/exiting`` with the reason, for a client granted the exit notice."""
        if self._exit_reason is None or EXIT_NOTICE_CAPABILITY not in self._granted:
            return
        self.send(
            messages.host_exiting(
                f"{self._exit_reason}; the code-mode host is exiting so the client can start a new one"
            )
        )

    async def _exit_after_answer(self) -> None:  # pragma: no cover - ends the process
        """Write out everything queued (the terminate's answer last), then end the process."""
        self._silent = True  # nothing after the answer
        transport = self._writer.transport
        try:
            transport.set_write_buffer_limits(high=0)  # drain() now waits for an empty buffer
            async with asyncio.timeout(FALLBACK_FLUSH_TIMEOUT_S):
                await self.frames.drain()  # also a large frame a thread still writes
        except (ConnectionError, BrokenPipeError, TimeoutError, RuntimeError):
            pass
        finally:
            exit_process(FALLBACK_EXIT_STATUS)

    # ---- main loop -------------------------------------------------------------

    async def _read(self, context: str) -> messages.ClientMessage | None:
        """The next client message, decoded (None at EOF between frames). A frame that
        cannot be read or decoded raises :class:`FatalConnectionError` with ``context``
        and Codex's cause (``early eof`` for input that ends inside a frame)."""
        try:
            payload = await read_payload(self._reader)
        except FrameEof:
            raise FatalConnectionError("early eof", context) from None
        except FrameError as exc:
            raise FatalConnectionError(str(exc), context) from None
        if payload is None:
            return None
        try:
            return decode_client_frame(payload)
        except DecodeError as exc:
            raise FatalConnectionError(f"failed to decode code-mode IPC frame: {exc}", context) from None

    async def handshake(self) -> bool:
        """Answer ``connection/hello``; False when the connection must end (status 0).

        A first frame that does not decode ends the host (status 1); one that decodes but
        is no hello, offers no version 1 or requires a capability this host lacks is
        answered ``connection/rejected``, as Codex's host answers them."""
        hello = await self._read(READING_HELLO)
        if hello is None:
            return False
        if hello["type"] != "connection/hello":  # any other message first is refused
            self.send(messages.rejected({"type": "invalidHello", "message": "first message must be connection/hello"}))
            return False
        versions = hello["supportedVersions"]
        required = hello["requiredCapabilities"]
        optional = hello["optionalCapabilities"]
        if PROTOCOL_VERSION not in versions:
            self.send(messages.rejected({"type": "noCompatibleVersion", "supportedVersions": [PROTOCOL_VERSION]}))
            return False
        for capability in required:
            if capability not in CAPABILITIES or (
                capability == messages.BINDINGS_CAPABILITY and not profile.notebook()
            ):
                self.send(messages.rejected({"type": "missingRequiredCapability", "capability": capability}))
                return False
        offered = [c for c in CAPABILITIES if profile.notebook() or c != messages.BINDINGS_CAPABILITY]
        granted = [c for c in offered if c in required or c in optional]
        self._granted = granted
        self._raw_texts = RAW_TEXT_CAPABILITY in granted
        self.send(messages.ready(PROTOCOL_VERSION, granted))
        try:
            await self.frames.drain()  # at once: nothing else waits in the pipe
        except ConnectionError as exc:  # BrokenPipeError among them
            raise HelloNotWritten from exc
        if self.frames.failure is not None:
            raise HelloNotWritten
        return True

    async def serve(self) -> None:
        """Run until EOF or ``session/shutdown`` of everything; raises on fatal errors."""
        if not await self.handshake():
            await self._flush()
            return
        try:
            while True:
                message = await self._read(READING_MESSAGE)
                if message is None:
                    break
                # No drain here: a client slow to read a cell's frames must not hold up its
                # requests (a terminate); what a cell can put ahead of them is bounded
                # (runtime/events.py), and each request's task drains after answering.
                self._dispatch(message)
        finally:
            # The client is gone or the connection failed: stop every cell quietly.
            self._silent = True
            for task in list(self._active_requests.values()):
                task.cancel()
            for session in list(self.sessions.values()):
                session.stop_all()

    async def _flush(self) -> None:
        try:
            await self.frames.drain()
        except (ConnectionError, BrokenPipeError):
            pass

    def _dispatch(self, message: messages.ClientMessage) -> None:
        """Act on one decoded message (:func:`~codemode.runtime.validate.decode_client_frame`)."""
        match message["type"]:
            case "operation/request":
                request_id = message["id"]
                request = message["request"]
                if request_id in self._active_requests or request_id in self._recent_requests:
                    raise FatalConnectionError(f"duplicate code-mode request ID RequestId({request_id})", None)
                if len(self._active_requests) >= MAX_IN_FLIGHT_REQUESTS:
                    self._respond(request_id, messages.error("code-mode host has too many in-flight requests"))
                    self._recent_requests.add(request_id)
                    return
                task = asyncio.create_task(self._run_request(request_id, request))
                task.codemode_method = request["method"]  # type: ignore[attr-defined]
                task.add_done_callback(functools.partial(self._request_done, request_id=request_id))
                self._active_requests[request_id] = task
            case "delegate/response":
                self._delegates.on_response(message)
            case "operation/yield":
                cell = self.observing.get(message["id"])
                if cell is not None:
                    cell.yield_now()
                elif message["id"] in self._active_requests:
                    # Read in the same batch as its request, whose task has not run yet: the
                    # yield applies once the observation begins (observation_began).
                    self._early_yields.add(message["id"])
            case "operation/cancel":
                self._cancel_request(message["id"])
            case "session/storedValues":
                # Values the client kept, one a frame, after session/open and before any execute
                # that may load them: applied here, in the order the frames came.
                session = self.sessions.get(message["sessionId"])
                if session is None:
                    log.warning("stored values for unknown code-mode session %r dropped", message["sessionId"][:80])
                else:
                    session.seed(message["values"])
            case "connection/hello":
                raise FatalConnectionError("received a second code-mode client hello", None)
            case unknown:
                assert_never(unknown)

    def _responder(
        self, request_id: int, session: HostSession, cell: LiveCell, *, initial: bool
    ) -> Callable[[messages.WireRuntimeResponse], None]:
        """What writes the answer of an execute (``initial``) or wait when its observation ends.

        It runs in the loop callback that ended the observation, so the answer keeps its
        place among the cell's frames; a final answer is followed by ``cell/closed``.
        """

        def respond(response: messages.WireRuntimeResponse) -> None:
            self.observing.pop(request_id, None)
            self._answered.add(request_id)
            if initial:
                self._initial_response(request_id, response)
            else:
                self._respond(request_id, messages.ok(messages.wait_completed(messages.live_cell(response))))
            if "Yielded" not in response:
                session.close_cell(cell)

        return respond

    def _cancel_request(self, request_id: int) -> None:
        """``operation/cancel``: a pending wait answers ``code-mode request cancelled``.

        Aimed at an execute it has no visible effect (0.171 ``operation_cancel_execute``);
        a wait whose answer is already written is not cancelled.
        """
        task = self._active_requests.get(request_id)
        if task is None or getattr(task, "codemode_method", None) != "session/wait":
            return
        if request_id in self._answered:
            return
        task.cancel()

    def observation_began(self, request_id: int, cell: LiveCell) -> None:
        """Request ``request_id`` (an execute or a wait) now observes ``cell``. An
        ``operation/yield`` for it read before this (in the same read batch as the request,
        whose task had not run) ends the observation at once, as it would have a moment later:
        the client's yield is never lost to the order of the host's tasks."""
        self.observing[request_id] = cell
        if request_id in self._early_yields:
            self._early_yields.discard(request_id)
            cell.yield_now()

    def _request_done(self, task: asyncio.Task[None], request_id: int) -> None:
        """Bookkeeping when a request task ends; a cancelled wait is answered here."""
        self._active_requests.pop(request_id, None)
        self._early_yields.discard(request_id)
        self._recent_requests.add(request_id)
        answered = request_id in self._answered
        self._answered.discard(request_id)
        if task.cancelled() and not answered and getattr(task, "codemode_method", None) == "session/wait":
            try:
                self._respond(request_id, messages.error("code-mode request cancelled"))
            except (ConnectionError, RuntimeError):
                pass

    async def _run_request(self, request_id: int, request: messages.RequestBody) -> None:
        method = request["method"]
        try:
            await self._handle(request_id, request)
        except ProtocolError as exc:
            self._respond(request_id, messages.error(str(exc)))
        except FatalConnectionError:
            raise
        except Exception as exc:  # noqa: BLE001 - one request must not end the host
            log.exception("request %s (%s) failed", request_id, method)
            self._respond(request_id, messages.error(f"code-mode host request failed: {exc}"))
        finally:
            self._active_requests.pop(request_id, None)
            self._recent_requests.add(request_id)
            await self._flush()

    def _session(self, session_id: str) -> HostSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise ProtocolError(f"unknown code-mode session {session_id}")
        return session

    async def _handle(self, request_id: int, request: messages.RequestBody) -> None:
        match request["method"]:
            case "session/open":
                self._open(request_id, request)
            case "session/execute":
                await self._execute(request_id, request)
            case "session/wait":
                await self._wait(request_id, request)
            case "session/terminate":
                await self._terminate(request_id, request)
            case "session/bindings":
                session = self._session(request["sessionId"])
                self._respond(request_id, messages.ok(await list_bindings(session.realm, request)))
            case "session/shutdown":
                session_id = request["sessionId"]
                session = self._session(session_id)
                session.stop_all()
                del self.sessions[session_id]
                self._respond(request_id, messages.ok(messages.session_closed(session_id)))
            case unknown:  # decode_client_frame refuses an unknown method
                assert_never(unknown)

    def _open(self, request_id: int, request: messages.OpenBody) -> None:
        session_id = request["sessionId"]
        if session_id in self.sessions:
            raise ProtocolError(f"code-mode session ID `{session_id}` is already open")
        if session_id in self._recent_sessions:
            raise ProtocolError(f"code-mode session ID `{session_id}` was reused")
        limits = request.get("cellExecutionLimits") or {}
        self.sessions[session_id] = HostSession(
            self,
            session_id,
            max_yield_time_ms=limits.get("maxYieldTimeMs"),
            max_heap_size_bytes=limits.get("maxHeapSizeBytes"),
            output_truncation=request.get("outputTruncation"),
            stored_values=request.get("storedValues"),
            cell_id_prefix=request.get("cellIdPrefix") or "",
        )
        self._recent_sessions.add(session_id)
        self._respond(request_id, messages.ok(messages.session_ready(session_id)))

    async def _execute(self, request_id: int, request: messages.ExecuteBody) -> None:
        session = self._session(request["sessionId"])
        body = request["request"]
        if (body.get("max_output_tokens") or 0) < 0:
            raise ProtocolError(NEGATIVE_OUTPUT_TOKENS)
        active = sum(len(s.cells) for s in self.sessions.values())
        if active >= MAX_ACTIVE_CELLS:
            raise ProtocolError("code-mode host has too many active cells")
        cell = session.new_cell(body)
        self._respond(request_id, messages.ok(messages.execution_started(cell.cell_id)))
        await self._flush()
        respond = self._responder(request_id, session, cell, initial=True)
        future = session.begin_observe(
            cell, body.get("yield_time_ms"), body.get("max_output_tokens"), request_id, respond, take_when_full=True
        )
        assert cell.runtime is not None
        cell.runtime.start()
        await session.finish_observe(cell, future, request_id)

    async def _wait(self, request_id: int, request: messages.WaitBody) -> None:
        session = self._session(request["sessionId"])
        body = request["request"]
        cell_id = str(body["cell_id"])
        waited = session.cells.get(cell_id)
        if waited is None or waited.closed:
            self._respond(request_id, messages.ok(messages.wait_completed(missing_cell(cell_id))))
            return
        respond = self._responder(request_id, session, waited, initial=False)
        future = session.begin_observe(
            waited, body.get("yield_time_ms"), request.get("maxOutputTokens"), request_id, respond
        )
        await session.finish_observe(waited, future, request_id)

    async def _terminate(self, request_id: int, request: messages.TerminateBody) -> None:
        session = self._session(request["sessionId"])
        outcome, stopped = await session.terminate(str(request["cellId"]), request.get("maxOutputTokens"))
        self._announce_exit()
        self._respond(request_id, messages.ok(messages.wait_completed(outcome)))
        if stopped is not None:
            session.close_cell(stopped)
        if self._exit_reason is not None:
            await self._exit_after_answer()


__all__ = ["Connection", "FatalConnectionError", "MAX_FRAME_BYTES", "FrameError", "runtime_response"]
