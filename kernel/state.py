"""What the kernel knows between requests: its cells, their observers and the settings.

One :class:`KernelState` per kernel, shared by the execute path, the magics and the status
displays. Everything here is touched on the kernel's event loop only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codemode.kernel.cells import MAX_CLOSED_RECORDS, CellRecord
from codemode.kernel.observer import CellObserver
from codemode.kernel.ordering import CellOrder
from codemode.kernel.publish import Request
from codemode.kernel.termination import Terminations


@dataclass
class KernelState:
    """Cells by public id (:class:`CellRecord`), the observers of yielded cells, the request
    being handled, configuration problems already shown, and the defaults ``%config`` changes
    (``yield_time_ms``, ``max_output_tokens``; None until the config was loaded).

    ``order`` puts each cell's events into the host's order (:mod:`codemode.kernel.ordering`,
    which also holds the events of a cell an execute is still starting); ``terminations``
    bounds terminates and keeps those still in flight (:mod:`codemode.kernel.termination`).
    """

    cells: dict[str, CellRecord] = field(default_factory=dict)
    observers: dict[str, CellObserver] = field(default_factory=dict)
    request: Request | None = None
    shown_errors: set[str] = field(default_factory=set)
    yield_time_ms: int | None = None
    max_output_tokens: int | None = None
    order: CellOrder = field(default_factory=CellOrder)
    terminations: Terminations = field(default_factory=Terminations)
    closed: dict[str, None] = field(default_factory=dict)
    """Ids of the closed records in ``cells``, in the order they were closed."""

    def close(self, record: CellRecord) -> None:
        """``record``'s output was all shown: reduce it to its summary
        (:meth:`~codemode.kernel.cells.CellRecord.close`), stop ordering its events, and forget
        the records closed longest ago beyond :data:`~codemode.kernel.cells.MAX_CLOSED_RECORDS`
        (kept in closing order, so a close costs the same however many cells ran before)."""
        record.close()
        self.order.forget(record.cell_id)
        self.closed[record.cell_id] = None
        while len(self.closed) > MAX_CLOSED_RECORDS:
            oldest = next(iter(self.closed))
            del self.closed[oldest]
            self.cells.pop(oldest, None)

    def target(self, cell_id: str | None) -> CellRecord | None:
        """The named record, or (``cell_id`` None) the most recently started live cell."""
        if cell_id is not None:
            return self.cells.get(cell_id)
        live = [r for r in self.cells.values() if r.live]
        return live[-1] if live else None

    def live_ids(self) -> list[str]:
        """Ids of the cells still running or with output not shown yet, oldest first."""
        return [r.cell_id for r in self.cells.values() if r.live]

    def foreground(self, cell_id: str) -> Request | None:
        """The request observing ``cell_id`` right now (an execute before its cell yielded, a
        ``%wait`` collecting), or None: the cell's events then belong to its status display."""
        request = self.request
        if request is not None and request.cell_id == cell_id and request.observing:
            return request
        return None
