"""Sessions and the asyncio side of their cells (the "cell actor").

A :class:`Session` numbers its cells ``"1"``, ``"2"``, … (``spec/codex-code-mode.md``
§3.5), keeps the stored values (§1.6: snapshot at cell start, per-key merge when a
cell completes, last finisher wins, a terminated cell commits nothing) and answers
execute / wait / terminate.

A :class:`LiveCell` buffers the items its runtime emits and has at most one observer
at a time (§3.3). An observer ends with the first of: its yield timer (``Yielded``
with everything buffered), ``yield_control()`` or ``operation/yield`` (``Yielded`` at
once), natural completion (``Result``) or termination (``Terminated``). A completion
nobody observes stays buffered for the next wait or terminate. Pending tool calls get
``delegate/cancel`` when the cell ends (§3.6).
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codemode.output import DEFAULT_MAX_OUTPUT_TOKENS, truncate_content_items
from codemode.tools.naming import normalize_identifier

from . import interrupt
from .cell import CellEvents, CellOutcome, CellRuntime

if TYPE_CHECKING:
    from .server import Connection

log = logging.getLogger(__name__)

DEFAULT_YIELD_TIME_MS = 10_000
"""``DEFAULT_EXEC_YIELD_TIME_MS`` / ``DEFAULT_WAIT_YIELD_TIME_MS``."""
MIN_YIELD_TIME_FOR_GRACE_MS = 10_000
YIELD_GRACE_MS = 1_000
TERMINATE_JOIN_TIMEOUT_S = 1.0
"""How long a terminate waits for the cell thread before the process-exit fallback."""


class ProtocolError(Exception):
    """A request failed; the message is sent back as ``{"status": "error"}``."""


def effective_yield_ms(requested: int | None, session_max: int | None) -> int:
    """Observation timeout in ms (spec §2.3).

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
    kind: str, cell_id: str, items: list[dict[str, Any]], error_text: str | None, started_ns: int
) -> dict[str, Any]:
    """The externally tagged wire form of a runtime response (``oracle/README.md``)."""
    body: dict[str, Any] = {"cell_id": cell_id, "content_items": items}
    if kind == "Result":
        body["error_text"] = error_text
        body["result_buffered_for_ns"] = 0
    body["code_mode_host_duration_ns"] = max(0, time.monotonic_ns() - started_ns)
    return {kind: body}


def missing_cell(cell_id: str) -> dict[str, Any]:
    """``MissingCell`` outcome for an unknown or closed cell (spec §3.1)."""
    return {
        "MissingCell": runtime_response("Result", cell_id, [], f"exec cell {cell_id} not found", time.monotonic_ns())
    }


@dataclass
class Observer:
    """One pending observation: its future, yield timer and output budget."""

    future: asyncio.Future[dict[str, Any]]
    max_output_tokens: int | None
    started_ns: int
    request_id: int | None
    timer: asyncio.TimerHandle | None = None


