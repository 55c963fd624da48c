"""Background observation of a yielded cell, so the kernel knows its output and end at once.

Why: a cell that yielded keeps running after its execute_reply. Codex's host sends
``cell/closed`` only after a cell's final response was *delivered*, and a session allows one
observer per cell at a time (a second ``wait`` gets ``exec cell <id> already has an active
observer``). So the kernel is the cell's only observer: a
:class:`CellObserver` task calls ``session.wait`` in short rounds (:data:`POLL_MS`), keeps the
content items in the :class:`~codemode.kernel.cells.CellRecord`'s buffer and records the
final response. ``%wait`` then reads from that buffer (:meth:`CellObserver.collect`) and
``%terminate`` / an interrupt goes through :meth:`CellObserver.terminate`.

Deviation from Codex, documented: a ``%wait`` that times out returns everything received up
to the end of the polling round running at its deadline (at most :data:`POLL_MS` later).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codemode.kernel.cells import CellRecord
from codemode.kernel.host_loss import HostLoss

from codemode.errors import HostConnectionError
from codemode.responses import RuntimeResponse, WaitOutcome

if TYPE_CHECKING:
    from codemode.session import CodeModeSession

log = logging.getLogger(__name__)

POLL_MS = 500
"""Length of one background ``session.wait`` round, in milliseconds."""
EARLY_YIELD_SLACK_S = 0.05
"""A round that yields this much before its timer ran out was ended by ``yield_control()``."""


class CellObserver:
    """Owns the observation of one yielded cell (see the module docstring).

    ``code_mode`` is the code-mode session; ``on_change(record)`` is called (on the loop)
    whenever the record's buffer or final response changed. ``max_output_tokens`` is the
    budget passed to each round. ``explain(cell_id, exc)`` tells whether a failed round means
    the runtime host stopped (a :class:`~codemode.kernel.host_loss.HostLoss` kept on the record).
    """

    def __init__(
        self,
        code_mode: CodeModeSession,
        record: CellRecord,
        on_change: Callable[[CellRecord], None],
        *,
        max_output_tokens: int | None = None,
        explain: Callable[[str, BaseException], HostLoss | None] | None = None,
    ) -> None:
        self.code_mode = code_mode
        self.record = record
        self.on_change = on_change
        self.max_output_tokens = max_output_tokens
        self.explain = explain
        self._changed = asyncio.Event()
        self._round_done = asyncio.Event()
        self._yields = 0
        self._terminating = False
        self._terminated_items: list[dict[str, Any]] | None = None
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the polling task (idempotent)."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    async def aclose(self) -> None:
        """Stop polling (the cell itself is left alone)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    def _signal(self) -> None:
        self._changed.set()
        try:
            self.on_change(self.record)
        except Exception:  # a display problem must not stop the observation
            log.exception("status update for cell %s failed", self.record.cell_id)

    async def _run(self) -> None:
        record = self.record
        while record.final is None:
            started = time.monotonic()
            try:
                outcome: WaitOutcome = await self.code_mode.wait(
                    record.cell_id,
                    yield_time_ms=POLL_MS,
                    max_output_tokens=self.max_output_tokens,
                )
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # host gone, session shut down, ...
                if not self._terminating:
                    if self.explain is not None and record.final is None:
                        record.lost = self.explain(record.cell_id, exc)
                    record.finish(RuntimeResponse("Result", record.cell_id, [], error_text=str(exc)))
                    self._signal()
                self._round_done.set()
                return
            response = outcome.response
            if self._terminating and response.kind == "Terminated":
                self._terminated_items = list(response.content_items)
                self._round_done.set()
                return
            if not outcome.live:
                if not self._terminating and record.final is None:
                    record.finish(response)
                    self._signal()
                self._round_done.set()
                return
            record.buffer.extend(response.content_items)
            if response.finished:
                record.finish(RuntimeResponse(response.kind, response.cell_id, [], response.error_text))
            elif time.monotonic() - started < POLL_MS / 1000 - EARLY_YIELD_SLACK_S:
                self._yields += 1
            self._round_done.set()
            self._round_done = asyncio.Event()
            self._signal()

    async def collect(self, yield_time_ms: int) -> tuple[list[dict[str, Any]], RuntimeResponse | None]:
        """Wait like Codex's ``wait``: until the cell ends, ``yield_control()`` runs, or
        ``yield_time_ms`` passes; then take the buffered items.

        Returns ``(items, final)``; ``final`` is None while the cell still runs. Raises
        ``asyncio.CancelledError`` when cancelled (the buffer is left intact).
        """
        record = self.record
        deadline = time.monotonic() + yield_time_ms / 1000
        yields_before = self._yields
        while record.final is None and self._yields == yields_before:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                # Take what the round running at the deadline brings, then stop.
                round_done = self._round_done
                if self._task is not None and not self._task.done():
                    try:
                        await asyncio.wait_for(round_done.wait(), POLL_MS / 1000 + 1)
                    except TimeoutError:
                        pass
                break
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except TimeoutError:
                pass
        return self.take()

    def take(self) -> tuple[list[dict[str, Any]], RuntimeResponse | None]:
        """Remove and return the buffered items and the final response (if the cell ended)."""
        items, self.record.buffer = self.record.buffer, []
        return items, self.record.final

    async def terminate(self, max_output_tokens: int | None = None) -> tuple[list[dict[str, Any]], RuntimeResponse]:
        """Terminate the cell (unless it already ended) and return ``(items, final)``.

        A natural completion that happened first wins (as Codex's terminate reports it).
        Errors of the session give a ``Result`` with that text, except that a host connection
        failure counts as the termination (the cell is gone with its host).
        """
        record = self.record
        if record.final is None:
            self._terminating = True
            try:
                outcome: WaitOutcome = await self.code_mode.terminate(
                    record.cell_id, max_output_tokens=max_output_tokens
                )
                response = outcome.response
            except HostConnectionError:
                response = RuntimeResponse("Terminated", record.cell_id, [])
            except Exception as exc:
                response = RuntimeResponse("Result", record.cell_id, [], error_text=str(exc))
            items = list(response.content_items)
            if not items and self._terminated_items:
                items = self._terminated_items
            if record.final is None:
                record.buffer.extend(items)
                if outcome_is_missing(response) and record.final is None:
                    response = RuntimeResponse("Terminated", record.cell_id, [])
                record.finish(RuntimeResponse(response.kind, response.cell_id, [], response.error_text))
            await self.aclose()
            self._signal()
        items, final = self.take()
        assert final is not None
        return items, final


def outcome_is_missing(response: RuntimeResponse) -> bool:
    """True for the ``exec cell <id> not found`` answer (the cell was already gone)."""
    return (
        response.kind == "Result"
        and (response.error_text or "").startswith("exec cell ")
        and (response.error_text or "").endswith(" not found")
    )
