"""The asyncio side of one cell: its output buffer and its observer.

A :class:`LiveCell` buffers the items its runtime emits and has at most one observer at
a time (Codex: ``exec cell <id> already has an active observer``). An observer ends with
the first of: its yield timer (``Yielded`` with everything buffered), ``yield_control()``
or ``operation/yield`` (``Yielded`` at once), for an execute's observation a full output
window (``Yielded`` at once: the cell waits until a response takes its output, see
:data:`~codemode.runtime.events.MAX_BUFFERED_OUTPUT`), natural completion (``Result``) or
termination (``Terminated``). A completion nobody observes stays buffered for the next
wait or terminate. Pending tool calls get ``delegate/cancel`` when the cell ends.

What a cell needs from its session and connection is named by the small protocols
:class:`SessionPort` and :class:`ConnectionPort`, so this module imports neither.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, Protocol

from codemode.runtime.cellstate import CellState
from codemode.runtime.errors import ProtocolError
from codemode.runtime.events import item_cost
from codemode.runtime.outcome import CellOutcome
from codemode.wire import messages
from codemode.wire.messages import WireRuntimeResponse, WireWaitOutcome
from codemode.wire.truncation import DEFAULT_MAX_OUTPUT_TOKENS, truncate_content_items

DEFAULT_YIELD_TIME_MS = 10_000
"""``DEFAULT_EXEC_YIELD_TIME_MS`` / ``DEFAULT_WAIT_YIELD_TIME_MS``."""
MIN_YIELD_TIME_FOR_GRACE_MS = 10_000
YIELD_GRACE_MS = 1_000


class CellControl(Protocol):
    """What the asyncio side drives of a cell's runtime: the strict profile's
    :class:`~codemode.runtime.cell.CellRuntime` or the notebook realm's
    :class:`~codemode.runtime.realm.RealmCell`, each holding the cell's :attr:`state`."""

    state: CellState

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def deliver_tool_result(self, runtime_tool_call_id: str, ok: bool, value: Any) -> None: ...


class ConnectionPort(Protocol):
    """What a cell asks of the connection: delegate calls and frames."""

    def send(self, message: messages.HostFrame) -> None: ...

    def delegate_tool(
        self, cell: LiveCell, index: int, runtime_tool_call_id: str, input_json: str, via_ended: str | None = None
    ) -> None: ...

    def delegate_notify(self, cell: LiveCell, text: str) -> None: ...

    def cancel_delegate(self, delegate_id: int) -> None: ...


class SessionPort(Protocol):
    """What a cell asks of its session."""

    @property
    def session_id(self) -> str: ...

    @property
    def output_truncation(self) -> str: ...

    @property
    def cell_id_prefix(self) -> str: ...

    @property
    def connection(self) -> ConnectionPort: ...

    def commit(self, cell: LiveCell, writes: dict[str, str]) -> None: ...


def effective_yield_ms(requested: int | None, session_max: int | None) -> int:
    """Observation timeout in ms (Codex's ``DEFAULT_EXEC_YIELD_TIME_MS`` rules).

    ``None`` means 10 000; requests of 10 000 ms or more get 1 000 ms of grace; the
    session's ``maxYieldTimeMs`` clamps the result.
    """
    value = DEFAULT_YIELD_TIME_MS if requested is None else int(requested)
    if value >= MIN_YIELD_TIME_FOR_GRACE_MS:
        value += YIELD_GRACE_MS
    if session_max is not None:
        value = min(value, int(session_max))
    return max(0, value)


def runtime_response(
    kind: messages.ResponseKind, cell_id: str, items: list[dict[str, Any]], error_text: str | None, started_ns: int
) -> WireRuntimeResponse:
    """A runtime response with the host's timing fields, as Codex's host writes them:
    ``code_mode_host_duration_ns`` (since ``started_ns``, a ``time.monotonic_ns()``) on every
    kind, and ``result_buffered_for_ns`` (always 0 here) on a ``Result``."""
    duration_ns = max(0, time.monotonic_ns() - started_ns)
    if kind == "Result":
        return messages.result(
            cell_id, items, error_text, result_buffered_for_ns=0, code_mode_host_duration_ns=duration_ns
        )
    if kind == "Yielded":
        return messages.yielded(cell_id, items, code_mode_host_duration_ns=duration_ns)
    return messages.terminated(cell_id, items, code_mode_host_duration_ns=duration_ns)