@dataclass
class LiveCell:
    """The asyncio-side state of a running or finished-but-unobserved cell."""

    cell_id: str
    session: Session
    tool_call_id: str
    tools: list[dict[str, Any]]
    runtime: CellRuntime | None = None
    buffer: list[dict[str, Any]] = field(default_factory=list)
    observer: Observer | None = None
    outcome: CellOutcome | None = None
    terminating: bool = False
    closed: bool = False
    thread_done: asyncio.Event = field(default_factory=asyncio.Event)
    pending_tools: dict[str, int] = field(default_factory=dict)

    # ---- events from the runtime thread ---------------------------------------------

    def on_item(self, item: dict[str, Any]) -> None:
        """Buffer one content item."""
        if not self.closed:
            self.buffer.append(item)

    def on_yield_control(self) -> None:
        """``yield_control()``: a waiting observer gets ``Yielded`` now (spec §1.7)."""
        self.yield_now()

    def on_tool_call(self, runtime_id: str, index: int, tool_input: Any) -> None:
        """Send a ``tool/invoke`` delegate request for this cell."""
        if self.closed or self.terminating or self.outcome is not None:
            return
        tool = self.tools[index]
        self.session.connection.delegate_tool(self, runtime_id, tool, tool_input)

    def on_notify(self, text: str) -> None:
        """Send a ``notification/send`` delegate request (not a content item)."""
        if self.closed or self.terminating:
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
        """``delegate/cancel`` every tool call still unanswered (spec §3.6)."""
        pending, self.pending_tools = self.pending_tools, {}
        for delegate_id in pending.values():
            self.session.connection.cancel_delegate(delegate_id)

    def take_items(self, observer: Observer, error_text: str | None = None) -> list[dict[str, Any]]:
        """Hand the buffer to ``observer``, truncated in server mode."""
        items, self.buffer = self.buffer, []
        if self.session.output_truncation == "server":
            if error_text is not None:
                items = items + [{"type": "input_text", "text": f"Script error:\n{error_text}"}]
            budget = observer.max_output_tokens
            items = truncate_content_items(items, DEFAULT_MAX_OUTPUT_TOKENS if budget is None else budget)
        return items

    def _final_response(self, observer: Observer) -> dict[str, Any]:
        assert self.outcome is not None
        error_text = self.outcome.error_text
        items = self.take_items(observer, error_text)
        return runtime_response("Result", self.cell_id, items, error_text, observer.started_ns)

    def _resolve(self, response: dict[str, Any]) -> None:
        observer, self.observer = self.observer, None
        if observer is None:
            return
        if observer.timer is not None:
            observer.timer.cancel()
        if not observer.future.done():
            observer.future.set_result(response)

    def yield_now(self) -> None:
        """End the current observation with ``Yielded`` and everything buffered."""
        if self.observer is None or self.outcome is not None:
            return
        items = self.take_items(self.observer)
        self._resolve(runtime_response("Yielded", self.cell_id, items, None, self.observer.started_ns))

    def observe(
        self, yield_ms: int, max_output_tokens: int | None, request_id: int | None
    ) -> asyncio.Future[dict[str, Any]]:
        """Start an observation; the future gives the wire runtime response.

        Raises :class:`ProtocolError` ``exec cell <id> already has an active observer``.
        """
        loop = asyncio.get_running_loop()
        if self.observer is not None:
            raise ProtocolError(f"exec cell {self.cell_id} already has an active observer")
        observer = Observer(loop.create_future(), max_output_tokens, time.monotonic_ns(), request_id)
        self.observer = observer
        if self.outcome is not None:
            self._resolve(self._final_response(observer))
        else:
            observer.timer = loop.call_later(yield_ms / 1000.0, self.yield_now)
        return observer.future

    def detach(self, future: asyncio.Future[dict[str, Any]]) -> None:
        """Drop an observer whose request was cancelled; its items stay buffered."""
        if self.observer is not None and self.observer.future is future:
            if self.observer.timer is not None:
                self.observer.timer.cancel()
            self.observer = None


