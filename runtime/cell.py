"""One code-mode cell: a fresh JavaScript context driven by its own thread.

Every cell gets a brand new context (fresh globals) of the host's engine
(:mod:`~codemode.runtime.engines`: QuickJS on the cell's thread, or a V8 isolate on a
thread of its own); the prelude (``prelude/*.js``) installs the globals, then the source
runs with top-level await. The cell's thread owns an event queue (tool results, stop
requests) and the cell's timers, hands them to the engine, and reports everything the
cell does to the asyncio side through :class:`CellEvents` callbacks scheduled with
``loop.call_soon_threadsafe``, in emission order.

Stored values: the cell starts from a snapshot of the session store
(JSON texts by key); its writes are visible to its own ``load`` at once and are handed
back in the ``finished`` event, for the session to merge when the cell completes.
"""

from __future__ import annotations

import asyncio
import heapq
import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import bridge, engines
from .events import MAX_BUFFERED_OUTPUT, MAX_NOTIFICATIONS_IN_FLIGHT, EventPipe, Window, item_cost
from .heap import DEFAULT_HEAP_LIMIT_BYTES, out_of_memory_text
from .jserrors import compile_error_text
from .jsontext import scrub
from .outcome import CellOutcome

log = logging.getLogger(__name__)

THREAD_STACK_BYTES = 64 * 1024 * 1024
"""C stack of a cell thread; comfortably above the engines' JavaScript stack limits."""


@dataclass
class CellEvents:
    """Callbacks run on the asyncio loop for what a cell does.

    ``item(dict)``: a content item; ``yield_control()``; ``tool_call(runtime_id, index,
    input)``; ``notify(text)``; ``finished(outcome)``: the thread is done (once).
    """

    item: Callable[[dict[str, Any]], None]
    yield_control: Callable[[], None]
    tool_call: Callable[[str, int, Any], None]
    notify: Callable[[str], None]
    finished: Callable[[CellOutcome], None]