def missing_cell(cell_id: str) -> WireWaitOutcome:
    """``MissingCell`` outcome for an unknown or closed cell (Codex's ``exec cell <id> not found``)."""
    return {
        "MissingCell": runtime_response("Result", cell_id, [], f"exec cell {cell_id} not found", time.monotonic_ns())
    }


class Observer:
    """One pending observation: its future, yield timer, output budget and responder.

    ``respond`` writes the answer of the observing request the moment the observation
    ends, in the same loop callback as the event that ended it, so the frames follow the
    order in which the cell produced its events (a ``Yielded`` caused by
    ``yield_control()`` goes out before a later ``notify()``). ``future`` then wakes the
    request's task for its bookkeeping only. ``take_when_full`` marks an execute's
    observation, which also ends when the cell's output window is full
    (:meth:`LiveCell.on_output_full`).
    """

    def __init__(
        self,
        future: asyncio.Future[WireRuntimeResponse],
        max_output_tokens: int | None,
        started_ns: int,
        request_id: int | None,
        timer: asyncio.TimerHandle | None = None,
        respond: Callable[[WireRuntimeResponse], None] | None = None,
        take_when_full: bool = False,
    ) -> None:
        self.future = future
        self.max_output_tokens = max_output_tokens
        self.started_ns = started_ns
        self.request_id = request_id
        self.timer = timer
        self.respond = respond
        self.take_when_full = take_when_full
        self.deferred_yield_ms: int | None = None
        """The yield time of an observation begun before the cell's code began, whose timer
        starts when it does (:meth:`LiveCell.on_began`)."""


