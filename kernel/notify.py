"""Showing ``notify()`` texts, held until the kernel knows the cell and bounded by its budget.

A ``notify(value)`` is delivered at once, not with the cell's output: while the cell is being
executed or waited on, as a ``display_data`` (``text/plain``, metadata
``{"codemode": {"notify": cell_id}}``) under that request; for a background cell, as one of the
latest texts in its status display; for a cell whose end was already shown, under the request
that showed it while that request runs, else not at all. Which
of these applies follows the host's order of the cell's events, read by one reader
(:mod:`codemode.kernel.cell_reader`): a notification sent after the cell's ``Yielded`` goes to
the status display.

A flood of notifications stays a few messages: the first :data:`NOTIFY_BURST` of a request
are outputs of their own, the rest share one display (``display_data`` with a ``display_id``,
metadata ``{"codemode": {"notify": cell_id, "more": N}}``, text ``Cell <id> sent N more
notifications; the latest:`` and the latest :data:`LATEST_SHOWN` texts), updated at most
four times a second and once more when the request ends. A background cell's notifications
go to its status display, which is rate-bounded the same way.

Each text is bounded by the cell's ``max_output_tokens`` as Codex bounds a text output: one
over the budget keeps its start and end with Codex's marker between,
``Warning: truncated output (original token count: N)\\nTotal output lines: L\\n\\n
<head>…K tokens truncated…<tail>`` (``codemode.wire.truncation.truncate_content_items``).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from codemode.kernel.displays import MIN_UPDATE_INTERVAL_S, StatusDisplays
from codemode.kernel.publish import Publisher, Request
from codemode.kernel.state import KernelState
from codemode.wire import truncation


def bounded_text(text: str, max_tokens: int | None) -> str:
    """``text`` within ``max_tokens`` (unchanged when it fits or no budget applies)."""
    if max_tokens is None:
        return text
    (item,) = truncation.truncate_content_items([{"type": "input_text", "text": text}], max_tokens)
    return str(item["text"])


NOTIFY_BURST = 10
"""Notifications of one request shown as outputs of their own; later ones share one display."""
LATEST_SHOWN = 3
"""How many of the latest texts the shared display shows."""


@dataclass
class _Overflow:
    """The notifications of one request beyond :data:`NOTIFY_BURST`: their count, the latest
    texts and the display that shows them (opened with the first of them)."""

    request: Request
    cell_id: str
    shown: int = 0
    count: int = 0
    latest: list[str] = field(default_factory=list)
    display_id: str | None = None
    last_sent: float = 0.0
    timer: asyncio.TimerHandle | None = None

    def bundle(self) -> dict[str, Any]:
        lines = [f"Cell {self.cell_id} sent {self.count} more notifications; the latest:"]
        lines += [f"notify: {text}" for text in self.latest]
        return {
            "data": {"text/plain": "\n".join(lines)},
            "metadata": {"codemode": {"notify": self.cell_id, "more": self.count}},
            "transient": {"display_id": self.display_id},
        }


class Notifications:
    """Shows the session's ``notify()`` texts through ``publisher`` (see the module docstring)."""

    def __init__(self, publisher: Publisher, state: KernelState, displays: StatusDisplays) -> None:
        self.publisher = publisher
        self.state = state
        self.displays = displays
        self._overflow: _Overflow | None = None

    def show(self, cell_id: str, text: str) -> None:
        """A notification of ``cell_id``, taken from the cell's events in the host's order."""
        record = self.state.cells.get(cell_id)
        budget = record.max_output_tokens if record is not None else self.state.max_output_tokens
        request = self.state.foreground(cell_id)
        if request is None and (record is None or not record.live):
            request = self.state.request if self.state.request and self.state.request.cell_id == cell_id else None
        if request is not None:
            self._show_under(request, cell_id, bounded_text(text, budget))
            return
        if record is None or not record.live:
            return  # a cell whose end was already shown (e.g. terminated while the host went on)
        record.notify(bounded_text(text, budget))
        if record.displays:
            self.displays.update(record)

    def _show_under(self, request: Request, cell_id: str, shown: str) -> None:
        """The first :data:`NOTIFY_BURST` notifications of ``request`` are outputs of their own;
        the others update one shared display, at most every ``MIN_UPDATE_INTERVAL_S``."""
        overflow = self._overflow
        if overflow is None or overflow.request is not request or overflow.cell_id != cell_id:
            self.finish()
            overflow = self._overflow = _Overflow(request, cell_id)
        if overflow.shown < NOTIFY_BURST:
            overflow.shown += 1
            self.publisher.emit(
                request,
                "display_data",
                {"data": {"text/plain": shown}, "metadata": {"codemode": {"notify": cell_id}}},
            )
            return
        overflow.count += 1
        overflow.latest = [*overflow.latest, shown][-LATEST_SHOWN:]
        if overflow.display_id is None:
            overflow.display_id = f"codemode-notify-{cell_id}-{uuid.uuid4().hex[:12]}"
            self._send(overflow, "display_data")
        elif overflow.timer is None:
            delay = max(0.0, overflow.last_sent + MIN_UPDATE_INTERVAL_S - time.monotonic())
            overflow.timer = asyncio.get_running_loop().call_later(delay, self._send, overflow, "update_display_data")

    def _send(self, overflow: _Overflow, msg_type: str) -> None:
        if overflow.timer is not None:
            overflow.timer.cancel()
            overflow.timer = None
        overflow.last_sent = time.monotonic()
        self.publisher.emit(overflow.request, msg_type, overflow.bundle())

    def finish(self, request: Request | None = None) -> None:
        """The request (any, when None) ends: show its shared display's last state now."""
        overflow = self._overflow
        if overflow is None or (request is not None and overflow.request is not request):
            return
        self._overflow = None
        if overflow.timer is not None:
            self._send(overflow, "update_display_data")