class CellRuntime:
    """Runs one cell's JavaScript on a dedicated thread.

    ``tools``: list of ``{"name": <JS name>, "description": str}`` in catalog order
    (the index into this list identifies the tool in ``tool_call``). ``stored``: the
    session store snapshot, key -> JSON text. ``heap_limit_bytes``: the engine's memory limit.
    Thread-safe entry points: :meth:`start`, :meth:`deliver_tool_result`, :meth:`stop`.
    """

    def __init__(
        self,
        *,
        cell_id: str,
        source: str,
        tools: list[dict[str, Any]],
        stored: dict[str, str],
        heap_limit_bytes: int | None,
        events: CellEvents,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.cell_id = cell_id
        self.source = source
        self.tools = tools
        self._view = dict(stored)
        self._writes: dict[str, str] = {}
        self.heap_limit = heap_limit_bytes or DEFAULT_HEAP_LIMIT_BYTES
        self._events = events
        self._loop = loop
        self._queue: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._timers: list[tuple[float, int, int]] = []
        self._active_timers: set[int] = set()
        self._tool_seq = 0
        self._outstanding_tools: set[str] = set()
        self._outcome: CellOutcome | None = None
        self._exit_requested = False
        self._failed_untold = False
        self._stop_requested = False
        self._engine: engines.CellEngine | None = None
        self._interruptible = False
        self._lock = threading.Lock()
        self._timer_lock = threading.Lock()
        self._flow = threading.Condition()
        stopped = self._is_stopping
        self._pipe = EventPipe(loop, stopped, self._flow)
        self._notifications = Window(MAX_NOTIFICATIONS_IN_FLIGHT, stopped, self._flow)
        self._output = Window(MAX_BUFFERED_OUTPUT, stopped, self._flow)
        self._thread: threading.Thread | None = None

    # ---- thread-safe API -----------------------------------------------------------

    def start(self) -> None:
        """Start the cell's thread (with a large C stack)."""
        old = threading.stack_size()
        try:
            threading.stack_size(THREAD_STACK_BYTES)
            self._thread = threading.Thread(target=self._run, name=f"codemode-cell-{self.cell_id}", daemon=True)
            self._thread.start()
        finally:
            threading.stack_size(old)

    def deliver_tool_result(self, runtime_id: str, ok: bool, value: Any) -> None:
        """Settle the promise of tool call ``runtime_id`` (reject with string ``value``)."""
        self._queue.put(("settle", (runtime_id, json.dumps({"id": runtime_id, "ok": ok, "value": value}))))

    def stop(self) -> None:
        """Terminate the cell: interrupt running JS and end the thread without committing."""
        with self._lock:
            self._stop_requested = True
        self._interrupt()
        with self._flow:  # a helper waiting for room returns at once
            self._flow.notify_all()
        self._queue.put(("stop", None))

    def is_alive(self) -> bool:
        """True while the cell's thread runs."""
        return self._thread is not None and self._thread.is_alive()

    # ---- the thread --------------------------------------------------------------

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        self._pipe.post(fn, *args)

    def _is_stopping(self) -> bool:
        return self._stop_requested

    def notification_done(self) -> None:
        """A notification of this cell was answered (or will never be): one more may go. Any thread."""
        self._notifications.release(1)

    def output_taken(self, cost: int) -> None:
        """Output of this cell (:func:`~codemode.runtime.events.item_cost`) left the buffer. Any thread."""
        self._output.release(cost)

    def _run(self) -> None:
        try:
            outcome = self._execute()
        except MemoryError:
            outcome = CellOutcome("completed", out_of_memory_text(self.heap_limit))
        except Exception as exc:  # noqa: BLE001 - a cell must always report its end
            log.exception("cell %s failed inside the runtime", self.cell_id)
            outcome = CellOutcome("completed", f"code-mode runtime error: {exc}")
        if self._stop_requested:
            outcome = CellOutcome("stopped")
        outcome.writes = dict(self._writes) if outcome.kind == "completed" else {}
        self._pipe.post(self._events.finished, outcome, wait=False)
        # Free the context here, on this thread, after the outcome went out.
        if self._engine is not None:
            self._engine.close()

    def _execute(self) -> CellOutcome:
        engine = engines.create(self)
        with self._lock:
            self._engine = engine
        try:
            outcome = engine.start()
            if outcome is None:
                outcome = self._loop_events(engine)
            return engine.finish(outcome)
        finally:
            with self._lock:
                self._interruptible = False

    def interrupt_ready(self) -> None:
        """The engine can now be interrupted; a stop that came earlier takes effect (cell thread)."""
        with self._lock:
            self._interruptible = True
            if self._stop_requested and self._engine is not None:
                self._engine.interrupt()

    def _interrupt(self) -> bool:
        """Interrupt running JavaScript if the engine can; False when it cannot."""
        with self._lock:
            if self._interruptible and self._engine is not None:
                self._engine.interrupt()
                return True
        return False

    def post_engine_outcome(self, outcome: CellOutcome) -> None:
        """An engine running JavaScript on another thread ends the cell with ``outcome`` (any thread)."""
        self._queue.put(("engine", outcome))

    def wake(self) -> None:
        """Make the cell thread look at its state again (an engine running JS on another thread)."""
        self._queue.put(("tick", None))

    def finished(self) -> bool:
        """The cell has an outcome, was stopped or ran ``exit()``."""
        return self._outcome is not None or self._stop_requested or self._exit_requested

    def js_failure(self, text: str, *, compile_time: bool) -> CellOutcome:
        """The outcome of an engine exception with text ``text`` that escaped JavaScript."""
        if self._stop_requested:
            return CellOutcome("stopped")
        if self._exit_requested:
            return CellOutcome("completed")
        if self._outcome is not None:
            return self._outcome
        return CellOutcome("completed", compile_error_text(text, self.source, compile_time))

    def untold_failure(self) -> bool:
        """The cell failed but the text of its failure could not be formatted (see install.js)."""
        return self._failed_untold and self._outcome is None

    def set_outcome(self, outcome: CellOutcome) -> None:
        """End the cell with ``outcome`` unless it already has one."""
        if self._outcome is None:
            self._outcome = outcome

    def waiting_on_nothing(self) -> bool:
        """No timer, no tool call in flight and no event queued: nothing can wake the cell."""
        return not (self._outstanding_tools or self._active_timers or not self._queue.empty())

    def _next_timeout(self, engine: engines.CellEngine) -> float | None:
        timeout = engine.poll_s
        with self._timer_lock:
            if self._timers:
                due = max(0.0, self._timers[0][0] - time.monotonic())
                timeout = due if timeout is None else min(timeout, due)
        return timeout

    def _loop_events(self, engine: engines.CellEngine) -> CellOutcome:
        while True:
            outcome = engine.run_jobs()
            if outcome is not None:
                return outcome
            if self.finished():
                break
            outcome = engine.stalled()
            if outcome is not None:
                self.set_outcome(outcome)
                break
            try:
                kind, payload = self._queue.get(timeout=self._next_timeout(engine))
            except queue.Empty:
                kind, payload = "tick", None
            while True:
                if kind == "stop":
                    break
                if kind == "engine":
                    self.set_outcome(payload)
                    break
                if kind == "settle":
                    runtime_id, settlement = payload
                    self._outstanding_tools.discard(runtime_id)
                    outcome = engine.deliver("settle", settlement)
                    if outcome is not None:
                        return outcome
                    if self.finished():
                        break
                try:
                    kind, payload = self._queue.get_nowait()
                except queue.Empty:
                    break
            if self.finished():
                break
            now = time.monotonic()
            while not self.finished():
                with self._timer_lock:
                    if not self._timers or self._timers[0][0] > now:
                        break
                    _, _, timer_id = heapq.heappop(self._timers)
                    active = timer_id in self._active_timers
                    self._active_timers.discard(timer_id)
                if active:
                    outcome = engine.deliver("fire", str(timer_id))
                    if outcome is not None:
                        return outcome
        if self._stop_requested:
            return CellOutcome("stopped")
        if self._exit_requested:
            return CellOutcome("completed")
        assert self._outcome is not None
        return self._outcome

    # ---- what the prelude asks of this thread (runtime/bridge.py) -----------------

    def host_call(self, op: str, arg: str) -> str | None:
        """Serve ``__codemode_host(op, arg)`` (:mod:`~codemode.runtime.bridge`)."""
        return bridge.handle(self, op, arg)

    def emit_item(self, item: dict[str, Any]) -> None:
        item = scrub(item)
        self._output.acquire(item_cost(item))
        self._post(self._events.item, item)

    def call_tool(self, index: int, tool_input: Any) -> str:
        self._tool_seq += 1
        runtime_id = f"tool-{self._tool_seq}"
        self._outstanding_tools.add(runtime_id)
        self._post(self._events.tool_call, runtime_id, index, tool_input)
        return runtime_id

    def notify(self, text: str) -> None:
        self._notifications.acquire(1)
        self._post(self._events.notify, scrub(text))

    def yield_control(self) -> None:
        self._post(self._events.yield_control)

    def store(self, key: str, value_json: str) -> None:
        self._writes[key] = value_json
        self._view[key] = value_json

    def load(self, key: str) -> str | None:
        return self._view.get(key)

    def add_timer(self, timer_id: int, delay_ms: float) -> None:
        with self._timer_lock:
            self._active_timers.add(timer_id)
            heapq.heappush(self._timers, (time.monotonic() + delay_ms / 1000.0, timer_id, timer_id))

    def clear_timer(self, timer_id: int) -> None:
        with self._timer_lock:
            self._active_timers.discard(timer_id)

    def request_exit(self) -> bool:
        """``exit()``: True when the context will be interrupted, False for the sentinel."""
        self._exit_requested = True
        return self._interrupt()

    def exited(self) -> None:
        self._exit_requested = True

    def module_done(self) -> None:
        if self._outcome is None:
            self._outcome = CellOutcome("completed")

    def out_of_memory(self, kind: str) -> str | None:
        """Runtime code met an allocation failure (``kind`` ``"error"``, or ``"null"`` that may be one).

        Returns ``"ended"`` when the cell now ends with the heap-limit error and its
        context is interrupted, None when a ``null`` is judged a plain thrown value.
        """
        engine = self._engine
        if kind == "null" and (engine is None or not engine.null_is_out_of_memory()):
            return None
        if self._outcome is None:
            self._outcome = CellOutcome("completed", out_of_memory_text(self.heap_limit))
        return "ended" if self._interrupt() else None

    def module_failed(self, text: str | None) -> None:
        """The module (or a timer callback) failed; ``text`` is None when it could not be formatted."""
        if self._outcome is not None:
            return
        if text is None:
            self._failed_untold = True
        else:
            self._outcome = CellOutcome("completed", scrub(text), thrown=True)
