"""From a cell's thread to the asyncio loop: events in order, in batches, with backpressure.

A cell thread can produce events far faster than the loop can write frames (``while
(true) notify(...)``). Left unbounded, such a flood starves the loop: a terminate waits
behind tens of megabytes of frames and answers. Three bounds keep the loop in charge:

- :class:`EventPipe` hands events to the loop in emission order, scheduling one pump
  callback per batch rather than one ``call_soon_threadsafe`` per event; the pump runs
  at most :data:`PUMP_BATCH` events per loop iteration, so reading requests is never
  starved, and the thread waits while :data:`MAX_QUEUED_EVENTS` events are not run yet.
  Content items do not wake the loop by themselves (nothing waits for one): they run with
  the next event that does, once :data:`PUMP_BATCH` are queued, or when a response is
  about to take the cell's output (:meth:`EventPipe.run_quiet`).
- :class:`Window` bounds what waits for the client: notifications whose delegate answer
  has not arrived (:data:`MAX_NOTIFICATIONS_IN_FLIGHT`) and output no response has taken
  yet (:data:`MAX_BUFFERED_OUTPUT`). The JavaScript call blocks until there is room.

Every wait ends when the cell is stopped, so a terminate is never held up by a full pipe.
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import threading
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

PUMP_BATCH = 256
"""Events run per loop iteration; the loop polls its I/O between batches."""
MAX_QUEUED_EVENTS = 4096
"""Events the thread may have posted that the loop has not run yet."""
MAX_NOTIFICATIONS_IN_FLIGHT = 64
"""Notifications of one cell whose delegate answer is outstanding.

Each ``notify()`` is a ``delegate/request`` the client answers at once; 64 in flight keep
the pipe busy (a round trip is well under a millisecond, so thousands of notifications a
second still flow) while bounding what a flood puts ahead of a terminate in both
directions of the pipe to 64 small frames per cell, well inside the client's delegate
capacity (4096, the ``delegate-capacity-4096`` capability)."""
MAX_BUFFERED_OUTPUT = 64 * 1024 * 1024
"""Output (see :func:`item_cost`) a cell may have emitted that no response has taken yet.

