"""What the kernel knows between requests: its cells, their observers and the settings.

One :class:`KernelState` per kernel, shared by the execute path, the magics and the status
displays. Everything here is touched on the kernel's event loop only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from codemode.kernel.cells import MAX_CLOSED_RECORDS, CellRecord
from codemode.kernel.observer import CellObserver
from codemode.kernel.publish import Request

log = logging.getLogger(__name__)


@dataclass
class KernelState:
    """Cells by public id (:class:`CellRecord`), the observers of yielded cells, the request
    being handled, configuration problems already shown, and the defaults ``%config`` changes
    (``yield_time_ms``, ``max_output_tokens``; None until the config was loaded).

    ``starting`` is True while an execute waits for the host to admit its cell: the code-mode
    session can report a ``notify()``, a tool call or the cell's end before ``execute``
    returns the cell's id, so events for a cell the kernel does not know yet are held
    (:meth:`for_cell`) and run once the id is known (:meth:`cell_started`).
    """

    cells: dict[str, CellRecord] = field(default_factory=dict)
    observers: dict[str, CellObserver] = field(default_factory=dict)
    request: Request | None = None
    shown_errors: set[str] = field(default_factory=set)
    yield_time_ms: int | None = None
    max_output_tokens: int | None = None
    starting: bool = False
    held: dict[str, list[Callable[[], None]]] = field(default_factory=dict)

    def for_cell(self, cell_id: str, event: Callable[[], None]) -> None:
        """Run ``event`` (something the session reported for ``cell_id``) now, or hold it
        while an execute is starting a cell the kernel does not know yet."""
        if self.starting and cell_id not in self.cells:
            self.held.setdefault(cell_id, []).append(event)
            return
        event()

    def cell_started(self, cell_id: str | None) -> None:
        """The starting execute knows its cell (``cell_id``; None when it started none): run
        the events held for that cell in the order they came; drop any others (logged)."""
        self.starting = False
        held, self.held = self.held, {}
        for event in held.pop(cell_id, []) if cell_id is not None else []:
            event()
        for other, events in held.items():
            log.debug("%d event(s) for unknown cell %s dropped", len(events), other)

    def close(self, record: CellRecord) -> None:
        """``record``'s output was all shown: reduce it to its summary
        (:meth:`~codemode.kernel.cells.CellRecord.close`) and forget the oldest closed records
        beyond :data:`~codemode.kernel.cells.MAX_CLOSED_RECORDS`."""
        record.close()
        closed = [cell_id for cell_id, r in self.cells.items() if not r.live]
        for cell_id in closed[: max(0, len(closed) - MAX_CLOSED_RECORDS)]:
            del self.cells[cell_id]

    def target(self, cell_id: str | None) -> CellRecord | None:
        """The named record, or (``cell_id`` None) the most recently started live cell."""
        if cell_id is not None:
            return self.cells.get(cell_id)
        live = [r for r in self.cells.values() if r.live]
        return live[-1] if live else None

    def live_ids(self) -> list[str]:
        """Ids of the cells still running or with output not shown yet, oldest first."""
        return [r.cell_id for r in self.cells.values() if r.live]
