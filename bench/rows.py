"""What a row of ``python -m bench`` is, and how one is run: codemode and its peer alternating.

A :class:`Row` names a path of the speed issue, what codemode and its peer run, the goal, and
the sizes it runs at (one, or two for its growth). :func:`run_row` sets up both :class:`Side`
objects (a kernel, a host session...), then, for every pair and every size, samples them in
:func:`bench.pairing.order` (A then B, then B then A, ...). A sample is a number in the row's
base unit: seconds, or bytes for memory.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.pairing import Comparison, compare, order, slope


class Lossy(Exception):
    """A sample received other output than the work produces (lost or cut output): its time
    would not measure the work, so the row is reported as lossy, without a ratio."""


class Side:
    """One side of a row, set up once (a context manager) and sampled ``pairs`` times per size."""

    def __enter__(self) -> Side:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def sample(self, size: int) -> float:
        """One measurement of the work at ``size``, in the row's base unit."""
        raise NotImplementedError

    def notes(self) -> list[str]:
        """Facts worth printing beside the row (what was received, a second process's memory)."""
        return []

    def growth(self) -> float | None:
        """The side's own growth figure, in the row's growth unit, for rows that measure at one
        size (None: the slope between the row's two sizes is used)."""
        return None


@dataclass(frozen=True)
class Goal:
    """The issue's goal: ``ratio`` codemode/peer at most ``limit``, or (``absolute_ms``)
    codemode's median at most ``limit`` milliseconds."""

    limit: float
    absolute_ms: bool = False

    @property
    def text(self) -> str:
        return f"<= {self.limit:g} ms" if self.absolute_ms else f"<= {self.limit:g}x"

    def met(self, found: Comparison) -> bool:
        if self.absolute_ms:
            return found.a_median * 1e3 <= self.limit
        return found.ratio_median <= self.limit


def present() -> str | None:
    """The default ``Row.peer_missing``: the peer is always here (None)."""
    return None


@dataclass(frozen=True)
class Row:
    """A benchmark row; ``setup(stack, with_peer)`` enters codemode's side and, if ``with_peer``,
    the peer's into ``stack`` and returns them. ``sizes``: the full size last (the table's), a
    smaller one first when the row has a growth; ``amount(size)`` is the work in the growth's
    unit (MB, calls, lines); a slope in base unit per amount times ``growth_scale`` is printed
    in ``growth_unit``. ``unit`` is ``"s"`` (printed as ms) or ``"B"`` (bytes per cell)."""

    name: str
    path: str
    ours: str
    peer: str
    goal: Goal
    setup: Callable[[contextlib.ExitStack, bool], tuple[Side, Side | None]]
    peer_missing: Callable[[], str | None] = present
    sizes: tuple[int, ...] = (1,)
    amount: Callable[[int], float] = float
    growth_unit: str | None = None
    growth_scale: float = 1.0
    unit: str = "s"
    size_text: Callable[[int], str] = str
    alone: bool = True
    """Measure codemode's side when the peer is missing (False where another row measures it)."""


@dataclass
class RowResult:
    """A row's samples per size (codemode's, the peer's), or why it has none (``missing``: the
    peer is not here; ``failure``: the run broke; ``lossy``: output was lost)."""

    row: Row
    samples: dict[int, tuple[list[float], list[float]]] = field(default_factory=dict)
    missing: str | None = None
    failure: str | None = None
    lossy: str | None = None
    notes: list[str] = field(default_factory=list)
    own_growth: tuple[float | None, float | None] = (None, None)

    @property
    def comparison(self) -> Comparison | None:
        """Codemode against the peer at the full size, when both were measured whole."""
        if self.missing or self.failure or self.lossy:
            return None
        ours, peer = self.samples[self.row.sizes[-1]]
        return compare(ours, peer) if ours and peer else None

    def ours_median(self) -> float | None:
        """Codemode's median at the full size (also when the peer is missing), or None."""
        ours = self.samples.get(self.row.sizes[-1], ([], []))[0]
        return statistics.median(ours) if ours and not self.failure else None

    def growth(self) -> tuple[float | None, float | None]:
        """(codemode, peer) growth in the row's growth unit; None where not measured."""
        if self.row.growth_unit is None or self.failure or self.lossy:
            return (None, None)
        if len(self.row.sizes) < 2:
            return self.own_growth
        small, big = self.row.sizes[0], self.row.sizes[-1]
        found: list[float | None] = []
        for side in (0, 1):
            lows, highs = self.samples[small][side], self.samples[big][side]
            if not lows or not highs:
                found.append(None)
                continue
            low, high = statistics.median(lows), statistics.median(highs)
            per = slope((self.row.amount(small), low), (self.row.amount(big), high))
            found.append(per * self.row.growth_scale)
        return (found[0], found[1])


def run_row(row: Row, pairs: int) -> RowResult:
    """Measure ``row``: ``pairs`` rounds, each running every size on both sides in alternating
    order (codemode alone when the peer is missing). Failures are kept in the result, not raised."""
    result = RowResult(row, {size: ([], []) for size in row.sizes}, missing=row.peer_missing())
    if result.missing and not row.alone:
        return result
    try:
        with contextlib.ExitStack() as stack:
            ours, peer = row.setup(stack, result.missing is None)
            sides = [side for side in (ours, peer) if side is not None]
            for index in range(pairs):
                for size in row.sizes:
                    for side in order(sides, index):
                        result.samples[size][0 if side is ours else 1].append(side.sample(size))
                print(f"  {row.name}: pair {index + 1}/{pairs}", file=sys.stderr, flush=True)
            result.notes = [*ours.notes(), *(peer.notes() if peer else [])]
            result.own_growth = (ours.growth(), peer.growth() if peer else None)
    except Lossy as exc:
        result.lossy = str(exc)
    except Exception as exc:  # noqa: BLE001 - one broken row must not hide the others' results
        traceback.print_exc(file=sys.stderr)
        result.failure = f"{type(exc).__name__}: {exc}"
    return result
