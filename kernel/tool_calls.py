"""Following the dispatcher's tool-call events for the kernel.

The dispatcher (:class:`codemode.dispatch.ToolCallRuntime`) reports ``started``,
``progress`` and ``finished`` events. This module keeps, per cell, the calls in flight with
their progress (what the status display and ``%cells`` show) and refreshes the cell's status
displays.
"""

from __future__ import annotations

from typing import Any

from codemode.kernel.cells import ToolProgress
from codemode.kernel.displays import StatusDisplays
from codemode.kernel.state import KernelState


class ToolCallTracker:
    """Applies dispatcher events (on the kernel's loop) to ``state``'s cell records."""

    def __init__(self, state: KernelState, displays: StatusDisplays) -> None:
        self.state = state
        self.displays = displays

    def handle(self, event: Any) -> None:
        """Apply one ``ToolCallEvent`` (``kind``, ``cell_id``, ``runtime_tool_call_id``,
        ``tool``, ``progress``, ``total``, ``message``)."""
        record = self.state.cells.get(event.cell_id)
        if record is None or record.final is not None:
            return
        call_id = event.runtime_tool_call_id
        if event.kind == "started":
            record.in_flight[call_id] = ToolProgress(event.tool)
        elif event.kind == "progress":
            call = record.in_flight.setdefault(call_id, ToolProgress(event.tool))
            call.progress, call.total, call.message = event.progress, event.total, event.message
        elif event.kind == "finished":
            record.in_flight.pop(call_id, None)
        if record.displays:
            self.displays.update(record)