class Session:
    """One code-mode session of a connection (spec §4.3 ``session/*``)."""

    def __init__(
        self,
        connection: Connection,
        session_id: str,
        *,
        max_yield_time_ms: int | None,
        max_heap_size_bytes: int | None,
        output_truncation: str | None,
        stored_values: dict[str, Any] | None,
    ) -> None:
        self.connection = connection
        self.session_id = session_id
        self.max_yield_time_ms = max_yield_time_ms
        self.max_heap_size_bytes = max_heap_size_bytes
        self.output_truncation = output_truncation or "client"
        self.report_stored_values = stored_values is not None
        self.store: dict[str, str] = {k: json.dumps(v) for k, v in (stored_values or {}).items()}
        self.cells: dict[str, LiveCell] = {}
        self._next_cell = 0

    # ---- store ------------------------------------------------------------------

    def commit(self, cell: LiveCell, writes: dict[str, str]) -> None:
        """Merge a completed cell's writes (per key; last finisher wins)."""
        if not writes:
            return
        self.store.update(writes)
        if self.report_stored_values:
            values = {k: json.loads(v) for k, v in writes.items()}
            self.connection.send({"type": "session/storedValues", "sessionId": self.session_id, "values": values})

    # ---- requests --------------------------------------------------------------

    def new_cell(self, request: dict[str, Any]) -> LiveCell:
        """Admit a cell for ``session/execute`` and start its runtime thread."""
        self._next_cell += 1
        cell_id = str(self._next_cell)
        tools = [
            {
                "name": normalize_identifier(str(t.get("name", ""))),
                "description": t.get("description", ""),
                "tool_name": t.get("tool_name") or {"name": t.get("name", ""), "namespace": None},
                "kind": t.get("kind", "function"),
            }
            for t in (request.get("enabled_tools") or [])
        ]
        cell = LiveCell(cell_id, self, str(request.get("tool_call_id", "")), tools)
        events = CellEvents(
            item=cell.on_item,
            yield_control=cell.on_yield_control,
            tool_call=cell.on_tool_call,
            notify=cell.on_notify,
            finished=cell.on_finished,
        )
        cell.runtime = CellRuntime(
            cell_id=cell_id,
            source=str(request.get("source", "")),
            tools=[{"name": t["name"], "description": t["description"]} for t in tools],
            stored=dict(self.store),
            heap_limit_bytes=self.max_heap_size_bytes,
            events=events,
            loop=asyncio.get_running_loop(),
        )
        self.cells[cell_id] = cell
        return cell

    def close_cell(self, cell: LiveCell) -> None:
        """Forget a cell after its final response and send ``cell/closed`` (once)."""
        if cell.closed:
            return
        cell.closed = True
        cell.cancel_pending_tools()
        self.cells.pop(cell.cell_id, None)
        self.connection.cell_closed(self, cell)

    def begin_observe(
        self, cell: LiveCell, yield_time_ms: int | None, max_output_tokens: int | None, request_id: int | None
    ) -> asyncio.Future[dict[str, Any]]:
        """Start observing ``cell`` (synchronously, so no output can slip past)."""
        future = cell.observe(effective_yield_ms(yield_time_ms, self.max_yield_time_ms), max_output_tokens, request_id)
        if request_id is not None:
            self.connection.observing[request_id] = cell
        return future

    async def finish_observe(
        self, cell: LiveCell, future: asyncio.Future[dict[str, Any]], request_id: int | None
    ) -> dict[str, Any]:
        """Await an observation started by :meth:`begin_observe`."""
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            cell.detach(future)
            raise
        finally:
            if request_id is not None:
                self.connection.observing.pop(request_id, None)

    async def terminate(self, cell_id: str, max_output_tokens: int | None) -> tuple[dict[str, Any], LiveCell | None]:
        """``session/terminate``: the outcome and the cell to close after answering."""
        cell = self.cells.get(cell_id)
        if cell is None or cell.closed:
            return missing_cell(cell_id), None
        observer = Observer(asyncio.get_running_loop().create_future(), max_output_tokens, time.monotonic_ns(), None)
        if cell.outcome is not None:
            # Natural completion wins (spec §3.4).
            response = cell._final_response(observer)
            cell._resolve(response)
            return {"LiveCell": response}, cell
        if cell.terminating:
            raise ProtocolError(f"exec cell {cell_id} is already terminating")
        cell.terminating = True
        cell.cancel_pending_tools()
        assert cell.runtime is not None
        cell.runtime.stop()
        try:
            await asyncio.wait_for(cell.thread_done.wait(), TERMINATE_JOIN_TIMEOUT_S)
        except TimeoutError:
            self.connection.schedule_fallback_exit(
                f"cell {cell_id} of session {self.session_id} did not stop after terminate"
                + ("" if interrupt.AVAILABLE else " (no in-process interrupt available)")
            )
        items = cell.take_items(observer)
        response = runtime_response("Terminated", cell_id, items, None, observer.started_ns)
        cell._resolve(response)
        return {"LiveCell": response}, cell

    def stop_all(self) -> None:
        """Shutdown: stop every live cell without committing; cells are closed."""
        for cell in list(self.cells.values()):
            if cell.outcome is None:
                cell.terminating = True
                if cell.runtime is not None:
                    cell.runtime.stop()
            cell.cancel_pending_tools()
            if cell.observer is not None:
                observer = cell.observer
                items = cell.take_items(observer)
                cell._resolve(runtime_response("Terminated", cell.cell_id, items, None, observer.started_ns))
            self.close_cell(cell)
