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
700; :data:`KERNEL_YOUNG_THRESHOLD` in the kernel). Frozen objects are never collected, which costs nothing for objects that were going to
live until the process ends, and of the garbage of start-up that was not collected yet (no
collection is forced here: a full one takes tens of milliseconds, on the start-up path); cycles
made later are collected as before.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 10_000
"""Allocations (minus deallocations) of container objects between young-generation collections."""

KERNEL_YOUNG_THRESHOLD = 100_000
"""The same in the kernel. A cell of 1 000 parallel tool calls keeps some 40 000 containers
alive in the kernel at once (a task, coroutine frames, futures, timer handles per call), which
at 10 000 made about ten young and one middle collection a cell, scanning them again and
again for no garbage: 15 to 25 ms of the kernel's ~150 ms of CPU for such a cell. The kernel
makes little cyclic garbage, so holding up to this many young objects does not show in its
memory (the benchmark's per-cell growth stayed the same); the runtime host, which makes more
(a cell's JavaScript context), keeps :data:`YOUNG_THRESHOLD`: at 100 000 it held 10 KB more
per cell between collections."""


def freeze_startup_objects(young_threshold: int = YOUNG_THRESHOLD) -> None:
    """Freeze what is alive now and set the young generation's threshold to ``young_threshold``
    (see the module docstring). Safe to call again later (for objects made by a later start-up
    step)."""
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(young_threshold, older, oldest)


__all__ = ["KERNEL_YOUNG_THRESHOLD", "YOUNG_THRESHOLD", "freeze_startup_objects"]
