"""What the lanes of tool work share: counting the threads that cancelled or blocked calls left
running, and handing a call's outcome from a worker thread to the event loop awaiting it.

A Python thread cannot be stopped, so a lane (:mod:`codemode.tools.threads` for sync work,
:mod:`codemode.tools.loops` for async Python tools) that gives up on one *abandons* it: the
thread goes on until the code blocking it returns. :class:`AbandonedThreads` counts those
threads per lane, logs each change, and refuses new calls once a lane holds
:data:`MAX_ABANDONED_THREADS` of them, instead of adding threads without end.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from typing import Any

from codemode.errors import ToolCallError

logger = logging.getLogger(__name__)

MAX_ABANDONED_THREADS = 256
"""Most abandoned threads a lane keeps running before it refuses new calls."""

Outcome = tuple[BaseException | None, Any]
"""``(exception, None)`` or ``(None, value)``: how a call ended, as :func:`deliver` hands it over."""


class AbandonedThreads:
    """The abandoned threads of the lane ``name``: ``kind`` names them in sentences (``"threads
    of cancelled calls"``); at most ``max_abandoned`` before :meth:`check_room` refuses calls.

    A base of the lanes: ``_lock`` is reentrant, so a lane counts under its own use of it."""

    def __init__(self, name: str, kind: str, max_abandoned: int = MAX_ABANDONED_THREADS) -> None:
        self.name = name
        self.kind = kind
        self.max_abandoned = max_abandoned
        self._lock = threading.RLock()
        self._abandoned = 0

    @property
    def abandoned(self) -> int:
        """Abandoned threads of this lane that still run."""
        return self._abandoned

    def check_room(self, label: str) -> None:
        """Raise :class:`~codemode.errors.ToolCallError` saying why ``label`` (a tool's name) is
        not started when the lane already holds :attr:`max_abandoned` abandoned threads."""
        if self._abandoned >= self.max_abandoned:
            raise ToolCallError(
                f"`{label}` was not started: {self._abandoned} {self.kind} in the {self.name} lane are "
                f"still blocked (the most kept is {self.max_abandoned}); restart the kernel to end them."
            )

    def add(self) -> int:
        """Count one more abandoned thread; returns the new count."""
        with self._lock:
            self._abandoned += 1
            return self._abandoned

    def remove(self) -> int:
        """An abandoned thread ended; returns the new count."""
        with self._lock:
            self._abandoned -= 1
            return self._abandoned


def deliver(loop: asyncio.AbstractEventLoop, future: asyncio.Future[Outcome], outcome: Outcome) -> None:
    """Settle ``future`` (of ``loop``) with ``outcome`` from any thread; dropped when the future
    is done already (its call was cancelled) or ``loop`` is closed (nobody waits any more).

    The outcome is the future's result, never its exception: ``Future.set_exception`` refuses
    ``StopIteration`` (with a ``TypeError`` raised in the loop's callback, which left the call
    waiting for ever). The awaiting coroutine raises the exception itself (:func:`unwrap`).
    """

    def settle() -> None:
        if not future.done():
            future.set_result(outcome)

    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(settle)


def unwrap(outcome: Outcome) -> Any:
    """The value of ``outcome``, or raise its exception (a ``StopIteration`` comes out of the
    awaiting coroutine as ``RuntimeError: coroutine raised StopIteration``, PEP 479)."""
    exc, value = outcome
    if exc is not None:
        raise exc
    return value
