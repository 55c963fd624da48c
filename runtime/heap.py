"""The per-cell heap limit and how an exhausted heap is told.

Every cell's QuickJS runtime gets a memory limit (the session's ``maxHeapSizeBytes``,
else :data:`DEFAULT_HEAP_LIMIT_BYTES`; Codex's own host ignores the setting and crashes
as a whole when V8 runs out). An allocation failure anywhere, in the cell's code, the
prelude, the bridge or a promise job, ends that cell with :func:`out_of_memory_text`;
the host and the session go on.

QuickJS reports a failed allocation as ``InternalError: out of memory``, or as a bare
``null`` when it could not even allocate that error. By the time a ``null`` reaches the
runtime, the frames that held the memory may have unwound and freed it, so a thrown
``null`` counts as an exhausted heap when at least half of the limit is still in use, or
when the cell's source never mentions ``null`` (a cell cannot easily throw what it never
names); a cell that does ``throw null`` itself keeps Codex's ``error_text`` ``"null"``
(:func:`null_is_out_of_memory`).
"""

from __future__ import annotations

import re
from typing import Any

DEFAULT_HEAP_LIMIT_BYTES = 256 * 1024 * 1024
"""Per-cell QuickJS memory limit when the session sets none (our improvement on Codex)."""
NULL_IS_OUT_OF_MEMORY_FRACTION = 0.5
"""A thrown ``null`` is an allocation failure when this share of the limit is in use."""


def out_of_memory_text(limit: int) -> str:
    """The ``error_text`` of a cell that exhausted its heap of ``limit`` bytes."""
    return f"RangeError: out of memory: the cell exceeded its heap limit of {limit} bytes (maxHeapSizeBytes)"


UNTOLD_FAILURE_TEXT = "Error: the cell failed, and the text of its error could not be formatted"
"""The ``error_text`` of a cell whose failure could not be formatted on a heap that is not full."""


def untold_failure_text(ctx: Any, limit: int, exhausted: str) -> str:
    """The ``error_text`` of a cell that failed where formatting its error failed too
    (``prelude/report.js``): ``exhausted`` (the heap-limit text) when ``ctx``'s heap of
    ``limit`` bytes is nearly full, else :data:`UNTOLD_FAILURE_TEXT`."""
    return exhausted if heap_nearly_full(ctx, limit) else UNTOLD_FAILURE_TEXT


def shared_out_of_memory_text(limit: int) -> str:
    """The ``error_text`` of a notebook-profile cell that exhausted the heap its session's
    cells share (``limit`` bytes), with what holds memory there: earlier cells' bindings."""
    return (
        out_of_memory_text(limit).replace(
            "the cell exceeded its heap limit", "the session's cells exceeded their heap limit"
        )
        + ". The notebook profile's cells share one heap, and what earlier cells declared keeps its memory: "
        "set a large binding to null to free it."
    )


def heap_nearly_full(ctx: Any, limit: int) -> bool:
    """True when ``ctx`` (a ``quickjs.Context``) uses at least half of ``limit`` bytes."""
    try:
        return bool(ctx.memory()["malloc_size"] >= NULL_IS_OUT_OF_MEMORY_FRACTION * limit)
    except Exception:  # noqa: BLE001 - the check is best effort
        return False


_NULL_WORD = re.compile(r"\bnull\b")


def null_is_out_of_memory(source: str, ctx: Any, limit: int) -> bool:
    """Whether a thrown ``null`` met by the runtime is an allocation failure (see the module docstring)."""
    return _NULL_WORD.search(source) is None or heap_nearly_full(ctx, limit)


def is_out_of_memory(error_text: str, source: str, ctx: Any, limit: int) -> bool:
    """Whether an exception text that escaped QuickJS is an allocation failure."""
    if error_text.startswith("InternalError: out of memory"):
        return True
    return error_text == "null" and null_is_out_of_memory(source, ctx, limit)
