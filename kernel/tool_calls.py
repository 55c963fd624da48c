"""Following the dispatcher's tool-call events for the kernel.

The dispatcher (:class:`codemode.dispatch.ToolCallRuntime`) reports ``started``,
``progress``, ``output`` and ``finished`` events. This module keeps, per cell, the calls in
flight with their progress (what the status display and ``%cells`` show) and refreshes the
cell's status displays. What a tool printed (``output``) is shown as a ``stream`` message
parented to the calling cell's request (:meth:`ToolCallTracker._publish_output`), within the
cell's ``max_output_tokens`` (:func:`codemode.kernel.budget.tool_output_part`).

It also knows which calls have not finished yet, so the execute_reply metadata of a cell that
ended can list every call with its outcome: the dispatcher records an aborted call only after
the tool's cleanup finished (``exec_command`` kills its process group first), which can be
after the terminate answered. :meth:`ToolCallTracker.settle` waits for those (bounded).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from codemode.kernel.budget import tool_output_notice, tool_output_part
from codemode.kernel.cells import CellRecord, ToolProgress
from codemode.kernel.displays import StatusDisplays
from codemode.kernel.publish import Request
from codemode.kernel.services import Services
from codemode.kernel.state import KernelState

log = logging.getLogger(__name__)

SETTLE_TIMEOUT_S = 5.0
"""How long a reply waits for its ended cell's unfinished tool calls to record their outcome."""


class ToolCallTracker:
    """Applies dispatcher events (on the kernel's loop) to ``state``'s cell records."""

    def __init__(self, state: KernelState, displays: StatusDisplays) -> None:
        self.state = state
        self.displays = displays
        self._unfinished: dict[str, set[str]] = {}
        self._settled: dict[str, asyncio.Event] = {}

    def handle(self, event: Any) -> None:
        """Apply one ``ToolCallEvent`` (``kind``, ``cell_id``, ``runtime_tool_call_id``,
        ``tool``, ``progress``, ``total``, ``message``; ``stream`` and ``text`` for ``output``)."""
        if event.kind == "output":
            self._publish_output(event)
            return
        self._track(event)
        record = self.state.cells.get(event.cell_id)
        if record is None or record.final is not None:
            return
        runtime_tool_call_id = event.runtime_tool_call_id
        if event.kind == "started":
            record.in_flight[runtime_tool_call_id] = ToolProgress(event.tool)
        elif event.kind == "progress":
            call = record.in_flight.setdefault(runtime_tool_call_id, ToolProgress(event.tool))
            call.progress, call.total, call.message = event.progress, event.total, event.message
        elif event.kind == "finished":
            record.in_flight.pop(runtime_tool_call_id, None)
        if record.displays:
            self.displays.update(record)

    def _publish_output(self, event: Any) -> None:
        """Show text a tool printed as a ``stream`` message in the calling cell: under the
        request observing that cell (nothing for a silent one), else under the request that
        started the cell (where its status display is); nothing once the cell's end was shown."""
        if not event.text or event.stream not in ("stdout", "stderr"):
            return
        request = self.state.foreground(event.cell_id)
        record = self.state.cells.get(event.cell_id)
        if request is not None:
            parent = None if request.silent else request.parent
        elif record is not None and record.live:
            parent = record.parent
        else:
            log.debug("output of tool %s for unknown cell %s dropped", event.tool, event.cell_id)
            return
        if parent is None:
            return
        text, notice = (event.text, None) if record is None else _within_budget(record, event.text)
        if text:
            self.displays.publisher.send("stream", {"name": event.stream, "text": text}, parent)
        if notice:
            self.displays.publisher.send("stream", {"name": "stderr", "text": notice}, parent)

    def _track(self, event: Any) -> None:
        cell_id, runtime_tool_call_id = event.cell_id, event.runtime_tool_call_id
        if event.kind == "started":
            self._unfinished.setdefault(cell_id, set()).add(runtime_tool_call_id)
        elif event.kind == "finished":
            calls = self._unfinished.get(cell_id)
            if calls is not None:
                calls.discard(runtime_tool_call_id)
                if not calls:
                    del self._unfinished[cell_id]
                    event_ = self._settled.pop(cell_id, None)
                    if event_ is not None:
                        event_.set()

    def unfinished(self, cell_id: str) -> int:
        """How many calls of ``cell_id`` started and have no recorded outcome yet."""
        return len(self._unfinished.get(cell_id, ()))

    async def settle(self, cell_id: str, timeout_s: float = SETTLE_TIMEOUT_S) -> bool:
        """Wait until every started call of ``cell_id`` has its outcome recorded, at most
        ``timeout_s`` seconds. True when none is left (a call still running then is logged)."""
        if not self._unfinished.get(cell_id):
            return True
        settled = self._settled.setdefault(cell_id, asyncio.Event())
        try:
            async with asyncio.timeout(timeout_s):
                await settled.wait()
        except TimeoutError:
            log.warning(
                "%d tool call(s) of cell %s did not end within %.0f s; the reply lists the finished ones",
                self.unfinished(cell_id),
                cell_id,
                timeout_s,
            )
            return False
        return True

    async def reply_metadata(self, request: Request, services: Services | None) -> dict[str, Any]:
        """The execute_reply's ``metadata.codemode`` for ``request``: its cell id and status,
        wall time, the answer as the model would have seen it (``model_view``, when the request
        showed a cell's answer), the names of the tools ``%tools`` listed (``tool_names``) and the problems it listed (``problems``), and its cell's tool calls (``services`` None: not built, none). For a cell
        that ended, the calls still being cleaned up are awaited first (bounded, :meth:`settle`),
        so every call is listed."""
        calls: list[dict[str, Any]] = []
        omitted = 0
        if request.cell_id is not None and services is not None:
            if request.status not in (None, "running"):
                # The cell ended: every call it made has (or is about to get) its one outcome.
                await self.settle(request.cell_id)
            try:
                calls = list(services.dispatcher.calls_for(request.cell_id))
                omitted = services.dispatcher.omitted_calls(request.cell_id)
            except Exception:
                log.debug("no tool-call timings for cell %s", request.cell_id, exc_info=True)
        metadata: dict[str, Any] = {
            "cell_id": request.cell_id,
            "status": request.status,
            "wall_time_ms": round((time.monotonic() - request.started) * 1000),
            "tool_calls": calls,
        }
        if omitted:
            metadata["tool_calls_omitted"] = omitted
        if request.model_view is not None:
            metadata["model_view"] = request.model_view
        if request.tool_names is not None:
            metadata["tool_names"] = request.tool_names
        if request.tool_problems is not None:
            metadata["problems"] = request.tool_problems
        return metadata


def _within_budget(record: CellRecord, text: str) -> tuple[str, str | None]:
    """What ``record``'s cell may still show of ``text`` printed by one of its tools, and the
    notice to show once when its budget ran out (:func:`codemode.kernel.budget.tool_output_part`)."""
    if record.tool_output_cut:
        return "", None
    text, record.tool_output_bytes, cut = tool_output_part(text, record.tool_output_bytes, record.max_output_tokens)
    if not cut or record.max_output_tokens is None:
        return text, None
    record.tool_output_cut = True
    if text and not text.endswith("\n"):
        text += "\n"  # the cell's own output that follows starts on a line of its own
    return text, tool_output_notice(record.max_output_tokens)
