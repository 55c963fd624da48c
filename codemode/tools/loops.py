"""Async Python tools on an event loop of their own, so that one that blocks never blocks the kernel.

Why: an ``async def`` tool ran on the kernel's event loop. One that never awaits (``while
True: pass``) or blocks (``time.sleep(30)``) stopped that loop with it: an interrupt was
answered when the tool returned, or never; a cell's yield came late, and every other cell
waited.

How: a :class:`LoopLane` runs the calls on an event loop in a daemon thread of its own
(``codemode-<lane>-loop-<n>``). All calls share that loop, so what a tool keeps between calls
bound to the loop it was made on (an ``aiohttp`` or ``httpx`` client made at import or on first
use, an ``asyncio.Lock``) keeps working. While the loop has calls, a watchdog thread
(``codemode-<lane>-watchdog``) pings it every :data:`PING_INTERVAL_S` seconds
(``call_soon_threadsafe``); a ping not answered within :attr:`LoopLane.stall_after` seconds
(default :data:`STALL_AFTER_S`) means the loop has stopped turning. The loop is then
*abandoned*: calls waiting to start on it move to a fresh loop, later calls go there too, and
its thread is counted (:attr:`LoopLane.abandoned`, and in
:func:`codemode.tools.threads.abandoned_threads`) and logged with the names of the calls
running on it. A thread cannot be stopped: an abandoned loop keeps its thread until the code
blocking it returns; then it finishes the calls still on it, cancels what the tools left
running there, and ends (logged). Calls already running on an abandoned loop stay on it. After
a move, what a tool bound to the old loop does not work on the new one (asyncio raises "is bound
to a different event loop", or a request waits until its call is cancelled); a tool that keeps
such objects can make them again when ``asyncio.get_running_loop()`` is another loop.

Cancellation: when the awaiting task is cancelled (a terminated cell, a ``delegate/cancel``),
the call's task is cancelled on the tool loop, and ``CancelledError`` propagates at once: the
caller never waits for a coroutine that ignores its cancellation or blocks its loop (the call
is abandoned, like a sync tool's thread in :mod:`codemode.tools.threads`).

The coroutine runs in a copy of the caller's context variables, so what it prints reaches its
call (:mod:`codemode.tools.tool_output` delivers it on the caller's loop). Whatever it raises,
``BaseException`` included, is re-raised in the awaiting coroutine; nothing stops the tool
loop (a ``SystemExit`` a tool's own background task raises is logged, and the loop goes on).
Bound: at most :attr:`LoopLane.max_abandoned` abandoned loop threads; then new calls are
refused with a sentence saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from codemode.errors import ToolCallError
from codemode.tools.lanes import MAX_ABANDONED_THREADS, AbandonedThreads, Outcome, deliver, unwrap
from codemode.tools.tool_output import start_detached

logger = logging.getLogger(__name__)

PING_INTERVAL_S = 0.5
"""How often the watchdog pings a loop that has calls."""

STALL_AFTER_S = 3.0
"""A loop that has not answered a ping for this long is abandoned (seconds)."""

CLOSE_GRACE_S = 1.0
"""How long a loop that ends gives the tasks left on it to finish their cancellation."""


class _Call:
    """One call: what to run, where its outcome goes, which loop holds it, its task there."""

    def __init__(
        self, label: str, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any], caller: Any
    ) -> None:
        self.label = label
        self.fn = fn
        self.args = args
        self.kwargs = kwargs
        self.context = contextvars.copy_context()
        self.caller: asyncio.AbstractEventLoop = caller
        self.future: asyncio.Future[Outcome] = caller.create_future()
        self.host: _Loop | None = None
        self.task: asyncio.Task[None] | None = None
        self.cancelled = False


class _Loop:
    """One event loop of the lane, its thread, and the calls it holds."""

    def __init__(self, name: str, thread_name: str, serve: Callable[[_Loop], None]) -> None:
        self.loop = asyncio.new_event_loop()
        self.name = name
        self.thread = threading.Thread(target=serve, args=(self,), name=thread_name, daemon=True)
        self.waiting: set[_Call] = set()  # handed to the loop, not started yet
        self.running: set[_Call] = set()  # started, not finished
        self.abandoned = False
        self.stopping = False
        self.since = time.monotonic()

    @property
    def calls(self) -> int:
        return len(self.waiting) + len(self.running)


class LoopLane(AbandonedThreads):
    """Runs coroutine functions on a shared event loop in a thread (see the module docstring).

    ``name`` names the lane in thread names and log lines; ``stall_after`` (seconds) is how long
    the loop may go without turning before it is abandoned; ``max_abandoned`` bounds the
    abandoned loop threads (:class:`~codemode.tools.lanes.AbandonedThreads`).
    """

    def __init__(
        self, name: str, stall_after: float = STALL_AFTER_S, max_abandoned: int = MAX_ABANDONED_THREADS
    ) -> None:
        super().__init__(name, "threads of blocked event loops", max_abandoned)
        self.stall_after = stall_after
        self._changed = threading.Condition(self._lock)
        self._current: _Loop | None = None
        self._watchdog: threading.Thread | None = None
        self._loops = 0

    @property
    def loop_thread(self) -> threading.Thread | None:
        """The thread of the loop new calls go to (``None`` before the first call)."""
        host = self._current
        return None if host is None else host.thread

    async def run(self, label: str, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """Await ``fn(*args, **kwargs)`` on the lane's loop and return its result.

        ``label`` names the call (the tool) in log lines. Raises what the coroutine raised (any
        ``BaseException``); :class:`~codemode.errors.ToolCallError` when the lane holds
        :attr:`max_abandoned` abandoned loop threads. When the awaiting task is cancelled, the
        call's task is cancelled on the tool loop and ``CancelledError`` propagates at once.
        """
        self.check_room(label)
        call = _Call(label, fn, args, kwargs, asyncio.get_running_loop())
        with self._lock:
            if self._current is None:
                self._current = self._new_loop()
            self._hand(call, self._current)
            if self._watchdog is None:
                self._watchdog = threading.Thread(
                    target=self._watch, name=f"codemode-{self.name}-watchdog", daemon=True
                )
                start_detached(self._watchdog)
        try:
            outcome = await call.future
        except asyncio.CancelledError:
            self._cancel(call)
            raise
        return unwrap(outcome)

    def shutdown(self, timeout: float = 10.0) -> None:
        """Stop the loop new calls go to and wait up to ``timeout`` seconds for its thread; its
        running calls are cancelled, its waiting ones fail with a sentence saying so. Abandoned
        loops are left to end on their own. The next call starts a fresh loop."""
        with self._lock:
            host, self._current = self._current, None
            if host is None:
                return
            host.stopping = True
            waiting = list(host.waiting)
            host.waiting.clear()
            self._changed.notify_all()
        for call in waiting:
            error = ToolCallError(
                f"`{call.label}` was not started: the event loop of async Python tools was shut down."
            )
            deliver(call.caller, call.future, (error, None))
        with contextlib.suppress(RuntimeError):
            host.loop.call_soon_threadsafe(host.loop.stop)
        host.thread.join(timeout)

    # -- on the caller's side ---------------------------------------------------
    def _new_loop(self) -> _Loop:
        self._loops += 1
        host = _Loop(f"loop {self._loops}", f"codemode-{self.name}-loop-{self._loops}", self._serve)
        start_detached(host.thread)
        return host

    def _hand(self, call: _Call, host: _Loop) -> None:
        """Give ``call`` to ``host`` (under the lock): it starts when the loop next turns."""
        call.host = host
        host.waiting.add(call)
        host.loop.call_soon_threadsafe(self._start, call, host)

    def _cancel(self, call: _Call) -> None:
        with self._lock:
            call.cancelled = True
            host = call.host
            if host is None:
                return
            if call in host.waiting:  # never started: nothing runs for it
                host.waiting.discard(call)
                self._changed.notify_all()
                return
            task = call.task
        if task is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the task ended with it
                host.loop.call_soon_threadsafe(task.cancel)

    # -- on the tool loop ---------------------------------------------------------
    def _start(self, call: _Call, host: _Loop) -> None:
        with self._lock:
            if call not in host.waiting:  # cancelled, or moved to another loop
                return
            host.waiting.discard(call)
            host.running.add(call)
            call.task = host.loop.create_task(self._guarded(call, host), context=call.context)

    async def _guarded(self, call: _Call, host: _Loop) -> None:
        try:
            outcome: Outcome = (None, await call.fn(*call.args, **call.kwargs))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the awaiting coroutine, not on this loop
            outcome = (exc, None)
            if isinstance(exc, asyncio.CancelledError) and host.stopping and not call.cancelled:
                outcome = (
                    ToolCallError(f"`{call.label}` was cancelled: the event loop of async Python tools was shut down."),
                    None,
                )
        with self._lock:
            host.running.discard(call)
            self._changed.notify_all()
            retire = host.abandoned and host.calls == 0 and not host.stopping
            host.stopping = host.stopping or retire
        deliver(call.caller, call.future, outcome)
        if retire:
            host.loop.stop()

    def _retire_if_idle(self, host: _Loop) -> None:
        with self._lock:
            if host.calls or host.stopping:
                return
            host.stopping = True
        host.loop.stop()

    def _serve(self, host: _Loop) -> None:
        """The loop thread: run ``host``'s loop until it is stopped for good, then close it."""
        asyncio.set_event_loop(host.loop)
        try:
            while not host.stopping:
                try:
                    host.loop.run_forever()
                except BaseException as exc:  # noqa: BLE001 - SystemExit / KeyboardInterrupt of a tool's own task
                    logger.error(
                        "a task left on the event loop of async Python tools raised %s; the loop goes on",
                        type(exc).__name__,
                    )
        finally:
            _close(host.loop)
            with self._lock:
                ended_abandoned = host.abandoned
                count = self.remove() if ended_abandoned else 0
        if ended_abandoned:
            logger.info(
                "the abandoned event loop of async Python tools (%s) turned again after %.1f s and ended; "
                "%d abandoned loop thread(s) of the %s lane still running",
                host.name,
                time.monotonic() - host.since,
                count,
                self.name,
            )

    # -- the watchdog -------------------------------------------------------------
    def _watch(self) -> None:
        """Ping the current loop while it has calls; abandon it when a ping goes unanswered."""
        while True:
            with self._lock:
                host = self._current
                if host is None or host.calls == 0:
                    self._watchdog = None
                    return
            answered = threading.Event()
            try:
                host.loop.call_soon_threadsafe(answered.set)
            except RuntimeError:  # closed by shutdown(): look again
                continue
            if not answered.wait(self.stall_after):
                self._abandon(host)
                continue
            with self._lock:
                self._changed.wait_for(functools.partial(self._quiet, host), PING_INTERVAL_S)

    def _quiet(self, host: _Loop) -> bool:
        """Whether the watchdog may stop watching ``host``: replaced, or without calls."""
        return self._current is not host or host.calls == 0

    def _abandon(self, host: _Loop) -> None:
        with self._lock:
            if self._current is not host or host.stopping:
                return
            host.abandoned = True
            host.since = time.monotonic()
            self._current = None
            moved = list(host.waiting)
            host.waiting.clear()
            blockers = ", ".join(sorted(f"`{call.label}`" for call in host.running)) or "none"
            count = self.add()
            # Logged before any moved call can run (and answer) on the fresh loop, so the
            # warning always comes before what the calls it explains print.
            logger.warning(
                "the event loop of async Python tools (%s) has not turned for %.1f s; calls running on it: %s. "
                "New calls go to a fresh loop; %d abandoned loop thread(s) of the %s lane are still blocked (a "
                "thread cannot be stopped: an async tool must await, and run blocking work with asyncio.to_thread)",
                host.name,
                self.stall_after,
                blockers,
                count,
                self.name,
            )
            if moved:
                self._current = self._new_loop()
                for call in moved:
                    self._hand(call, self._current)
        with contextlib.suppress(RuntimeError):
            host.loop.call_soon_threadsafe(self._retire_if_idle, host)


def _close(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel the tasks left on ``loop`` (give them :data:`CLOSE_GRACE_S`), then close it."""
    try:
        tasks = asyncio.all_tasks(loop)
        for task in tasks:
            task.cancel()
        if tasks:
            loop.run_until_complete(asyncio.wait(tasks, timeout=CLOSE_GRACE_S))
        loop.run_until_complete(loop.shutdown_asyncgens())
    except BaseException:  # noqa: BLE001 - a tool's task that will not end must not keep the loop open
        logger.debug("closing an event loop of async Python tools", exc_info=True)
    finally:
        loop.close()


ASYNC_PYTHON_TOOLS = LoopLane("python-async-tools")
"""The lane of async Python tools (user code, which may block its loop)."""
