"""The host's record of a code-mode session opened by ``session/open``.

A :class:`HostSession` numbers its cells ``"1"``, ``"2"``, … in execution order, keeps
the stored values (a snapshot at cell start, a per-key merge when a cell completes, the
last finisher wins, a terminated cell commits nothing) and serves execute / wait /
terminate for its cells (:class:`~codemode.runtime.livecell.LiveCell`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any, Protocol

from codemode.runtime import engines, interrupt, profile
from codemode.runtime.cell import CellRuntime
from codemode.runtime.cellstate import CellEvents
from codemode.runtime.errors import ProtocolError
from codemode.runtime.livecell import (
    ConnectionPort,
    LiveCell,
    Observer,
    effective_yield_ms,
    missing_cell,
    runtime_response,
)
from codemode.wire import messages, stored_values
from codemode.wire.frame_json import json_text
from codemode.wire.framing import FrameTooLarge
from codemode.wire.messages import WireRuntimeResponse, WireWaitOutcome
from codemode.wire.tool_names import normalize_identifier

log = logging.getLogger(__name__)

TERMINATE_JOIN_TIMEOUT_S = 0.5
"""How long a terminate waits for the cell thread before the process-exit fallback. The
in-process interrupt stops JavaScript within milliseconds; only one long engine call (a join
of a huge array, a catastrophic regex) outlasts it. Short enough that the answer, with the
output the cell produced before, reaches a client that gives an interrupt one second
(``codemode.kernel.termination``)."""
REALM_TERMINATE_WAIT_S = 0.9
"""How long a terminate of a notebook cell waits for its end: the realm reports it within
``realm_stop.RESET_AFTER_S`` at the latest, giving its thread up rather than the host."""


class HostPort(ConnectionPort, Protocol):
    """What a session asks of the connection, beyond what its cells ask."""

    observing: dict[int, LiveCell]

    def observation_began(self, request_id: int, cell: LiveCell) -> None: ...

    def send_text(self, text: str) -> None: ...

    def cell_closed(self, session: HostSession, cell: LiveCell) -> None: ...

    def schedule_fallback_exit(self, reason: str) -> None: ...


class HostSession:
    """One code-mode session of a connection (the ``session/*`` methods)."""

    def __init__(
        self,
        connection: HostPort,
        session_id: str,
        *,
        max_yield_time_ms: int | None,
        max_heap_size_bytes: int | None,
        output_truncation: str | None,
        stored_values: dict[str, Any] | None,
        cell_id_prefix: str = "",
    ) -> None:
        self.connection = connection
        self.session_id = session_id
        self.max_yield_time_ms = max_yield_time_ms
        self.max_heap_size_bytes = max_heap_size_bytes
        self.output_truncation = output_truncation or "client"
        self.report_stored_values = stored_values is not None
        self.cell_id_prefix = cell_id_prefix
        """What the client puts before this session's cell ids where it shows them (``g2:``
        after a host was replaced; ``session/open``'s ``cellIdPrefix``): texts naming another
        cell use it."""
        self.store: dict[str, str] = {}
        """Key -> the value's canonical JSON (:mod:`codemode.wire.stored_values`)."""
        self.seed(stored_values or {})
        self.cells: dict[str, LiveCell] = {}
        self._next_cell = 0
        self.realm: Any = None
        """The notebook profile's realm (``runtime/realm.py``), made at the first execute."""

    # ---- store ------------------------------------------------------------------

    def seed(self, values: dict[str, Any]) -> None:
        """Take values the client kept (``storedValues`` of ``session/open``, and a
        ``session/storedValues`` frame of the client's for each value after it)."""
        for key, value in values.items():
            self.store[key] = json_text(value)

    def commit(self, cell: LiveCell, writes: dict[str, str]) -> None:
        """Merge a completed cell's writes (per key; last finisher wins) and, for a client that
        keeps them, report each in a ``session/storedValues`` frame of its own
        (:mod:`codemode.wire.stored_values`: ``store()`` refused a value too large for one)."""
        self.store.update(writes)
        if not self.report_stored_values:
            return
        for key, text in writes.items():
            try:
                self.connection.send_text(stored_values.message_text(self.session_id, key, text))
            except FrameTooLarge:  # only with a session id longer than ENVELOPE_BYTES allows
                log.error("stored value %r of session %r is too large to report", key[:80], self.session_id[:80])

    # ---- requests --------------------------------------------------------------

    def new_cell(self, request: messages.ExecuteRequest) -> LiveCell:
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
            output_full=cell.on_output_full,
            began=cell.on_began,
        )
        settings: dict[str, Any] = {
            "cell_id": cell_id,
            "source": str(request.get("source", "")),
            "tools": [{"name": t["name"], "description": t["description"]} for t in tools],
            "stored": dict(self.store),
            "heap_limit_bytes": self.max_heap_size_bytes,
            "events": events,
            "loop": asyncio.get_running_loop(),
        }
        if profile.notebook():
            from codemode.runtime.realm import Realm, RealmCell  # the strict profile never loads the realm

            if self.realm is None or self.realm.lost is not None:
                if self.realm is not None:
                    self.realm.close()  # given up after a cell that would not stop: a fresh one
                self.realm = Realm(heap_limit_bytes=self.max_heap_size_bytes, name=self.session_id)
            cell.runtime = RealmCell(realm=self.realm, **settings)
        else:
            cell.runtime = CellRuntime(**settings)
            cell.began = False  # until its engine is ready (LiveCell.on_began)
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
        self,
        cell: LiveCell,
        yield_time_ms: int | None,
        max_output_tokens: int | None,
        request_id: int | None,
        respond: Callable[[WireRuntimeResponse], None] | None = None,
        *,
        take_when_full: bool = False,
    ) -> asyncio.Future[WireRuntimeResponse]:
        """Start observing ``cell`` (synchronously, so no output can slip past).

        ``respond`` writes the request's answer when the observation ends (see
        :class:`~codemode.runtime.livecell.Observer`); ``take_when_full`` (an execute's): it
        ends as soon as the cell's output window is full (:meth:`LiveCell.observe`).
        """
        limit = self.max_yield_time_ms
        future = cell.observe(
            effective_yield_ms(yield_time_ms, limit),
            max_output_tokens,
            request_id,
            respond,
            take_when_full=take_when_full,
        )
        if request_id is not None:
            self.connection.observation_began(request_id, cell)
        return future

    async def finish_observe(
        self, cell: LiveCell, future: asyncio.Future[WireRuntimeResponse], request_id: int | None
    ) -> WireRuntimeResponse:
        """Await an observation started by :meth:`begin_observe`."""
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            cell.detach(future)
            raise
        finally:
            if request_id is not None:
                self.connection.observing.pop(request_id, None)

    async def terminate(self, cell_id: str, max_output_tokens: int | None) -> tuple[WireWaitOutcome, LiveCell | None]:
        """``session/terminate``: the outcome and the cell to close after answering."""
        cell = self.cells.get(cell_id)
        if cell is None or cell.closed:
            return missing_cell(cell_id), None
        observer = Observer(asyncio.get_running_loop().create_future(), max_output_tokens, time.monotonic_ns(), None)
        if cell.outcome is not None:
            # Natural completion wins: the finished cell's Result answers the terminate.
            response = cell._final_response(observer)
            cell._resolve(response)
            return messages.live_cell(response), cell
        if cell.terminating:
            raise ProtocolError(f"exec cell {cell_id} is already terminating")
        cell.terminating = True
        cell.cancel_pending_tools()
        assert cell.runtime is not None
        cell.runtime.stop()
        realm = profile.notebook()
        try:
            async with asyncio.timeout(REALM_TERMINATE_WAIT_S if realm else TERMINATE_JOIN_TIMEOUT_S):
                await cell.thread_done.wait()
        except TimeoutError:
            if realm:  # the realm ends its cells itself, replacing a thread it cannot get back
                log.error("cell %s of session %s did not report its end after terminate", cell_id, self.session_id)
            else:
                self.connection.schedule_fallback_exit(
                    f"cell {cell_id} of session {self.session_id} did not stop within {TERMINATE_JOIN_TIMEOUT_S:g} s "
                    "of session/terminate"
                    + (
                        ""
                        if interrupt.AVAILABLE or engines.selected() != "quickjs"
                        else " (no in-process interrupt is available)"
                    )
                )
        items = cell.take_items(observer)
        response = runtime_response("Terminated", cell_id, items, None, observer.started_ns)
        cell._resolve(response)
        return messages.live_cell(response), cell

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
        if self.realm is not None:
            self.realm.close()
            self.realm = None
