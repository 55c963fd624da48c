"""Paired measurements and their statistics, shared by every benchmark in ``bench/``.

A benchmark compares two (or more) sides that run the same work on the same machine in the
same run. Each *round* runs every side once; the order is reversed every other round (A then
B, then B then A, ...), so neither side always runs first on a warm or a cold machine. A
round's ratio (A / B) is taken within that round, which cancels slow drifts of the machine's
load; the ratios' min and median are reported with each side's median.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def order(sides: Sequence[T], round_index: int) -> list[T]:
    """``sides`` in the order they run in round ``round_index`` (0-based): as given in even
    rounds, reversed in odd ones."""
    return list(sides) if round_index % 2 == 0 else list(reversed(sides))


@dataclass(frozen=True)
class Comparison:
    """Two sides' values over the same rounds: medians, and min / median of the per-round ratio
    ``a / b`` (< 1: side A is the smaller, i.e. faster or leaner)."""

    a_median: float
    b_median: float
    ratio_min: float
    ratio_median: float
    pairs: int


def compare(a: Sequence[float], b: Sequence[float]) -> Comparison:
    """The :class:`Comparison` of ``a`` and ``b``, paired by position (same length; raises
    ``ValueError`` otherwise or when empty). A round where ``b`` is 0 gives an infinite ratio."""
    if len(a) != len(b) or not a:
        raise ValueError(f"cannot pair {len(a)} values with {len(b)}")
    ratios = [x / y if y else float("inf") for x, y in zip(a, b, strict=True)]
    return Comparison(statistics.median(a), statistics.median(b), min(ratios), statistics.median(ratios), len(a))


def slope(small: tuple[float, float], big: tuple[float, float]) -> float:
    """The growth between two sizes: ``(value_big - value_small) / (amount_big - amount_small)``,
    each argument an ``(amount, value)`` pair (e.g. MB and the median seconds at that size)."""
    (amount_small, value_small), (amount_big, value_big) = small, big
    return (value_big - value_small) / (amount_big - amount_small)


def ratio_text(a: Sequence[float], b: Sequence[float]) -> str:
    """``"min / median"`` of the per-round ratios ``a / b``, two decimals (for printed tables)."""
    found = compare(a, b)
    return f"{found.ratio_min:.2f} / {found.ratio_median:.2f}"
