"""Blocking work of tools in threads, so that a blocked call never starves the others.

Why: ``asyncio.to_thread`` runs on the event loop's default executor, which has at most
``min(32, cpus + 4)`` workers (6 on a 2-core machine). A Python thread cannot be stopped, so a
sync tool that blocks forever keeps its worker after its call is cancelled; after six such
calls every later sync tool, and the built-ins that read and write files, waited for a worker
that never came, until the kernel was restarted.

How: work runs in a :class:`ThreadLane`, and every call gets a thread of its own (a daemon
thread named ``codemode-<lane>:<tool>``, started for the call and ended with it; starting one
costs about as much as handing work to a pool). No call ever waits for a thread, so calls that
were cancelled while their thread still runs take nothing from the live ones. The lanes are
separate: :data:`PYTHON_TOOLS` for the user's sync Python tools, :data:`BUILTINS` for the
built-ins' file work, so what one lane leaves blocked never counts against the other.

A call cancelled while its thread runs *abandons* the thread: the thread goes on until the
function returns (its result or exception is dropped), and is counted in
:attr:`ThreadLane.abandoned` meanwhile. Each abandonment and each late return is logged
(warning / info) with the lane's count; :func:`abandoned_threads` gives the counts. Bound: one
thread per running call (the host bounds calls in flight: 1024 pending delegate calls per
connection), plus at most :data:`MAX_ABANDONED_THREADS` abandoned threads per lane; while a
lane holds that many, its new calls are refused with a sentence saying so, instead of adding
threads without end. The function runs in a copy of the caller's context variables, as with
``asyncio.to_thread`` (so what a sync tool prints still reaches its call,
:mod:`codemode.tools.tool_output`). Whatever it raises, ``BaseException`` included
(``SystemExit`` from a thread), is re-raised in the awaiting coroutine, never in the thread.
The counting and the hand-over of outcomes are shared with the lane of async Python tools
(:mod:`codemode.tools.lanes`, :mod:`codemode.tools.loops`).
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from .lanes import MAX_ABANDONED_THREADS, AbandonedThreads, Outcome, deliver, unwrap
from .loops import ASYNC_PYTHON_TOOLS

logger = logging.getLogger(__name__)

T = TypeVar("T")


class _Run:
    """One call's thread: whether it finished, whether its call gave up on it."""

    def __init__(self) -> None:
        self.finished = False
        self.abandoned = False
        self.started = time.monotonic()


class ThreadLane(AbandonedThreads):
    """Runs blocking functions, one new thread per call (see the module docstring).

    ``name`` names the lane in thread names and log lines; ``max_abandoned`` bounds its
    abandoned threads (:class:`~codemode.tools.lanes.AbandonedThreads`).
    """

    def __init__(self, name: str, max_abandoned: int = MAX_ABANDONED_THREADS) -> None:
        super().__init__(name, "threads of cancelled calls", max_abandoned)
        self._running = 0

    @property
    def running(self) -> int:
        """Threads of this lane still running: live calls' and abandoned ones."""
        return self._running

    async def run(self, label: str, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """Call ``fn(*args, **kwargs)`` in a new thread and return its result.

        ``label`` names the work (the tool) in the thread's name and the log. Raises what
        ``fn`` raised (any ``BaseException``; a ``StopIteration`` as ``RuntimeError``, as in a
        coroutine); :class:`~codemode.errors.ToolCallError` when the lane already holds
        :attr:`max_abandoned` abandoned threads. When the awaiting task is cancelled,
        ``CancelledError`` propagates at once and the thread is abandoned.
        """
        self.check_room(label)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Outcome] = loop.create_future()
        context = contextvars.copy_context()
        run = _Run()

        def target() -> None:
            try:
                outcome: Outcome = (None, context.run(fn, *args, **kwargs))
            except BaseException as exc:  # noqa: BLE001 - re-raised in the awaiting coroutine
                outcome = (exc, None)
            self._finished(run, label)  # counted as ended before its call can see the outcome
            deliver(loop, future, outcome)

        thread = threading.Thread(target=target, name=f"codemode-{self.name}:{label}", daemon=True)
        with self._lock:
            self._running += 1
        try:
            thread.start()
        except BaseException:
            with self._lock:
                self._running -= 1
            raise
        try:
            outcome = await future
        except asyncio.CancelledError:
            self._abandon(run, label)
            raise
        return unwrap(outcome)

    def _abandon(self, run: _Run, label: str) -> None:
        with self._lock:
            if run.finished:
                return
            run.abandoned = True
            count = self.add()
        logger.warning(
            "the call to `%s` was cancelled while its thread was still running; %d abandoned thread(s) "
            "of the %s lane are still running (a Python thread cannot be stopped; each ends when its "
            "function returns)",
            label,
            count,
            self.name,
        )

    def _finished(self, run: _Run, label: str) -> None:
        with self._lock:
            run.finished = True
            self._running -= 1
            if not run.abandoned:
                return
            count = self.remove()
        logger.info(
            "the abandoned thread of `%s` returned after %.1f s; %d abandoned thread(s) of the %s lane still running",
            label,
            time.monotonic() - run.started,
            count,
            self.name,
        )


PYTHON_TOOLS = ThreadLane("python-tools")
"""The lane of sync Python tools (user code, which may block for ever)."""

BUILTINS = ThreadLane("builtins")
"""The lane of the built-ins' file work (``read_file``, ``write_file``, ``list_dir``)."""


def abandoned_threads() -> dict[str, int]:
    """Abandoned threads still running, by lane name: ``{"python-tools": 0, "builtins": 0,
    "python-async-tools": 0}`` (the last counts the blocked event loops of async Python tools,
    :mod:`codemode.tools.loops`)."""
    return {lane.name: lane.abandoned for lane in (PYTHON_TOOLS, BUILTINS, ASYNC_PYTHON_TOOLS)}
