"""Garbage collection of a long-running codemode process (the kernel, the runtime host).

CPython's cyclic collector examines, at each full collection, every container object alive. A
kernel holds some hundred thousand objects made at start-up (ipykernel, IPython, zmq, the
services) that live as long as the process, and a cell with 1 000 parallel tool calls makes
enough objects (tasks, futures, frames) to trigger a full collection several times: in one
measurement, 8 full collections took 0.5 s over ten such cells, about a fifth of their time.

:func:`freeze_startup_objects` moves every object alive into the collector's permanent
generation (``gc.freeze``, made for this: "to avoid ... garbage collection overhead for
objects that live for the rest of the program"), so later collections only look at what came
after; and it makes young collections rarer (:data:`YOUNG_THRESHOLD` allocations instead of
700). Frozen objects are never collected, which costs nothing for objects that were going to
live until the process ends, and of the garbage of start-up that was not collected yet (no
collection is forced here: a full one takes tens of milliseconds, on the start-up path); cycles
made later are collected as before.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Allocations (minus deallocations) of container objects between young-generation collections."""


def freeze_startup_objects() -> None:
    """Freeze what is alive now and raise the young generation's threshold (see the module
    docstring). Safe to call again later (for objects made by a later start-up step)."""
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_THRESHOLD, older, oldest)


__all__ = ["YOUNG_THRESHOLD", "freeze_startup_objects"]