class LiveCell:
    """The asyncio-side state of a running or finished-but-unobserved cell."""

    def __init__(self, cell_id: str, session: SessionPort, tool_call_id: str, tools: list[dict[str, Any]]) -> None:
        self.cell_id = cell_id
        self.session = session
        self.tool_call_id = tool_call_id
        self.tools = tools
        self.runtime: CellControl | None = None
        self.buffer: list[dict[str, Any]] = []
        self.observer: Observer | None = None
        self.outcome: CellOutcome | None = None
        self.terminating = False
        self.closed = False
        self.thread_done = asyncio.Event()
        self.pending_tools: dict[str, int] = {}
        self.invocation_texts: dict[int, tuple[str, str]] = {}
        """Per tool index, the fixed parts of this cell's ``tool/invoke`` frames (``runtime/delegates.py``)."""
        self.began = True
        """False while the cell's engine is still being made ready (a strict cell, until its
        ``began`` event): the execute's yield timer waits for it."""

    # ---- events from the runtime thread ---------------------------------------------

    def on_item(self, item: dict[str, Any]) -> None:
        """Buffer one content item (an item of a closed cell is dropped)."""
        if not self.closed:
            self.buffer.append(item)
        elif self.runtime is not None:
            self.runtime.state.output_taken(item_cost(item))

    def on_began(self) -> None:
        """The cell's engine is ready and its code runs next: an observation begun earlier
        starts its yield timer now. The yield time is the program's time: text a cell prints
        before its first ``await`` is in its first answer, as in Codex's host (whose V8
        isolate starts in milliseconds), however long this host took to ready the engine on
        a loaded machine."""
        self.began = True
        observer = self.observer
        if observer is not None and observer.deferred_yield_ms is not None:
            delay_s, observer.deferred_yield_ms = observer.deferred_yield_ms / 1000.0, None
            observer.timer = asyncio.get_running_loop().call_later(delay_s, self.yield_now)

    def on_yield_control(self) -> None:
        """``yield_control()``: a waiting observer gets ``Yielded`` now."""
        self.yield_now()

    def on_output_full(self) -> None:
        """The cell waits for room in its output window: an execute's observation gets
        ``Yielded`` now, with the buffer, rather than at its yield timer (the cell could not go
        on until then). Codex's host, which has no such window, answers such an execute as soon
        as the cell ends, with an error once its output exceeds the 64 MiB frame.

        A wait keeps its yield time: a client following a cell with long waits (the kernel's
        observer) takes 64 MiB per wait, and so the window holds a flooding cell back instead
        of the client's memory taking all of it."""
        taking = self.observer is not None and self.observer.take_when_full
        if taking and self.runtime is not None and self.runtime.state.output_waits():
            self.yield_now()

    def on_tool_call(
        self, runtime_tool_call_id: str, index: int, input_json: str, via_ended: str | None = None
    ) -> None:
        """Send a ``tool/invoke`` delegate request for this cell (tool ``index`` of :attr:`tools`,
        its argument the JSON text ``input_json``; ``via_ended``: the ended cell whose helper
        made the call, or None)."""
        if self.closed or self.terminating or self.outcome is not None:
            return
        self.session.connection.delegate_tool(self, index, runtime_tool_call_id, input_json, via_ended)

    def on_notify(self, text: str) -> None:
        """Send a ``notification/send`` delegate request (not a content item)."""
        if self.closed or self.terminating:
            if self.runtime is not None:
                self.runtime.state.notification_done()
            return
        self.session.connection.delegate_notify(self, text)

    def on_finished(self, outcome: CellOutcome) -> None:
        """The runtime thread ended: commit (unless terminated) and answer the observer."""
        self.thread_done.set()
        if self.terminating or outcome.kind != "completed":
            return
        self.cancel_pending_tools()
        self.outcome = outcome
        self.session.commit(self, outcome.writes)
        if self.observer is not None:
            self._resolve(self._final_response(self.observer))

    # ---- observation -------------------------------------------------------------

    def cancel_pending_tools(self) -> None:
        """``delegate/cancel`` every tool call still unanswered."""
        pending, self.pending_tools = self.pending_tools, {}
        for delegate_id in pending.values():
            self.session.connection.cancel_delegate(delegate_id)

    def take_items(self, observer: Observer, error_text: str | None = None) -> list[dict[str, Any]]:
        """Hand the buffer to ``observer`` (with the items the runtime posted so far), truncated
        in server mode."""
        if self.runtime is not None:
            self.runtime.state.run_posted_items()
        items, self.buffer = self.buffer, []
        if self.runtime is not None and items:
            self.runtime.state.output_taken(sum(item_cost(item) for item in items))
        if self.session.output_truncation == "server":
            if error_text is not None:
                items = items + [dict(messages.input_text(f"Script error:\n{error_text}"))]
            budget = observer.max_output_tokens
            items = truncate_content_items(items, DEFAULT_MAX_OUTPUT_TOKENS if budget is None else budget)
        return items

    def _final_response(self, observer: Observer) -> WireRuntimeResponse:
        assert self.outcome is not None
        error_text = self.outcome.error_text
        items = self.take_items(observer, error_text)
        return runtime_response("Result", self.cell_id, items, error_text, observer.started_ns)

    def _resolve(self, response: WireRuntimeResponse) -> None:
        observer, self.observer = self.observer, None
        if observer is None:
            return
        if observer.timer is not None:
            observer.timer.cancel()
        if observer.future.done():
            return
        if observer.respond is not None:
            observer.respond(response)
        observer.future.set_result(response)

    def yield_now(self) -> None:
        """End the current observation with ``Yielded`` and everything buffered."""
        if self.observer is None or self.outcome is not None:
            return
        items = self.take_items(self.observer)
        self._resolve(runtime_response("Yielded", self.cell_id, items, None, self.observer.started_ns))

    def observe(
        self,
        yield_ms: int,
        max_output_tokens: int | None,
        request_id: int | None,
        respond: Callable[[WireRuntimeResponse], None] | None = None,
        *,
        take_when_full: bool = False,
    ) -> asyncio.Future[WireRuntimeResponse]:
        """Start an observation; the future gives the wire runtime response. ``take_when_full``
        (an execute's observation): it ends with ``Yielded`` as soon as the cell's output window
        is full (:meth:`on_output_full`).

        Raises :class:`ProtocolError` ``exec cell <id> already has an active observer``.
        """
        loop = asyncio.get_running_loop()
        if self.observer is not None:
            raise ProtocolError(f"exec cell {self.cell_id} already has an active observer")
        observer = Observer(
            loop.create_future(),
            max_output_tokens,
            time.monotonic_ns(),
            request_id,
            respond=respond,
            take_when_full=take_when_full,
        )
        self.observer = observer
        if self.outcome is not None:
            self._resolve(self._final_response(observer))
        else:
            if self.began:
                observer.timer = loop.call_later(yield_ms / 1000.0, self.yield_now)
            else:
                observer.deferred_yield_ms = yield_ms
        return observer.future

    def detach(self, future: asyncio.Future[WireRuntimeResponse]) -> None:
        """Drop an observer whose request was cancelled; its items stay buffered."""
        if self.observer is not None and self.observer.future is future:
            if self.observer.timer is not None:
                self.observer.timer.cancel()
            self.observer = None
