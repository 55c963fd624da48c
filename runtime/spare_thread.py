"""A strict cell's thread, started and prepared before its cell arrives.

Before the first line of a cell runs, the host starts its thread (a thread with a 64 MiB C
stack: about a millisecond until it runs) and the engine prepares it (for QuickJS: a context
and the 65 KB prelude compiled, 2 to 3 ms; :func:`~codemode.runtime.engines.preparer`). On a
trivial cell that is most of the host's time. So the host keeps :data:`SPARE_COUNT` *spares*:
cell threads started ahead, which have done their engine's preparation and wait for a cell.
A cell takes the oldest (:meth:`SpareThreads.run`); the cell's thread makes a new one once its
cell has reported its end (:meth:`SpareThreads.refill`), so the next cell finds one ready
while this cell's reply travels. QuickJS releases the GIL while it compiles, so a spare being
prepared does not hold up the host's event loop.

The prepared state is made on the thread that will run the cell (a QuickJS context is used on
the thread that made it). A cell that finds no spare (more cells started at once than there
are spares, or spares made for another engine) gets a new thread that prepares inline, as
without spares.
"""

from __future__ import annotations

import collections
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Target = Callable[[Any], None]
"""What runs on a cell thread: called with the prepared state (None: nothing prepared)."""

SPARE_COUNT = 2
"""Spares kept: with one, a cell sent as soon as the previous one answered (a notebook run
with nbclient, a harness) finds it still compiling; two keep one ready while the other is
made."""
THREAD_STACK_BYTES = 64 * 1024 * 1024
"""C stack of a cell thread; comfortably above the engines' JavaScript stack limits."""


def start_thread(target: Callable[[], None], name: str) -> threading.Thread:
    """Start a daemon thread running ``target`` with a C stack of :data:`THREAD_STACK_BYTES`."""
    old = threading.stack_size()
    try:
        threading.stack_size(THREAD_STACK_BYTES)
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        return thread
    finally:
        threading.stack_size(old)


class _Spare:
    """One started thread: prepares with ``prepare``, then runs the target it is handed."""

    def __init__(self, prepare: Callable[[], Any]) -> None:
        self.prepare = prepare
        self._handoff: queue.SimpleQueue[tuple[Target, str] | None] = queue.SimpleQueue()
        self.thread = start_thread(self._main, "codemode-spare-cell")

    def hand(self, target: Target, name: str) -> None:
        self._handoff.put((target, name))

    def retire(self) -> None:
        self._handoff.put(None)

    def _main(self) -> None:
        try:
            prepared = self.prepare()
        except Exception:  # noqa: BLE001 - the cell prepares inline instead
            log.exception("could not prepare a spare cell thread")
            prepared = None
        handed = self._handoff.get()
        if handed is None:
            return
        target, name = handed
        threading.current_thread().name = name
        target(prepared)


class SpareThreads:
    """Up to ``count`` spare cell threads, oldest taken first (see the module docstring).
    Thread-safe."""

    def __init__(self, count: int = SPARE_COUNT) -> None:
        self.count = count
        self._lock = threading.Lock()
        self._spares: collections.deque[_Spare] = collections.deque()

    def run(self, target: Target, name: str, prepare: Callable[[], Any] | None) -> threading.Thread:
        """Run ``target(prepared)`` on a spare made with ``prepare``, named ``name``; without
        one, on a new thread with ``prepared`` None. Spares made with another function are
        retired. Returns the thread."""
        retired: list[_Spare] = []
        taken: _Spare | None = None
        with self._lock:
            while self._spares and taken is None:
                spare = self._spares.popleft()
                if prepare is not None and spare.prepare == prepare:
                    taken = spare
                else:
                    retired.append(spare)
        for spare in retired:
            spare.retire()
        if taken is not None:
            taken.hand(target, name)
            return taken.thread
        return start_thread(lambda: target(None), name)

    def refill(self, prepare: Callable[[], Any] | None) -> None:
        """Start spares prepared with ``prepare`` until there are ``count`` (None: nothing to do)."""
        if prepare is None:
            return
        with self._lock:
            while len(self._spares) < self.count:
                try:
                    self._spares.append(_Spare(prepare))
                except RuntimeError:  # no new thread now (interpreter shutting down, limits)
                    log.warning("could not start a spare cell thread", exc_info=True)
                    return


SPARES = SpareThreads()
"""The host process's spare cell thread."""

__all__ = ["SPARES", "SPARE_COUNT", "THREAD_STACK_BYTES", "SpareThreads", "Target", "start_thread"]
