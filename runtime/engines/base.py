"""What the cell thread needs of an engine (:class:`CellEngine`).

The cell thread (``runtime/cell.py``) owns a cell's life: its event queue and the cell's state
(``runtime/cellstate.py``: its timers, tool calls, stored values and outcome). An engine owns
one JavaScript context: it installs the prelude and starts the cell's source, hands the
prelude the cell thread's messages, and can be interrupted and closed. Methods returning ``CellOutcome | None`` return an outcome
when the cell ends there (a compile error, an exception that escaped the prelude).
"""

from __future__ import annotations

from typing import Any, Protocol

from codemode.runtime.outcome import CellOutcome


class CellHostState(Protocol):
    """What an engine uses of a cell's state (``runtime/cellstate.py``'s ``CellState``; named
    here, not imported, so a cell thread that prepares an engine before the host imported
    asyncio does not import it)."""

    source: str
    tools: list[dict[str, Any]]
    heap_limit: int

    def host_call(self, op: str, arg: str) -> str | None:
        """Serve the prelude's ``__codemode_host(op, arg)``."""
        ...

    def finished(self) -> bool:
        """The cell has an outcome, was stopped or ran ``exit()``."""
        ...

    def halted(self) -> bool:
        """The cell was stopped or ran ``exit()``: no more of its JavaScript may run."""
        ...

    def untold_failure(self) -> bool:
        """The cell failed and the text of its failure could not be formatted."""
        ...

    def set_outcome(self, outcome: CellOutcome) -> None:
        """End the cell with ``outcome`` unless it has one."""
        ...

    def report_began(self) -> None:
        """The engine is ready and the cell's own code runs next."""
        ...


class CellHost(Protocol):
    """What an engine uses of the cell thread (``runtime/cell.py``'s ``CellRuntime``)."""

    @property
    def state(self) -> CellHostState:
        """The cell's state, which the cell thread holds."""
        ...

    def interrupt_ready(self) -> None:
        """The engine can be interrupted from now on."""
        ...

    def js_failure(self, text: str, *, compile_time: bool) -> CellOutcome:
        """The outcome of an engine exception that escaped JavaScript."""
        ...

    def waiting_on_nothing(self) -> bool:
        """No timer, tool call or event can wake the cell."""
        ...

    def post_engine_outcome(self, outcome: CellOutcome) -> None:
        """End the cell with ``outcome`` from another thread."""
        ...

    def wake(self) -> None:
        """Make the cell thread look at the cell again (any thread)."""
        ...


class CellEngine(Protocol):
    """One cell's JavaScript context. All methods but :meth:`interrupt` run on the cell thread."""

    poll_s: float | None
    """How often the cell thread looks at :meth:`stalled` while it waits (None: only when idle)."""

    def start(self) -> CellOutcome | None:
        """Create the context, install the prelude and start the cell's source."""
        ...

    def deliver(self, op: str, arg: str) -> CellOutcome | None:
        """Hand the prelude's dispatcher ``op`` (``"settle"`` with a settlement's JSON,
        ``"fire"`` with a timer id), then run what it made ready."""
        ...

    def run_jobs(self) -> CellOutcome | None:
        """Run the promise jobs that are ready, also after the cell's end until it is halted
        (an engine that runs its own jobs does nothing)."""
        ...

    def end_checkpoint(self) -> None:
        """The cell has ended: return once the promise jobs of the microtask checkpoint it
        ended in have run, or at once when it is halted. No message is delivered after the
        end; only what the ending checkpoint queued still runs."""
        ...

    def stalled(self) -> CellOutcome | None:
        """An outcome when the cell can never go on (its heap is exhausted), else None."""
        ...

    def null_is_out_of_memory(self) -> bool:
        """Whether a ``null`` the runtime met is the engine's report of a failed allocation."""
        ...

    def interrupt(self) -> None:
        """Stop the JavaScript that runs now, uncatchably (any thread)."""
        ...

    def finish(self, outcome: CellOutcome) -> CellOutcome:
        """The cell's final outcome (an engine may word an exhausted heap its own way)."""
        ...

    def close(self) -> None:
        """Free the context (after the outcome was reported)."""
        ...
