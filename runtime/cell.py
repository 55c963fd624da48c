"""One code-mode cell: a fresh QuickJS context on its own thread.

Follows ``design.md`` §2-§3 and ``spec/codex-code-mode.md`` §1: every cell gets a brand
new context (fresh globals) created and used only on the cell's thread; the source runs
as an ES module (top-level await); the prelude (``prelude.js``) installs the globals.
The thread owns an event queue (tool results, stop requests) and the cell's timers, and
reports everything it observes to the asyncio side through :class:`CellEvents`
callbacks scheduled with ``loop.call_soon_threadsafe``, in emission order.

Stored values (``spec §1.6``): the cell starts from a snapshot of the session store
(JSON texts by key); its writes are visible to its own ``load`` at once and are handed
back in the ``finished`` event, for the session to merge when the cell completes.
"""

from __future__ import annotations

import asyncio
import heapq
import json
import logging
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import quickjs

from . import interrupt
from .jserrors import compile_error_text, prepare_source
from .prelude_source import prelude_source

log = logging.getLogger(__name__)

DEFAULT_HEAP_LIMIT_BYTES = 256 * 1024 * 1024
"""Per-cell QuickJS memory limit when the session sets none (our improvement on Codex)."""
JS_STACK_LIMIT_BYTES = 4 * 1024 * 1024
"""QuickJS stack budget: deep recursion fails with ``RangeError`` instead of crashing."""
THREAD_STACK_BYTES = 64 * 1024 * 1024
"""C stack of a cell thread; comfortably above :data:`JS_STACK_LIMIT_BYTES`."""
EXIT_SENTINEL = "__codex_code_mode_exit__"

_SURROGATE = re.compile("[\ud800-\udfff]")


def _scrub(value: Any) -> Any:
    """Replace lone surrogates in strings by U+FFFD, as Codex's host does for text."""
    if isinstance(value, str):
        if _SURROGATE.search(value):
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, list):
        return [_scrub(v) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items()}
    return value


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
    JSON texts.
    """

    kind: str
    error_text: str | None = None
    writes: dict[str, str] = field(default_factory=dict)


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
        self._outcome: CellOutcome | None = None
        self._exit_requested = False
        self._stop_requested = False
        self._interrupter: interrupt.Interrupter | None = None
        self._lock = threading.Lock()
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
        self._queue.put(("settle", json.dumps({"id": runtime_id, "ok": ok, "value": value})))

    def stop(self) -> None:
        """Terminate the cell: interrupt running JS and end the thread without committing."""
        with self._lock:
            self._stop_requested = True
            if self._interrupter is not None:
                self._interrupter.arm()
        self._queue.put(("stop", None))

    def is_alive(self) -> bool:
        """True while the cell's thread runs."""
        return self._thread is not None and self._thread.is_alive()

    # ---- the thread --------------------------------------------------------------

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        try:
            self._loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # loop closed during shutdown
            pass

    def _run(self) -> None:
        try:
            outcome = self._execute()
        except Exception as exc:  # noqa: BLE001 - a cell must always report its end
            log.exception("cell %s failed inside the runtime", self.cell_id)
            outcome = CellOutcome("completed", f"code-mode runtime error: {exc}")
        if self._stop_requested:
            outcome = CellOutcome("stopped")
        outcome.writes = dict(self._writes) if outcome.kind == "completed" else {}
        self._post(self._events.finished, outcome)
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
        dispatch = ctx.eval(prelude_source())
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
        """Give an exhausted heap a clear error text (QuickJS may throw a bare ``null``)."""
        text = outcome.error_text
        if text is None:
            return outcome
        oom = text.startswith("InternalError: out of memory")
        if not oom and text == "null":
            try:
                usage = ctx.memory()
                oom = usage["malloc_size"] >= 0.9 * self._heap_limit
            except Exception:  # noqa: BLE001 - the check is best effort
                oom = False
        if oom:
            outcome.error_text = (
                f"RangeError: out of memory: the cell exceeded its heap limit of {self._heap_limit} bytes "
                "(maxHeapSizeBytes)"
            )
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

    def _finished(self) -> bool:
        return self._outcome is not None or self._stop_requested or self._exit_requested

    def _loop_events(self, ctx: Any, dispatch: Any) -> CellOutcome:
        while True:
            self._drain(ctx)
            if self._finished():
                break
            timeout = None
            if self._timers:
                timeout = max(0.0, self._timers[0][0] - time.monotonic())
            try:
                kind, payload = self._queue.get(timeout=timeout)
            except queue.Empty:
                kind, payload = "tick", None
            while True:
                if kind == "stop":
                    break
                if kind == "settle":
                    dispatch("settle", payload)
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

    # ---- the bridge called from JS (on this thread; must never raise) ---------------

    def _host(self, op: str, arg: str) -> str | None:
        try:
            return self._handle(op, arg)
        except Exception as exc:  # noqa: BLE001 - a raise would become a SystemError in JS
            log.exception("host call %s failed", op)
            return json.dumps({"error": f"code-mode runtime error: {exc}"})

    def _handle(self, op: str, arg: str) -> str | None:
        if op == "emit":
            self._post(self._events.item, _scrub(json.loads(arg)))
            return None
        if op == "tool":
            call = json.loads(arg)
            self._tool_seq += 1
            runtime_id = f"tool-{self._tool_seq}"
            self._post(self._events.tool_call, runtime_id, call["index"], call["input"])
            return json.dumps({"value": runtime_id})
        if op == "notify":
            self._post(self._events.notify, _scrub(json.loads(arg)))
            return None
        if op == "store":
            key, value = json.loads(arg)
            self._writes[key] = value
            self._view[key] = value
            return None
        if op == "load":
            return json.dumps({"value": self._view.get(json.loads(arg))})
        if op == "yield":
            self._post(self._events.yield_control)
            return None
        if op == "timer":
            timer_id, delay_ms = json.loads(arg)
            self._active_timers.add(timer_id)
            heapq.heappush(self._timers, (time.monotonic() + delay_ms / 1000.0, timer_id, timer_id))
            return None
        if op == "cleartimer":
            self._active_timers.discard(int(arg))
            return None
        if op == "exit":
            self._exit_requested = True
            with self._lock:
                if self._interrupter is not None:
                    self._interrupter.arm()
                    return None
            return json.dumps({"error": EXIT_SENTINEL})
        if op == "exited":
            self._exit_requested = True
            return None
        if op == "done":
            if self._outcome is None:
                self._outcome = CellOutcome("completed")
            return None
        if op == "fail":
            if self._outcome is None:
                self._outcome = CellOutcome("completed", _scrub(json.loads(arg)))
            return None
        return json.dumps({"error": f"unknown host operation {op}"})