64 MiB is the frame limit, the most one response can carry, so no response Codex's host
could have written is cut short; past it ``text()`` and the other helpers wait for an
observer (a yield, a wait, a terminate) to take the buffer. An execute's observation then
ends at once with ``Yielded``, so its answer is not held until its yield time (Codex's host
answers such an execute as soon as the cell ends, with the error ``code-mode initial response
exceeds the IPC frame limit``); a wait keeps its yield time, so a client that follows a cell
with long waits is not sent a flood faster than it asked (``runtime/livecell.py``)."""
_WAIT_SLICE_S = 0.5


def item_cost(item: dict[str, Any]) -> int:
    """What one content item counts against :data:`MAX_BUFFERED_OUTPUT`: its characters plus 256.

    The fixed part stands for the item's own memory, so a flood of empty texts is bounded too.
    A nested value (the MIME bundle of the notebook profile's ``display_data`` and
    ``execute_result`` items) counts the characters of its JSON text.
    """
    cost = 256
    for value in item.values():
        if isinstance(value, str):
            cost += len(value)
        elif isinstance(value, dict | list):
            cost += len(json.dumps(value, ensure_ascii=False))
    return cost


class Window:
    """A count that a cell thread raises and the loop lowers; the thread waits while it is over a bound.

    The count is what the thread added (``_added``, written by that thread alone) less what
    was taken off (``_removed``, written under the lock, never past ``_added``). While there
    is room, :meth:`acquire` adds without the lock: a ``_removed`` it reads out of date only
    makes the count look higher, and then it takes the lock and looks again. That spares a
    lock per ``text()``. While the thread waits, :meth:`full` says so to other threads, and
    ``on_full`` told them once before it began to wait.
    """

    def __init__(
        self,
        bound: int,
        stopped: Callable[[], bool],
        lock: threading.Condition,
        on_full: Callable[[], None] | None = None,
    ) -> None:
        self._bound = bound
        self._stopped = stopped
        self._cond = lock
        self._on_full = on_full
        self._added = 0
        self._removed = 0
        self._wanted = 0

    def acquire(self, amount: int) -> None:
        """Add ``amount`` once the count is under the bound (or the cell is stopped). Cell thread.

        Before it waits, ``on_full()`` is called (on this thread), so that whoever can take
        the count down (a response taking the output) learns that the thread waits for it."""
        used = self._added - self._removed
        if used <= 0 or used + amount <= self._bound:
            self._added += amount
            return
        with self._cond:
            self._wanted = amount
        try:
            if self._on_full is not None and self.full():
                self._on_full()
            with self._cond:
                while self.full() and not self._stopped():
                    self._cond.wait(_WAIT_SLICE_S)
                self._wanted = 0  # with the addition, or full() would count the amount twice
                self._added += amount
        finally:
            self._wanted = 0  # written by this thread alone; read under the lock

    def full(self) -> bool:
        """True while the thread waits in :meth:`acquire` for room that a :meth:`release` must
        make. Any thread."""
        with self._cond:
            used = self._added - self._removed
            return self._wanted > 0 and used > 0 and used + self._wanted > self._bound

    def release(self, amount: int) -> None:
        """Take ``amount`` off the count (not below 0). Any thread."""
        with self._cond:
            self._removed = min(self._added, self._removed + amount)
            self._cond.notify_all()


class EventPipe:
    """Callbacks posted by one thread, run on the loop in order, a batch per loop iteration.

    Events of the callback ``quiet`` (a cell's content items) do not wake the loop until
    :data:`PUMP_BATCH` events are queued: they run with the next event that wakes it, or
    when the loop asks for them with :meth:`run_quiet`. Waking the loop costs the thread a
    write to the loop's self-pipe and a handover of the GIL: once per ``text()``, that was
    about a third of the host's time for a cell printing 100 000 short lines.
    """

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        stopped: Callable[[], bool],
        lock: threading.Condition,
        quiet: Callable[..., None] | None = None,
    ) -> None:
        self._loop = loop
        self._stopped = stopped
        self._cond = lock
        self._quiet = quiet
        self._queue: collections.deque[tuple[Callable[..., None], tuple[Any, ...]]] = collections.deque()
        self._scheduled = False
        self._pumping = False

    def post(self, fn: Callable[..., None], *args: Any, wait: bool = True) -> None:
        """Queue ``fn(*args)`` for the loop; with ``wait``, block while the queue is full. Cell thread."""
        if fn is self._quiet and len(self._queue) < PUMP_BATCH - 1:
            # Nothing to wake and nothing to wait for: the lock is not needed, as the loop only
            # takes from the left of the deque and ``deque.append`` is atomic.
            self._queue.append((fn, args))
            return
        with self._cond:
            if wait:
                while len(self._queue) >= MAX_QUEUED_EVENTS and not self._stopped() and not self._loop.is_closed():
                    self._cond.wait(_WAIT_SLICE_S)
            self._queue.append((fn, args))
            if self._scheduled or (fn is self._quiet and len(self._queue) < PUMP_BATCH):
                return
            self._scheduled = True
        try:
            self._loop.call_soon_threadsafe(self._pump)
        except RuntimeError:  # the loop closed while the host exits
            pass

    def _pump(self) -> None:
        with self._cond:
            batch = [self._queue.popleft() for _ in range(min(PUMP_BATCH, len(self._queue)))]
            more = bool(self._queue)
            self._scheduled = more
            self._cond.notify_all()
        self._pumping = True
        try:
            _run(batch)
        finally:
            self._pumping = False
        if more:
            self._loop.call_soon(self._pump)

    def run_quiet(self) -> None:
        """Run now the ``quiet`` events at the head of the queue (those posted before any other
        event still queued), e.g. before a response takes the output they add. Loop only.
        Nothing runs while a batch does: the rest of that batch comes first."""
        if self._pumping or self._quiet is None:
            return
        with self._cond:
            batch = []
            while self._queue and self._queue[0][0] is self._quiet:
                batch.append(self._queue.popleft())
            if batch:
                self._cond.notify_all()
        _run(batch)


def _run(batch: list[tuple[Callable[..., None], tuple[Any, ...]]]) -> None:
    for fn, args in batch:
        try:
            fn(*args)
        except Exception:  # noqa: BLE001 - one event must not lose the ones after it
            log.exception("cell event %s failed", getattr(fn, "__name__", fn))
