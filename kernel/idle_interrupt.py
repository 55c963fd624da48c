"""An interrupt while the kernel is idle terminates the cells still running in the background.

A cell that yielded keeps running after its execute request ended, and its status display
says to "interrupt the kernel" to stop it. When an interrupt finds no request running and no
execute request waiting (:mod:`codemode.kernel.interrupts`), it is meant for those cells:
:meth:`IdleInterrupts.interrupt` terminates every cell that is still running, each as
``%terminate`` would (bounded, :func:`codemode.kernel.termination.stop_cell`), all at once.
Each cell's status display then says it was stopped by an interrupt; what it produced and did
not show yet is kept for ``%wait``, which shows it with ``CellTerminated``, as for a cell that
ended in the background. A cell that completed before the terminate reached it keeps its own
outcome. Cells that ended but were not shown yet are left alone.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from codemode.kernel.cells import CellRecord
from codemode.kernel.displays import StatusDisplays
from codemode.kernel.services import Services, ServicesLoader
from codemode.kernel.state import KernelState
from codemode.kernel.termination import stop_cell

log = logging.getLogger(__name__)


class IdleInterrupts:
    """Terminates ``state``'s background cells on an idle interrupt (module docstring)."""

    def __init__(self, state: KernelState, loader: ServicesLoader, displays: StatusDisplays) -> None:
        self.state = state
        self.loader = loader
        self.displays = displays
        self._stopping: set[asyncio.Task[Any]] = set()

    def running(self) -> list[CellRecord]:
        """The cells running in the background (followed by an observer), oldest first."""
        state = self.state
        return [r for r in state.cells.values() if r.state == "running" and r.cell_id in state.observers]

    def interrupt(self) -> None:
        """Start terminating every background cell (on the kernel's loop; returns at once)."""
        services = self.loader.built()
        records = self.running()
        if services is None or not records:
            return
        log.info("interrupt while idle: terminating cells %s", ", ".join(r.cell_id for r in records))
        for record in records:
            task = asyncio.ensure_future(self._stop(services, record))
            self._stopping.add(task)
            task.add_done_callback(self._stopping.discard)

    async def _stop(self, services: Services, record: CellRecord) -> None:
        record.interrupted = True
        observer = self.state.observers.get(record.cell_id)
        try:
            items = await stop_cell(
                self.state.terminations,
                services,
                record,
                record.max_output_tokens,
                reader=self.state.readers.get(record.cell_id),
                observer=observer,
            )
        except Exception:
            log.exception("terminating cell %s after an interrupt failed", record.cell_id)
            return
        record.buffer = items  # shown by %wait, with the cell's outcome
        self.displays.update(record, now=True)


__all__ = ["IdleInterrupts"]
