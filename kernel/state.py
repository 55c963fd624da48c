"""What the kernel knows between requests: its cells, their observers and the settings.

One :class:`KernelState` per kernel, shared by the execute path, the magics and the status
displays. Everything here is touched on the kernel's event loop only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from codemode.kernel.cells import CellRecord
from codemode.kernel.observer import CellObserver
from codemode.kernel.publish import Request


@dataclass
class KernelState:
    """Cells by public id (:class:`CellRecord`), the observers of yielded cells, the request
    being handled, configuration problems already shown, and the defaults ``%config`` changes
    (``yield_time_ms``, ``max_output_tokens``; None until the config was loaded)."""

    cells: dict[str, CellRecord] = field(default_factory=dict)
    observers: dict[str, CellObserver] = field(default_factory=dict)
    request: Request | None = None
    shown_errors: set[str] = field(default_factory=set)
    yield_time_ms: int | None = None
    max_output_tokens: int | None = None

    def target(self, cell_id: str | None) -> CellRecord | None:
        """The named record, or (``cell_id`` None) the most recently started live cell."""
        if cell_id is not None:
            return self.cells.get(cell_id)
        live = [r for r in self.cells.values() if r.live]
        return live[-1] if live else None

    def live_ids(self) -> list[str]:
        """Ids of the cells still running or with output not shown yet, oldest first."""
        return [r.cell_id for r in self.cells.values() if r.live]
