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
:attr:`ThreadLane.abandoned` meanwhile. The abandonments are logged per cell: one warning for
the calls of a cell cancelled together (a terminated cell's 926 calls wrote 926 lines), with
their count and tools, and one info line once the last of them returned; :func:`abandoned_threads` gives the counts. Bound: one
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
from collections import Counter
from collections.abc import Callable
from typing import Any, TypeVar

from codemode.tools.lanes import MAX_ABANDONED_THREADS, AbandonedThreads, Outcome, deliver, unwrap
from codemode.tools.loops import ASYNC_PYTHON_TOOLS

logger = logging.getLogger(__name__)

T = TypeVar("T")


class _Run:
    """One call's thread: whether it finished, whether its call gave up on it."""

    def __init__(self) -> None:
        self.finished = False
        self.abandoned = False
        self.started = time.monotonic()


class _Group:
    """The abandoned threads of one cell's calls (``group``) in one lane: the calls not yet
    reported (their tool names, counted), those still running, and all of them so far."""

    def __init__(self) -> None:
        self.unreported: Counter[str] = Counter()
        self.running = 0
        self.total = 0
        self.report_scheduled = False
        self.since = time.monotonic()


def _who(group: str | None) -> str:
    return f"cell {group}" if group is not None else "calls outside a cell"


def _tools(labels: Counter[str]) -> str:
    return ", ".join(f"`{label}`" if n == 1 else f"`{label}` ({n})" for label, n in sorted(labels.items()))


class ThreadLane(AbandonedThreads):
    """Runs blocking functions, one new thread per call (see the module docstring).

    ``name`` names the lane in thread names and log lines; ``max_abandoned`` bounds its
    abandoned threads (:class:`~codemode.tools.lanes.AbandonedThreads`).
    """

    def __init__(self, name: str, max_abandoned: int = MAX_ABANDONED_THREADS) -> None:
        super().__init__(name, "threads of cancelled calls", max_abandoned)
        self._running = 0
        self._groups: dict[str | None, _Group] = {}

    @property
    def running(self) -> int:
        """Threads of this lane still running: live calls' and abandoned ones."""
        return self._running

    async def run(self, label: str, fn: Callable[..., T], /, *args: Any, group: str | None = None) -> T:
        """Call ``fn(*args)`` in a new thread and return its result.

        ``label`` names the work (the tool) in the thread's name and the log; ``group`` is the
        calling cell's id, by which abandoned threads are logged. Raises what ``fn`` raised
        (any ``BaseException``; a ``StopIteration`` as ``RuntimeError``, as in a coroutine);
        :class:`~codemode.errors.ToolCallError` when the lane already holds
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
                outcome: Outcome = (None, context.run(fn, *args))
            except BaseException as exc:  # noqa: BLE001 - re-raised in the awaiting coroutine
                outcome = (exc, None)
            self._finished(run, group)  # counted as ended before its call can see the outcome
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
            self._abandon(run, label, group, loop)
            raise
        return unwrap(outcome)

    def _abandon(self, run: _Run, label: str, group: str | None, loop: asyncio.AbstractEventLoop) -> None:
        """The call of ``run`` was cancelled (on ``loop``): count its thread as abandoned. The
        warning is one line for all the calls of ``group`` cancelled together (a terminated
        cell's): it is written once a loop iteration went by with no more of them."""
        with self._lock:
            if run.finished:
                return
            run.abandoned = True
            self.add()
            state = self._groups.setdefault(group, _Group())
            state.unreported[label] += 1
            state.running += 1
            state.total += 1
            schedule = not state.report_scheduled
            state.report_scheduled = True
        if schedule:
            loop.call_soon(self._report, group, 0)

    def _report(self, group: str | None, seen: int) -> None:
        """Log ``group``'s calls abandoned since its last line, once their count stopped growing
        (``seen``: the count at the previous look)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            state = self._groups.get(group)
            if state is None:
                return
            unreported = sum(state.unreported.values())
            if unreported > seen:
                loop.call_soon(self._report, group, unreported)
                return
            tools, state.unreported = _tools(state.unreported), Counter()
            state.report_scheduled = False
            if state.running == 0:
                del self._groups[group]
            count = self.abandoned
        logger.warning(
            "%s: %d call(s) were cancelled while their threads were still running (%s); %d abandoned thread(s) "
            "of the %s lane are still running (a Python thread cannot be stopped; each ends when its function "
            "returns)",
            _who(group),
            unreported,
            tools,
            count,
            self.name,
        )

    def _finished(self, run: _Run, group: str | None) -> None:
        """The thread of ``run`` returned; when it was the last abandoned one of ``group``,
        one line says that they all returned."""
        with self._lock:
            run.finished = True
            self._running -= 1
            if not run.abandoned:
                return
            count = self.remove()
            state = self._groups[group]
            state.running -= 1
            if state.running:
                return
            if not state.report_scheduled:
                del self._groups[group]
            total, since = state.total, state.since
        logger.info(
            "%s: all %d abandoned thread(s) of its calls returned, the last after %.1f s; %d abandoned thread(s) "
            "of the %s lane still running",
            _who(group),
            total,
            time.monotonic() - since,
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
