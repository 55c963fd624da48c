"""The kernel's view of code-mode cells: per-cell state and the status display's text.

A :class:`CellRecord` exists for every cell the kernel started (the most recent
:data:`MAX_CLOSED_RECORDS` closed ones are kept). States: ``running`` (the script runs),
``finished`` (it ended; its last output or outcome is not shown yet: run ``%wait``),
``closed`` (everything was shown; the record keeps a small summary only, :meth:`CellRecord.close`). The record also holds what the status
display shows : running time, tool calls in flight with their progress
(from dispatcher events), the latest ``notify()`` texts, and the display ids to update.
"""

from __future__ import annotations

import html
import time
from dataclasses import dataclass, field
from typing import Any

from codemode.kernel.host_loss import HostLoss
from codemode.responses import RuntimeResponse

MAX_CLOSED_RECORDS = 256
"""How many closed cells' summaries the kernel keeps (the oldest are forgotten)."""
MAX_NOTIFICATIONS_SHOWN = 3
"""How many of a background cell's latest ``notify()`` texts its status display shows."""


@dataclass
class ToolProgress:
    """A tool call in flight: its tool name and the last progress report (if any)."""

    tool: str
    progress: float | None = None
    total: float | None = None
    message: str | None = None


@dataclass
class StatusDisplay:
    """One status output: its ``display_id`` and the request message it was sent under."""

    display_id: str
    parent: dict[str, Any]


def summary_parent(parent: dict[str, Any]) -> dict[str, Any]:
    """A request message reduced to its header: enough to parent later messages to it."""
    return {"header": dict(parent.get("header", {}))}


@dataclass
class CellRecord:
    """Everything the kernel tracks for one cell (see the module docstring).

    ``parent`` is the execute request message that started the cell (``{}`` once closed); ``started_at`` and
    ``ended_at`` are ``time.monotonic()`` seconds; ``buffer`` holds content items received
    from the session but not yet shown; ``final`` is the cell's last response (``Result`` or
    ``Terminated``) once known; ``lost`` says why, when the cell ended because the runtime
    host stopped (:mod:`codemode.kernel.host_loss`), and ``restart_note`` when the host exited to
    stop it and bindings went with it (``HostLosses.restart_note``); ``max_output_tokens`` is the cell's
    output budget (its pragma's or the kernel's default when it started), which what its tools
    print shares (``tool_output_bytes`` shown so far; ``tool_output_cut`` once it ran out,
    :func:`codemode.kernel.budget.tool_output_part`). ``interrupted`` is set when an interrupt
    while the kernel was idle terminated the cell (:mod:`codemode.kernel.idle_interrupt`).
    ``yielded`` is set once an execute reply went out while the cell still ran (it yielded:
    a headless cell interrupted before its end never did).
    """

    cell_id: str
    parent: dict[str, Any]
    execution_count: int
    started_at: float = field(default_factory=time.monotonic)
    ended_at: float | None = None
    state: str = "running"
    buffer: list[dict[str, Any]] = field(default_factory=list)
    final: RuntimeResponse | None = None
    in_flight: dict[str, ToolProgress] = field(default_factory=dict)
    notifications: list[str] = field(default_factory=list)
    displays: list[StatusDisplay] = field(default_factory=list)
    lost: HostLoss | None = None
    restart_note: str | None = None
    max_output_tokens: int | None = None
    tool_output_bytes: int = 0
    tool_output_cut: bool = False
    interrupted: bool = False
    yielded: bool = False

    def notify(self, text: str) -> None:
        """Keep a ``notify()`` text for the status display (only the latest few are kept)."""
        self.notifications.append(text)
        del self.notifications[:-MAX_NOTIFICATIONS_SHOWN]

    @property
    def live(self) -> bool:
        """True until everything the cell produced was shown (state ``closed``)."""
        return self.state != "closed"

    def elapsed_s(self, now: float | None = None) -> float:
        """Seconds the cell has run (until it ended, if it has)."""
        end = self.ended_at if self.ended_at is not None else (now or time.monotonic())
        return max(0.0, end - self.started_at)

    def outcome(self) -> str:
        """``running``, ``completed``, ``failed`` or ``terminated`` (execute_reply metadata)."""
        if self.final is None:
            return "running"
        if self.final.kind == "Terminated":
            return "terminated"
        return "failed" if self.final.error_text is not None else "completed"

    def finish(self, response: RuntimeResponse) -> None:
        """Record the cell's final response (the first one wins; its content items are not
        kept: the caller shows them) and its end time."""
        if self.final is None:
            self.final = RuntimeResponse(response.kind, self.cell_id, [], response.error_text)
            self.ended_at = time.monotonic()
            self.in_flight.clear()
            if self.state == "running":
                self.state = "finished"

    def close(self) -> None:
        """Everything the cell produced was shown: keep only a small summary (id, count, times,
        outcome, its status displays with the headers of their requests, under which their
        last updates go) and drop output, error text, notifications and the request: nothing is
        sent under a closed cell's request any more (``parent`` becomes ``{}``; its header was
        most of the memory a closed record kept, about 1.2 KB)."""
        self.state = "closed"
        self.buffer = []
        self.notifications = []
        self.in_flight = {}
        if self.final is not None and self.final.error_text is not None:
            self.final.error_text = ""  # the record's own copy (finish)
        self.parent = {}
        self.displays = [StatusDisplay(d.display_id, summary_parent(d.parent)) for d in self.displays]


