"""Status displays of yielded cells.

A cell that yields gets a ``display_data`` output with a ``display_id`` unique per cell and
run (a later ``%wait`` that yields again opens another). Each is kept up to date with
``update_display_data`` under the request it was opened for: tool calls in flight,
``notify()`` texts, the end, and the running time once the display has shown the same state
for :data:`STATUS_TICK_S` (so a cell whose events all come within a second of each other
always renders the same way).

Notebook runners (nbclient, hence papermill and ``jupyter nbconvert --execute``) read only the
IOPub messages of the request they are running, and apply an ``update_display_data`` to every
output with its ``display_id``, whichever cell holds it. So every update of a display after its
cell ended (finished, awaiting ``%wait``; then completed, failed or terminated) is also sent
under the request running then, or else under the next request the kernel handles: a saved
notebook never keeps a stale "running" display.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from codemode.kernel.cells import CellRecord, StatusDisplay, status_bundle
from codemode.kernel.publish import Publisher
from codemode.kernel.state import KernelState

STATUS_TICK_S = 1.0
"""How old a running cell's display may get before it is refreshed (running time)."""
MIN_UPDATE_INTERVAL_S = 0.25
"""Shortest time between two refreshes of one cell's status displays (see :meth:`StatusDisplays.update`)."""


class StatusDisplays:
    """Opens and refreshes the status displays of ``state``'s cells through ``publisher``."""

    def __init__(self, publisher: Publisher, state: KernelState) -> None:
        self.publisher = publisher
        self.state = state
        self._ticker: asyncio.Task[None] | None = None
        self._last: dict[str, float] = {}
        self._shown: dict[str, float] = {}
        self._pending: dict[str, asyncio.TimerHandle] = {}
        self._ended_unseen: dict[str, CellRecord] = {}

    def open(self, record: CellRecord, parent: dict[str, Any]) -> None:
        """Show a new status display for ``record`` under the request ``parent``."""
        display = StatusDisplay(f"codemode-{record.cell_id}-{uuid.uuid4().hex[:12]}", parent)
        record.displays.append(display)
        self._shown[record.cell_id] = time.monotonic()
        self.publisher.send(
            "display_data",
            {"data": status_bundle(record), "metadata": {}, "transient": {"display_id": display.display_id}},
            parent,
        )
        if self._ticker is None or self._ticker.done():
            self._ticker = asyncio.ensure_future(self._tick())

    def update(self, record: CellRecord, *, now: bool = False) -> None:
        """Refresh every status display of ``record``: at once when ``now`` (the cell ended or
        its output was shown) or when the last refresh is :data:`MIN_UPDATE_INTERVAL_S` old,
        else once that interval has passed (with the state of then). Tool progress and
        ``notify()`` can change a cell many times a second; its displays change at most about
        four times a second."""
        if not record.displays:
            return
        cell_id = record.cell_id
        since = time.monotonic() - self._last.get(cell_id, -MIN_UPDATE_INTERVAL_S)
        if now or since >= MIN_UPDATE_INTERVAL_S:
            pending = self._pending.pop(cell_id, None)
            if pending is not None:
                pending.cancel()
            self._send_update(record)
            return
        if cell_id not in self._pending:
            loop = asyncio.get_running_loop()
            self._pending[cell_id] = loop.call_later(MIN_UPDATE_INTERVAL_S - since, self._send_pending, record)

    def _send_pending(self, record: CellRecord) -> None:
        self._pending.pop(record.cell_id, None)
        self._send_update(record)

    def _send_update(self, record: CellRecord) -> None:
        if record.live:
            self._last[record.cell_id] = self._shown[record.cell_id] = time.monotonic()
        else:
            self._last.pop(record.cell_id, None)
            self._shown.pop(record.cell_id, None)
        bundle = status_bundle(record)
        for display in record.displays:
            self._send_bundle(display, bundle, display.parent)
        if record.state != "running":
            self._show_end_to_runners(record, bundle)

    def _send_bundle(self, display: StatusDisplay, bundle: dict[str, Any], parent: dict[str, Any]) -> None:
        self.publisher.send(
            "update_display_data",
            {"data": bundle, "metadata": {}, "transient": {"display_id": display.display_id}},
            parent,
        )

    def _show_end_to_runners(self, record: CellRecord, bundle: dict[str, Any]) -> None:
        """Send ``record``'s final ``bundle`` under the running request too (module docstring);
        with none running, under the next one (:meth:`request_started`)."""
        request = self.state.request
        if request is None or request.silent:
            self._ended_unseen[record.cell_id] = record
            return
        self._ended_unseen.pop(record.cell_id, None)
        msg_id = request.parent.get("header", {}).get("msg_id")
        for display in record.displays:
            if display.parent.get("header", {}).get("msg_id") != msg_id:
                self._send_bundle(display, bundle, request.parent)

    def request_started(self) -> None:
        """A request that shows output began (``state.request``): the cells that ended while
        none ran show their final status under it too (module docstring)."""
        ended, self._ended_unseen = self._ended_unseen, {}
        for record in ended.values():
            self._show_end_to_runners(record, status_bundle(record))

    def on_observed(self, record: CellRecord) -> None:
        """An observer saw new output or the end of ``record``'s cell: show the end at once."""
        if record.final is not None and record.displays:
            self.update(record, now=True)

    async def _tick(self) -> None:
        """Refresh the running time of running cells' displays that have shown the same state
        for :data:`STATUS_TICK_S` (waking when the next one is due), until no running cell is
        left."""
        while True:
            running = [r for r in self.state.cells.values() if r.state == "running" and r.displays]
            if not running:
                return
            now = time.monotonic()
            for record in running:
                if now - self._shown.get(record.cell_id, now) >= STATUS_TICK_S:
                    self.update(record)
            due = [
                now + MIN_UPDATE_INTERVAL_S
                if r.cell_id in self._pending
                else self._shown.get(r.cell_id, now) + STATUS_TICK_S
                for r in running
            ]
            await asyncio.sleep(max(MIN_UPDATE_INTERVAL_S, min(due) - now))

    def stop(self) -> None:
        """Stop refreshing (kernel shutdown)."""
        if self._ticker is not None:
            self._ticker.cancel()
        for pending in self._pending.values():
            pending.cancel()
        self._pending.clear()
