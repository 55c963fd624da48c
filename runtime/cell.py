"""One code-mode cell: a fresh QuickJS context on its own thread.

Every cell gets a brand
new context (fresh globals) created and used only on the cell's thread; the source runs
as an ES module (top-level await); the prelude (``prelude.js``) installs the globals.
The thread owns an event queue (tool results, stop requests) and the cell's timers, and
reports everything it observes to the asyncio side through :class:`CellEvents`
callbacks scheduled with ``loop.call_soon_threadsafe``, in emission order.

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
from dataclasses import dataclass, field
from typing import Any

import quickjs

from . import bridge, interrupt
from .events import MAX_BUFFERED_OUTPUT, MAX_NOTIFICATIONS_IN_FLIGHT, EventPipe, Window, item_cost
from .heap import (
    DEFAULT_HEAP_LIMIT_BYTES,
    heap_nearly_full,
    is_out_of_memory,
    null_is_out_of_memory,
    out_of_memory_text,
)
from .jserrors import compile_error_text, prepare_source
from .jsontext import scrub
from .prelude_source import prelude_source

log = logging.getLogger(__name__)

JS_STACK_LIMIT_BYTES = 4 * 1024 * 1024
"""QuickJS stack budget: deep recursion fails with ``RangeError`` instead of crashing."""
THREAD_STACK_BYTES = 64 * 1024 * 1024
"""C stack of a cell thread; comfortably above :data:`JS_STACK_LIMIT_BYTES`."""


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


@dataclass
class CellOutcome:
    """How a cell thread ended.

    ``kind``: ``"completed"`` (the module settled or ``exit()`` ran; ``error_text`` set
    when it failed) or ``"stopped"`` (terminated). ``writes``: store writes by key, as
    JSON texts. ``thrown``: ``error_text`` is the text of a value the cell threw, as the
    prelude formatted it; such a text is final, never read as an engine failure (a cell
    may throw the string ``"InternalError: out of memory"``).
    """

    kind: str
    error_text: str | None = None
    writes: dict[str, str] = field(default_factory=dict)
    thrown: bool = False


class CellRuntime:
    """Runs one cell's JavaScript on a dedicated thread.

    ``tools``: list of ``{"name": <JS name>, "description": str}`` in catalog order
    (the index into this list identifies the tool in ``tool_call``). ``stored``: the
    session store snapshot, key -> JSON text. ``heap_limit_bytes``: QuickJS memory limit.
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
        self._source = source
        self._tools = tools
        self._view = dict(stored)
        self._writes: dict[str, str] = {}
        self._heap_limit = heap_limit_bytes or DEFAULT_HEAP_LIMIT_BYTES
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
        self._interrupter: interrupt.Interrupter | None = None
        self._lock = threading.Lock()
        self._flow = threading.Condition()
        stopped = self._is_stopping
        self._pipe = EventPipe(loop, stopped, self._flow)
        self._notifications = Window(MAX_NOTIFICATIONS_IN_FLIGHT, stopped, self._flow)
        self._output = Window(MAX_BUFFERED_OUTPUT, stopped, self._flow)
        self._thread: threading.Thread | None = None
        self._context: Any = None

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
            if self._interrupter is not None:
                self._interrupter.arm()
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
            outcome = CellOutcome("completed", out_of_memory_text(self._heap_limit))
        except Exception as exc:  # noqa: BLE001 - a cell must always report its end
            log.exception("cell %s failed inside the runtime", self.cell_id)
            outcome = CellOutcome("completed", f"code-mode runtime error: {exc}")
        if self._stop_requested:
            outcome = CellOutcome("stopped")
        outcome.writes = dict(self._writes) if outcome.kind == "completed" else {}
        self._pipe.post(self._events.finished, outcome, wait=False)
        # Free the context here, on its own thread, after the outcome went out.
        self._context = None

    def _execute(self) -> CellOutcome:
        try:
            return self._execute_in_context()
        finally:
            with self._lock:
                self._interrupter = None

    def _execute_in_context(self) -> CellOutcome:
        ctx = quickjs.Context()
        self._context = ctx  # released by _run once the outcome is posted
        ctx.set_memory_limit(self._heap_limit)
        ctx.set_max_stack_size(JS_STACK_LIMIT_BYTES)
        switch = interrupt.Interrupter(ctx) if interrupt.AVAILABLE else None
        if switch is not None and switch.usable:
            switch.install()
            with self._lock:
                self._interrupter = switch
                if self._stop_requested:
                    switch.arm()
        ctx.add_callable("__codemode_host", self._host)
        config = {"tools": self._tools, "source": self._source}
        ctx.set("__codemode_config", json.dumps(config))
        try:
            dispatch = ctx.eval(prelude_source())
        except quickjs.JSException as exc:
            # Only a heap too small for the prelude itself can fail here.
            return self._out_of_memory(ctx, CellOutcome("completed", f"code-mode runtime error: {exc}"))
        try:
            promise = ctx.module(prepare_source(self._source))
        except quickjs.JSException as exc:
            return self._out_of_memory(ctx, self._js_failure(exc, compile_time=True))
        try:
            dispatch("watch", promise)
            outcome = self._loop_events(ctx, dispatch)
        except quickjs.JSException as exc:
            outcome = self._js_failure(exc, compile_time=False)
        finally:
            del promise, dispatch
        return self._out_of_memory(ctx, outcome)

    def _out_of_memory(self, ctx: Any, outcome: CellOutcome) -> CellOutcome:
        """Give an exhausted heap its clear error text (QuickJS may throw a bare ``null``)."""
        text = outcome.error_text
        if (
            text is not None
            and not outcome.thrown
            and (
                is_out_of_memory(text, self._source, ctx, self._heap_limit)
                or text.startswith("code-mode runtime error: InternalError: out of memory")
            )
        ):
            outcome.error_text = out_of_memory_text(self._heap_limit)
        return outcome

    def _js_failure(self, exc: Exception, *, compile_time: bool) -> CellOutcome:
        """Map an exception that escaped JS into the cell's outcome."""
        if self._stop_requested:
            return CellOutcome("stopped")
        if self._exit_requested:
            return CellOutcome("completed")
        if self._outcome is not None:
            return self._outcome
        return CellOutcome("completed", compile_error_text(str(exc), self._source, compile_time))

    def _drain(self, ctx: Any) -> None:
        while not self._finished() and ctx.execute_pending_job():
            pass
        if self._failed_untold and self._outcome is None:
            # The cell failed but formatting its error failed too (see install.js).
            self._outcome = CellOutcome("completed", self._untold_failure_text(ctx))

    def _untold_failure_text(self, ctx: Any) -> str:
        """The error text of a failure whose own text could not be formatted."""
        if heap_nearly_full(ctx, self._heap_limit):
            return out_of_memory_text(self._heap_limit)
        return "Error: the cell failed, and the text of its error could not be formatted"

    def _finished(self) -> bool:
        return self._outcome is not None or self._stop_requested or self._exit_requested

    def _stalled_by_exhausted_heap(self, ctx: Any) -> bool:
        """Nothing can wake the cell any more, and its heap is nearly full.

        A promise job that QuickJS could not even enqueue (the module's rejection after
        an allocation failure, say) is lost without a trace; what is left is a cell with
        no timer, no tool call in flight and a full heap. Codex's host would have crashed
        on such a heap; here the cell ends with the heap-limit error.
        """
        if self._outstanding_tools or self._active_timers or not self._queue.empty():
            return False
        return heap_nearly_full(ctx, self._heap_limit)

    def _loop_events(self, ctx: Any, dispatch: Any) -> CellOutcome:
        while True:
            self._drain(ctx)
            if self._finished():
                break
            timeout = None
            if self._timers:
                timeout = max(0.0, self._timers[0][0] - time.monotonic())
            elif self._stalled_by_exhausted_heap(ctx):
                self._outcome = CellOutcome("completed", out_of_memory_text(self._heap_limit))
                break
            try:
                kind, payload = self._queue.get(timeout=timeout)
            except queue.Empty:
                kind, payload = "tick", None
            while True:
                if kind == "stop":
                    break
                if kind == "settle":
                    runtime_id, settlement = payload
                    self._outstanding_tools.discard(runtime_id)
                    dispatch("settle", settlement)
                    self._drain(ctx)
                    if self._finished():
                        break
                try:
                    kind, payload = self._queue.get_nowait()
                except queue.Empty:
                    break
            if self._finished():
                break
            now = time.monotonic()
            while self._timers and self._timers[0][0] <= now and not self._finished():
                _, _, timer_id = heapq.heappop(self._timers)
                if timer_id in self._active_timers:
                    self._active_timers.discard(timer_id)
                    dispatch("fire", str(timer_id))
                    self._drain(ctx)
        if self._stop_requested:
            return CellOutcome("stopped")
        if self._exit_requested:
            return CellOutcome("completed")
        assert self._outcome is not None
        return self._outcome

    # ---- what the prelude asks of this thread (runtime/bridge.py) -----------------

    def _host(self, op: str, arg: str) -> str | None:
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
        self._active_timers.add(timer_id)
        heapq.heappush(self._timers, (time.monotonic() + delay_ms / 1000.0, timer_id, timer_id))

    def clear_timer(self, timer_id: int) -> None:
        self._active_timers.discard(timer_id)

    def request_exit(self) -> bool:
        """``exit()``: True when the context will be interrupted, False for the sentinel."""
        self._exit_requested = True
        with self._lock:
            if self._interrupter is not None:
                self._interrupter.arm()
                return True
        return False

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
        if kind == "null" and not null_is_out_of_memory(self._source, self._context, self._heap_limit):
            return None
        if self._outcome is None:
            self._outcome = CellOutcome("completed", out_of_memory_text(self._heap_limit))
        with self._lock:
            if self._interrupter is not None:
                self._interrupter.arm()
                return "ended"
        return None

    def module_failed(self, text: str | None) -> None:
        """The module (or a timer callback) failed; ``text`` is None when it could not be formatted."""
        if self._outcome is not None:
            return
        if text is None:
            self._failed_untold = True
        else:
            self._outcome = CellOutcome("completed", scrub(text), thrown=True)
