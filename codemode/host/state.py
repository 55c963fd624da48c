"""The state of one host connection and every transition of it, as plain function calls.

:class:`ConnectionState` takes what happens (a host message, a caller going away, a session
shut down, the connection failing) and returns the :mod:`~codemode.host.effects` to apply;
it does no I/O and never awaits. The rules (Codex's client driver,
``codex-rs/code-mode/src/remote_session/connection``):

- responses are matched to requests by id; an answer naming another cell than the request,
  an unknown id, or a message of the wrong shape fails the connection (its caller gets the
  violation's text);
- an execute admits a cell (``execution/started``) before its initial response arrives;
  ``cell/closed`` is reported once per cell;
- abandonment: a caller that went away is cleaned up after on the wire (an admitted execute
  is cancelled and its cell terminated; a wait is cancelled and the next wait on that cell
  waits until the host answered the cancelled one);
- what the host reports about a cell becomes a :class:`~codemode.host.effects.Report` of its
  event (:mod:`codemode.cell_events`) in the transition that reads the frame, so the
  cell's events keep the order of the host's frames: an initial response, a wait or
  terminate answer whose caller still waits, a ``tool/invoke`` (before the call is served),
  a ``notification/send`` (answered at once), ``cell/closed``;
- delegate requests for a cell an execute in flight may still admit are deferred (at most
  1024, else the connection fails) and forwarded in order once it is admitted; at most 1024
  calls are served at once; ``delegate/cancel`` and a closed cell revoke calls at once;
- failing (once): every caller gets the reason, every live cell is reported closed once,
  every delegate call is revoked, and the host is killed;
- ``host/exiting`` (codemode's exit notice) marks the connection retiring: answers still
  arrive, but no new cell starts on it.
"""

from __future__ import annotations

import logging
from typing import Any, assert_never

from codemode.cell_events import (
    Closed,
    InitialAnswer,
    Notification,
    StoredValuesCommitted,
    TerminateAnswer,
    ToolInvoked,
    WaitAnswer,
)
from codemode.errors import CodeModeError
from codemode.host import incoming
from codemode.host.delegate_book import MAX_PENDING_DELEGATE_CALLS, DeferredDelegateRequest, DelegateBook
from codemode.host.effects import (
    Admitted,
    Effect,
    HostExiting,
    InitialReject,
    InitialResolve,
    Kill,
    Reject,
    Report,
    Resolve,
    Revoke,
    Send,
    ServeDelegate,
    Settle,
    TerminateAbandoned,
)
from codemode.host.incoming import Violation
from codemode.host.remote_sessions import RemoteSession, SessionDelegate, SessionRegistry
from codemode.host.request_tracker import PendingRequest, RequestKind, RequestTracker
from codemode.wire import messages
from codemode.wire.frame_json import well_formed
from codemode.wire.messages import DelegateRequest

logger = logging.getLogger("codemode.host")


