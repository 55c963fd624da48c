"""A strict cell's thread, started and prepared before its cell arrives.

Before the first line of a cell runs, the host starts its thread (a thread with a 64 MiB C
stack: about a millisecond until it runs) and the engine prepares it (for QuickJS: a context
and the 65 KB prelude compiled, 2 to 3 ms; :func:`~codemode.runtime.engines.preparer`). On a
trivial cell that is most of the host's time. So the host keeps one *spare*: a cell thread
started ahead, which has done its engine's preparation and waits for a cell. A cell takes it
(:meth:`SpareThreads.run`); the cell's thread makes the next spare once its cell has reported
its end (:meth:`SpareThreads.refill`), so the next cell finds one ready while this cell's
reply travels. QuickJS releases the GIL while it compiles, so a spare being prepared does
not hold up the host's event loop.

The prepared state is made on the thread that will run the cell (a QuickJS context is used on
the thread that made it). A cell that finds no spare (two cells started at once, or a spare
made for another engine) gets a new thread that prepares inline, as without spares.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

Target = Callable[[Any], None]
"""What runs on a cell thread: called with the prepared state (None: nothing prepared)."""

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
    """At most one spare cell thread (see the module docstring). Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._spare: _Spare | None = None

    def run(self, target: Target, name: str, prepare: Callable[[], Any] | None) -> threading.Thread:
        """Run ``target(prepared)`` on the spare made with ``prepare``, named ``name``; without
        such a spare, on a new thread with ``prepared`` None. Returns the thread."""
        with self._lock:
            spare, self._spare = self._spare, None
        if spare is not None and prepare is not None and spare.prepare == prepare:
            spare.hand(target, name)
            return spare.thread
        if spare is not None:
            spare.retire()
        return start_thread(lambda: target(None), name)

    def refill(self, prepare: Callable[[], Any] | None) -> None:
        """Start a spare prepared with ``prepare`` unless one exists (None: nothing to do)."""
        if prepare is None:
            return
        with self._lock:
            if self._spare is not None:
                return
            try:
                self._spare = _Spare(prepare)
            except RuntimeError:  # no new thread now (interpreter shutting down, limits)
                log.warning("could not start a spare cell thread", exc_info=True)


SPARES = SpareThreads()
"""The host process's spare cell thread."""

__all__ = ["SPARES", "THREAD_STACK_BYTES", "SpareThreads", "Target", "start_thread"]
