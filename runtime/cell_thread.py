"""Cell threads, and the one kept ready before its cell arrives.

A strict cell runs on a thread of its own with a large C stack (:func:`start_thread`). Most of a
QuickJS cell's start is compiling the prelude (about 3 ms); the binding releases the GIL while it
compiles, so that can happen while the host does something else: at start, while the host
imports, answers the handshake and opens the session, and while a cell runs, for the next one.
A QuickJS runtime must stay on the thread that made it (its stack limit is measured from that
thread's stack), so what is kept ready is a whole cell thread: it asks the engine to prepare what
it can before a cell is known (:func:`~codemode.runtime.engines.prepare`: for QuickJS a context
with the prelude compiled, not run), then waits for its cell. At most one such spare exists: a
cell takes it (:func:`start_cell_thread`; with none ready, a new thread starts), and a cell's
thread, once its cell is done, becomes the spare unless another thread is, preparing a new
context; the others end. So the next context is compiled while the last cell's response goes
out, not while a cell runs. Nothing of a cell reaches the next: each prepared context serves
one cell, made fresh for it.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from codemode.runtime import engines

log = logging.getLogger(__name__)

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


class _Worker:
    """A cell thread: it prepares its engine, runs the cell handed to it, and then, unless another
    worker is the spare by then, becomes the spare again (a new context, prepared afresh)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[Any], None], str]] = queue.SimpleQueue()
        self.thread = start_thread(self._run, SPARE_NAME)

    def hand(self, target: Callable[[Any], None], name: str) -> None:
        self._jobs.put((target, name))

    def _run(self) -> None:
        global _spare
        while True:
            try:
                prepared = engines.prepare()
            except Exception:  # noqa: BLE001 - the cell then makes its own context and meets the failure
                log.exception("preparing a cell's engine ahead failed")
                prepared = None
            target, name = self._jobs.get()
            threading.current_thread().name = name
            target(prepared)
            del prepared
            with _lock:
                if _spare is not None:
                    return
                _spare = self
            threading.current_thread().name = SPARE_NAME


SPARE_NAME = "codemode-cell-spare"
_lock = threading.Lock()
_spare: _Worker | None = None


def keep_spare() -> None:
    """Start a spare cell thread unless one exists (the host calls it at start for strict QuickJS cells)."""
    global _spare
    with _lock:
        if _spare is None:
            _spare = _Worker()


def start_cell_thread(target: Callable[[Any], None], name: str) -> threading.Thread:
    """Run ``target(prepared)`` on the spare cell thread (a new one when there is none), named
    ``name``; ``prepared`` is what :func:`~codemode.runtime.engines.prepare` made on that
    thread, or None when that failed. When the cell is done its thread becomes the spare
    again, unless another one is."""
    global _spare
    with _lock:
        worker, _spare = _spare, None
    if worker is None:
        worker = _Worker()
    worker.hand(target, name)
    return worker.thread
