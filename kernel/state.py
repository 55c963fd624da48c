"""What the kernel knows between requests: its cells, their observers and the settings.

One :class:`KernelState` per kernel, shared by the execute path, the magics and the status
displays. Everything here is touched on the kernel's event loop only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from codemode.cell_events import CellEvent, CellStream
from codemode.kernel.cell_reader import CellReader
from codemode.kernel.cells import MAX_CLOSED_RECORDS, CellRecord
from codemode.kernel.observer import CellObserver
from codemode.kernel.publish import Request
from codemode.kernel.termination import Terminations


def _unset(_event: CellEvent) -> None:
    return None


@dataclass
class KernelState:
    """Cells by public id (:class:`CellRecord`), the observers of yielded cells, the request
    being handled, configuration problems already shown, and the defaults ``%config`` changes
    (``yield_time_ms``, ``max_output_tokens``; None until the config was loaded).

    ``readers`` hold the one reader of each cell's events (:mod:`codemode.kernel.cell_reader`),
    whose events that are not answers go to ``handle_event`` (set by the kernel);
    ``terminations`` bounds terminates and keeps those still in flight
    (:mod:`codemode.kernel.termination`).
    """

    cells: dict[str, CellRecord] = field(default_factory=dict)
    observers: dict[str, CellObserver] = field(default_factory=dict)
    request: Request | None = None
    shown_errors: set[str] = field(default_factory=set)
    yield_time_ms: int | None = None
    max_output_tokens: int | None = None
    readers: dict[str, CellReader] = field(default_factory=dict)
    handle_event: Callable[[CellEvent], None] = _unset
    starting: asyncio.Future[None] | None = None
    """Set while an execute waits for the host to admit its cell (done once it knows it)."""
    terminations: Terminations = field(default_factory=Terminations)
    closed: dict[str, None] = field(default_factory=dict)
    """Ids of the closed records in ``cells``, in the order they were closed."""

    def close(self, record: CellRecord) -> None:
        """``record``'s output was all shown: reduce it to its summary
        (:meth:`~codemode.kernel.cells.CellRecord.close`), handle its later events as they
        come (:meth:`~codemode.kernel.cell_reader.CellReader.release`), and forget
        the records closed longest ago beyond :data:`~codemode.kernel.cells.MAX_CLOSED_RECORDS`
        (kept in closing order, so a close costs the same however many cells ran before)."""
        record.close()
        reader = self.readers.get(record.cell_id)
        if reader is not None:
            reader.release()
        self.closed[record.cell_id] = None
        while len(self.closed) > MAX_CLOSED_RECORDS:
            oldest = next(iter(self.closed))
            del self.closed[oldest]
            self.cells.pop(oldest, None)
            self.readers.pop(oldest, None)

    async def caught_up(self, cell_id: str) -> None:
        """Return once the reader of ``cell_id``'s events has taken every event put before this
        call (an execute still waiting for its cell's id is waited for first: the cell may be
        its); at once for a cell the kernel does not read. Work the kernel starts for a cell on
        its own (an approval question) so sees what the host's earlier frames did."""
        starting = self.starting
        if cell_id not in self.readers and starting is not None and not starting.done():
            await asyncio.shield(starting)
        reader = self.readers.get(cell_id)
        if reader is not None:
            await reader.stream.caught_up()

    def read(self, stream: CellStream) -> CellReader:
        """The kernel's reader of a cell's ``stream`` (made once per cell)."""
        reader = self.readers.get(stream.cell_id)
        if reader is None or reader.stream is not stream:
            reader = self.readers[stream.cell_id] = CellReader(stream, self.handle_event)
        return reader

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