def _progress_text(runtime_tool_call_id: str, call: ToolProgress) -> str:
    text = f"{call.tool} ({runtime_tool_call_id})"
    if call.progress is not None:
        text += f": {call.progress:g}" + (f"/{call.total:g}" if call.total else "")
    if call.message:
        text += f" {call.message}"
    return text


def status_bundle(record: CellRecord, now: float | None = None) -> dict[str, str]:
    """The status display's ``text/plain`` and ``text/html`` for ``record``."""
    cid = record.cell_id
    elapsed = f"{record.elapsed_s(now):.1f} s"
    lines: list[str] = []
    if record.state == "running":
        lines.append(f"Cell {cid} is running ({elapsed}).")
        if record.in_flight:
            calls = "; ".join(_progress_text(k, v) for k, v in record.in_flight.items())
            lines.append(f"Tool calls in flight: {calls}.")
        lines.append(f"Run %wait {cid} to see its output, or interrupt the kernel / run %terminate {cid} to stop it.")
    elif record.interrupted and record.outcome() == "terminated":
        shown = f" - run %wait {cid} to see its output." if record.state == "finished" else "; its output was shown."
        lines.append(f"Cell {cid} was stopped by an interrupt after {elapsed}{shown}")
    elif record.state == "finished":
        lines.append(f"Cell {cid} finished ({record.outcome()}) after {elapsed} - run %wait {cid} to see its output.")
    else:
        # A cell lost with its host: what it wrote after its last answer went with the host.
        shown = "." if record.lost is not None else "; its output was shown."
        lines.append(f"Cell {cid} {record.outcome()} after {elapsed}{shown}")
    if record.lost is not None and record.state != "running":
        lines.append(record.lost.sentence(cid))
    for text in record.notifications[-MAX_NOTIFICATIONS_SHOWN:]:
        lines.append(f"notify: {text}")
    plain = "\n".join(lines)

    parts = [f'<div class="codemode-status"><b>{html.escape(lines[0])}</b>']
    if record.state == "running":
        items = []
        for runtime_tool_call_id, call in record.in_flight.items():
            item = html.escape(_progress_text(runtime_tool_call_id, call))
            if call.progress is not None and call.total:
                item += f' <progress value="{call.progress:g}" max="{call.total:g}"></progress>'
            items.append(f"<li>{item}</li>")
        if items:
            parts.append(f"<div>Tool calls in flight:</div><ul>{''.join(items)}</ul>")
        parts.append(
            f"<div>Run <code>%wait {html.escape(cid)}</code> to see its output, or interrupt the "
            f"kernel / run <code>%terminate {html.escape(cid)}</code> to stop it.</div>"
        )
    if record.lost is not None and record.state != "running":
        parts.append(f"<div>{html.escape(record.lost.sentence(cid))}</div>")
    for text in record.notifications[-MAX_NOTIFICATIONS_SHOWN:]:
        parts.append(f"<div><i>notify:</i> {html.escape(text)}</div>")
    parts.append("</div>")
    return {"text/plain": plain, "text/html": "".join(parts)}


def cells_table(records: list[CellRecord], now: float | None = None) -> str:
    """``%cells``: one line per live cell (id, state, time, tool calls in flight)."""
    live = [r for r in records if r.live]
    if not live:
        return "No cells are running or waiting to be shown."
    rows = [f"{'cell':<6}{'state':<22}{'time':>9}  {'started in':<11} tool calls in flight"]
    for r in live:
        calls = ", ".join(f"{c.tool} ({k})" for k, c in r.in_flight.items()) or "-"
        state = r.state if r.state == "running" else f"finished ({r.outcome()})"
        started = f"In [{r.execution_count}]"
        rows.append(f"{r.cell_id:<6}{state:<22}{r.elapsed_s(now):>7.1f} s  {started:<11} {calls}")
    return "\n".join(rows)