class ConnectionState:
    """See the module docstring. ``alive`` turns False once (:meth:`fail`); ``failure`` is
    then the reason; ``retiring`` is the exit notice's reason once the host sent one."""

    def __init__(self) -> None:
        self.requests = RequestTracker()
        self.sessions = SessionRegistry()
        self.delegates = DelegateBook()
        self.alive = True
        self.failure: str | None = None
        self.failed_idle = False
        """The connection failed while no cell the host started was live or owed its initial
        response and no ``session/open`` awaited the host: no started cell was lost, so nobody
        was told of a loss (:meth:`fail`). An execute the host had not acknowledged
        (no ``execution/started`` read) started no cell: its caller may send it to a new host."""
        self.retiring: str | None = None

    # -- the callers' side ------------------------------------------------------------------
    def require_session(self, session_id: str) -> RemoteSession:
        """The open session; ``unknown code-mode session <id>`` when it is not open or closing."""
        session = self.sessions.open(session_id)
        if session is None:
            raise CodeModeError(f"unknown code-mode session {session_id}")
        return session

    def add_session(self, session_id: str, delegate: SessionDelegate) -> RemoteSession:
        """Register a session being opened (its delegate requests are served from now on)."""
        if session_id in self.sessions:
            raise CodeModeError(f"code-mode session {session_id} is already open")
        session = RemoteSession(session_id, delegate)
        self.sessions.add(session)
        return session

    def open_failed(self, session_id: str) -> None:
        """``session/open`` failed: forget the session unless a cell of it is live."""
        session = self.sessions.get(session_id)
        if session is not None and not session.live_cells:
            self.sessions.remove(session)

    def begin(self, kind: RequestKind, session_id: str, cell_id: str | None = None) -> PendingRequest:
        return self.requests.begin(kind, session_id, cell_id)

    def abandon(self, pending: PendingRequest) -> list[Effect]:
        """The caller of ``pending`` went away: what to send so the host does not keep work for
        nobody (an admitted execute: cancel + terminate; a wait: cancel, and hold back the
        next wait on that cell until the host answered)."""
        pending.abandoned = True
        if pending.answer == "error":
            return []  # answered with an error: nothing left to clean up
        request_id = pending.request_id
        if not pending.sent:
            self.requests.pending.pop(request_id, None)
            return [Settle(request_id)]
        if not self.alive:
            return []
        effects: list[Effect] = []
        if pending.kind == "execute":
            if pending.answer == "ok" and pending.admitted_cell is not None:
                # Delivered but never taken by the caller: the cell is ours to stop.
                if request_id in self.requests.initial:
                    effects.append(Send(messages.operation_cancel(request_id)))
                effects.append(TerminateAbandoned(pending.session_id, pending.admitted_cell))
            else:
                # The started answer terminates the cell if the host admits it after all.
                effects.append(Send(messages.operation_cancel(request_id)))
        elif pending.kind == "wait" and pending.answer is None:
            effects.append(Send(messages.operation_cancel(request_id)))
            if pending.cell_id is not None:
                self.requests.retiring[(pending.session_id, pending.cell_id)] = pending
        return effects

    def yield_wait(self, session_id: str, cell_id: str) -> list[Effect]:
        """``operation/yield`` for the wait in flight on the cell (none: no effect)."""
        pending = self.requests.in_flight_wait(session_id, cell_id)
        return [] if pending is None else [Send(messages.operation_yield(pending.request_id))]

    def begin_shutdown(self, session_id: str) -> RemoteSession | None:
        session = self.sessions.get(session_id)
        if session is not None:
            session.closing = True
        return session

    def finish_shutdown(self, session: RemoteSession) -> list[Effect]:
        """After ``session/shutdown`` (answered or not): forget the session, report its live cells
        closed, answer its deferred delegate requests."""
        self.sessions.remove(session)
        effects = self._close_cells(session)
        effects += self._release_deferred(session.session_id)
        return effects

    def delegate_finished(self, delegate_id: int) -> None:
        call = self.delegates.served.get(delegate_id)
        if call is not None:
            self.delegates.finished(call)

    # -- the host's side ----------------------------------------------------------------------
    def on_message(self, message: object) -> list[Effect]:
        """One message from the host, as read from its frame (decoded here,
        :func:`codemode.host.incoming.decode`). A protocol violation fails the connection."""
        effects: list[Effect] = []
        try:
            self._dispatch(incoming.decode(message), effects)
        except Violation as exc:
            effects += self.fail(str(exc))
        return effects

    def _dispatch(self, message: messages.HostMessage, effects: list[Effect]) -> None:
        match message["type"]:
            case "operation/response":
                self._on_response(message, effects)
            case "execute/initialResponse":
                self._on_initial(message, effects)
            case "delegate/request":
                self._on_delegate(message, effects)
            case "delegate/cancel":
                call = self.delegates.cancel(message["id"])
                if call is not None:
                    effects.append(Revoke(call.delegate_id))
            case "cell/closed":
                session = self.sessions.get(message["sessionId"])
                if session is not None and message["cellId"] in session.live_cells:
                    effects += self._close_cell(session, message["cellId"])
            case "session/storedValues":
                session = self.sessions.get(message["sessionId"])
                if session is not None:
                    effects.append(Report(session, StoredValuesCommitted(message["values"])))
            case "host/exiting":
                if self.retiring is None:
                    self.retiring = message["reason"]
                    effects.append(HostExiting(message["reason"]))
            case unknown:
                assert_never(unknown)

    def _on_response(self, message: messages.OperationResponse, effects: list[Effect]) -> None:
        request_id = message["id"]
        pending = self.requests.take(request_id)
        if pending is None:
            raise Violation(f"code-mode host answered unknown request ID {request_id!r}")
        effects.append(Settle(pending.request_id))
        try:
            self._on_answer(pending, message["result"], effects)
        except Violation as exc:
            effects.append(self._reject(pending, str(exc)))
            raise

    def _on_answer(self, pending: PendingRequest, result: object, effects: list[Effect]) -> None:
        if pending.kind == "probe":
            effects.append(self._resolve(pending, None))  # any answer shows the host is alive
            return
        checked = incoming.parse_result(result, pending.kind)
        if checked["status"] == "error":
            effects.append(self._reject(pending, checked["message"]))
            if pending.kind == "execute":
                effects += self._release_deferred(pending.session_id)
            return
        value = checked["value"]
        if not isinstance(value, dict):
            raise Violation(f"code-mode host returned an invalid {pending.kind} response")
        match pending.kind:
            case "execute":
                self._on_started(pending, value, effects)
            case "wait" | "terminate":
                outcome = incoming.parse_wait_completed(value, pending.kind)
                # The request's id went out as every frame does (lone surrogates as U+FFFD).
                if outcome.response.cell_id != well_formed(pending.cell_id or ""):
                    raise Violation(
                        f"code-mode host returned cell {outcome.response.cell_id} for request targeting {pending.cell_id}"
                    )
                session = self.sessions.get(pending.session_id)
                if session is not None and pending.cell_id is not None and not pending.abandoned:
                    answer = WaitAnswer if pending.kind == "wait" else TerminateAnswer
                    effects.append(Report(session, answer(pending.cell_id, outcome)))
                effects.append(self._resolve(pending, outcome))
            case "bindings":
                try:
                    effects.append(self._resolve(pending, messages.parse_bindings_listed(value)))
                except messages.MessageError as exc:
                    raise Violation(f"code-mode host returned an invalid bindings response: {exc}") from None
            case "open" if value.get("type") != "session/ready":
                text = f"code-mode host returned an invalid open response: {value!r}"
                effects += self.fail(text)
                pending.answer = "error"
                effects.append(Reject(pending.request_id, text, connection_error=True))
            case "open" | "shutdown":
                effects.append(self._resolve(pending, value))
            case unknown:
                assert_never(unknown)

    def _on_started(self, pending: PendingRequest, value: object, effects: list[Effect]) -> None:
        cell_id = incoming.parse_execution_started(value)["cellId"]
        session = self.sessions.get(pending.session_id)
        if session is None:
            raise Violation(f"code-mode host started cell {cell_id} for a closed session")
        if cell_id in session.live_cells:
            raise Violation(f"code-mode host reused live cell {cell_id}")
        session.live_cells.add(cell_id)
        self.requests.initial[pending.request_id] = (pending.session_id, cell_id)
        deliver = not pending.abandoned and pending.answer is None
        pending.admitted_cell = cell_id
        pending.answer = "ok"
        effects.append(Admitted(pending.request_id, cell_id, deliver))
        if not deliver:
            effects.append(TerminateAbandoned(pending.session_id, cell_id))
        effects += self._release_deferred(pending.session_id)

    def _on_initial(self, message: messages.InitialResponse, effects: list[Effect]) -> None:
        rid = message["id"]
        entry = self.requests.initial.pop(rid, None)
        if entry is None:
            raise Violation(f"code-mode host sent an initial response for unknown request ID {rid!r}")
        try:
            response = incoming.parse_initial(message["result"])
            if isinstance(response, str):
                effects.append(InitialReject(rid, response))
                return
            if response.cell_id != entry[1]:
                raise Violation(
                    f"code-mode host returned initial response for cell {response.cell_id} instead of {entry[1]}"
                )
        except Violation as exc:
            effects.append(InitialReject(rid, str(exc)))
            raise
        session = self.sessions.get(entry[0])
        if session is not None:
            effects.append(Report(session, InitialAnswer(entry[1], response)))
        effects.append(InitialResolve(rid, response))

    def _on_delegate(self, request: DelegateRequest, effects: list[Effect]) -> None:
        delegate_id = request["id"]
        if self.delegates.seen(delegate_id):
            raise Violation(f"duplicate code-mode delegate request ID {delegate_id}")
        self.delegates.remember(delegate_id)
        cell_id = incoming.delegate_cell(request)
        session_id = request["sessionId"]
        session = self.sessions.open(session_id)
        if session is None:
            effects.append(
                self._delegate_error(delegate_id, f"code-mode host delegated for unknown session {session_id}")
            )
            return
        if cell_id not in session.live_cells and self.requests.execute_pending(session_id):
            # The cell may be the one an execute in flight is about to admit.
            if not self.delegates.deferrable():
                raise Violation("code-mode host exceeded deferred cross-socket message limit")
            self.delegates.deferred.append(DeferredDelegateRequest(delegate_id, session_id, cell_id, request))
            return
        effects += self._dispatch_delegate(delegate_id, session, cell_id, request)

    def _dispatch_delegate(
        self, delegate_id: int, session: RemoteSession, cell_id: str, request: DelegateRequest
    ) -> list[Effect]:
        """A delegate request of an admitted cell: a notification is reported and answered at
        once; a tool call is reported (its first event) and then served."""
        if cell_id not in session.live_cells:
            text = f"code-mode host delegated for unknown cell {cell_id} in session {session.session_id}"
            return [self._delegate_error(delegate_id, text)]
        asked = request["request"]
        if asked["type"] == "notification/send":
            delivered = messages.delegate_response(delegate_id, messages.notification_delivered())
            return [Report(session, Notification(cell_id, asked["text"])), Send(delivered)]
        if not self.delegates.has_room():
            text = f"code-mode host exceeded the limit of {MAX_PENDING_DELEGATE_CALLS} pending delegate calls"
            return [self._delegate_error(delegate_id, text)]
        self.delegates.serve(delegate_id, session.session_id, cell_id)
        return [
            Report(session, ToolInvoked(cell_id, asked["invocation"])),
            ServeDelegate(delegate_id, session, cell_id, request),
        ]

    def _release_deferred(self, session_id: str) -> list[Effect]:
        """Forward, in arrival order, the deferred requests of ``session_id`` whose cell is now
        admitted; answer those that can no longer be admitted with the unknown-cell error (or the
        unknown-session one when the session is gone)."""
        session = self.sessions.open(session_id)
        still_possible = session is not None and self.requests.execute_pending(session_id)

        def keep(deferred: DeferredDelegateRequest) -> bool:
            return still_possible and session is not None and deferred.cell_id not in session.live_cells

        effects: list[Effect] = []
        for deferred in self.delegates.release(session_id, keep):
            if session is None:
                text = f"code-mode host delegated for unknown session {session_id}"
                effects.append(self._delegate_error(deferred.delegate_id, text))
            else:
                effects += self._dispatch_delegate(deferred.delegate_id, session, deferred.cell_id, deferred.request)
        return effects

    # -- cells, answers, failure ----------------------------------------------------------------
    def _close_cell(self, session: RemoteSession, cell_id: str) -> list[Effect]:
        session.live_cells.discard(cell_id)
        # The cell is gone: calls still in flight for it will never be awaited by the host.
        effects: list[Effect] = [Revoke(c.delegate_id) for c in self.delegates.take_cell(session.session_id, cell_id)]
        effects.append(Report(session, Closed(cell_id)))
        return effects

    def _close_cells(self, session: RemoteSession) -> list[Effect]:
        effects: list[Effect] = []
        for cell_id in session.sorted_cells():
            effects += self._close_cell(session, cell_id)
        return effects

    @staticmethod
    def _resolve(pending: PendingRequest, value: Any) -> Effect:
        pending.answer = "ok"
        return Resolve(pending.request_id, value)

    @staticmethod
    def _reject(pending: PendingRequest, reason: str) -> Effect:
        pending.answer = "error"
        return Reject(pending.request_id, reason)

    @staticmethod
    def _delegate_error(delegate_id: int, text: str) -> Effect:
        return Send(messages.delegate_response(delegate_id, messages.error(text)))

    def fail(self, reason: str) -> list[Effect]:
        """Mark the connection dead (once; later calls return no effect): every caller and every
        expected initial response gets the reason, every delegate call is revoked, every live
        cell is reported closed once (sessions and cells in order), the host is killed.
        :attr:`failed_idle` records whether none of that concerned a started cell or an open:
        an execute still in :attr:`requests` ``.pending`` was never admitted (an admitted one
        has left it for ``.initial``), whether or not it was written to the host."""
        if not self.alive:
            return []
        self.alive = False
        self.failure = reason
        self.failed_idle = not (
            self.requests.initial
            or any(p.kind == "open" for p in self.requests.pending.values())
            or any(session.live_cells for session in self.sessions)
        )
        pending, initial = self.requests.clear()
        effects: list[Effect] = []
        for request in pending:
            request.answer = request.answer or "error"
            effects += [Reject(request.request_id, reason, connection_error=True), Settle(request.request_id)]
        effects += [InitialReject(request_id, reason, connection_error=True) for request_id in initial]
        effects += [Revoke(call.delegate_id) for call in self.delegates.take_all()]
        for session in self.sessions.clear():
            effects += self._close_cells(session)
        effects.append(Kill())
        return effects
