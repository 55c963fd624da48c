"""One code-mode cell of the strict profile: a fresh JavaScript context driven by its own thread.

Every cell gets a brand new context (fresh globals) of the host's engine
(:mod:`~codemode.runtime.engines`: QuickJS on the cell's thread, or a V8 isolate on a
thread of its own); the prelude (``prelude/*.js``) installs the globals, then the source
runs with top-level await. The cell's thread owns an event queue (tool results, stop
requests), hands them and the cell's timers to the engine, and reports everything the
cell does to the asyncio side through :class:`~codemode.runtime.cellstate.CellEvents`
callbacks, in emission order. What belongs to the cell itself (events, windows, tools,
timers, stored values, outcome) is its :class:`~codemode.runtime.cellstate.CellState`,
which a :class:`CellRuntime` holds as :attr:`CellRuntime.state` and drives
(:class:`~codemode.runtime.cellstate.RuntimePort`).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any

from codemode.runtime import engines
from codemode.runtime.bridge import settlement
from codemode.runtime.cell_thread import start_cell_thread
from codemode.runtime.cellstate import CellState
from codemode.runtime.heap import out_of_memory_text
from codemode.runtime.jserrors import compile_error_text
from codemode.runtime.outcome import CellOutcome

log = logging.getLogger(__name__)

__all__ = ["CellRuntime"]


class CellRuntime:
    """Runs one cell's JavaScript on a dedicated thread.

    ``settings``: the keyword arguments of :class:`~codemode.runtime.cellstate.CellState`
    but ``runtime`` (this one). Thread-safe entry points: :meth:`start`,
    :meth:`deliver_tool_result`, :meth:`stop`.
    """

    def __init__(self, **settings: Any) -> None:
        self.state = CellState(runtime=self, **settings)
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._engine: engines.CellEngine | None = None
        self._interruptible = False
        self._thread: threading.Thread | None = None
        self._ran = threading.Event()

    # ---- thread-safe API -----------------------------------------------------------

    def start(self) -> None:
        """Start the cell on its thread: the spare cell thread, whose engine is prepared
        (``runtime/cell_thread.py``)."""
        self._thread = start_cell_thread(self._run, f"codemode-cell-{self.state.cell_id}")

    def deliver_tool_result(self, runtime_tool_call_id: str, ok: bool, value: Any) -> None:
        """Settle the promise of tool call ``runtime_tool_call_id`` (reject with string ``value``)."""
        self._queue.put(("settle", (runtime_tool_call_id, settlement(runtime_tool_call_id, ok, value))))

    def stop(self) -> None:
        """Terminate the cell: interrupt running JS and end the thread without committing."""
        with self._lock:
            self.state.stop_requested = True
        self._interrupt()
        self.state.wake_waiters()
        self._queue.put(("stop", None))

    def is_alive(self) -> bool:
        """True while the cell's thread runs the cell (the thread itself may serve a later one)."""
        return self._thread is not None and not self._ran.is_set()

    # ---- the thread --------------------------------------------------------------

    def _run(self, prepared: Any = None) -> None:
        state = self.state
        try:
            outcome = self._execute(prepared)
        except MemoryError:
            outcome = CellOutcome("completed", out_of_memory_text(state.heap_limit))
        except Exception as exc:  # noqa: BLE001 - a cell must always report its end
            log.exception("cell %s failed inside the runtime", state.cell_id)
            outcome = CellOutcome("completed", f"code-mode runtime error: {exc}")
        state.report_finished(state.final_outcome(outcome))
        # Free the context here, on this thread, after the outcome went out.
        if self._engine is not None:
            self._engine.close()
        self._ran.set()

    def _execute(self, prepared: Any) -> CellOutcome:
        engine = engines.create(self, prepared)
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
            if self.state.stop_requested and self._engine is not None:
                self._engine.interrupt()

    def _interrupt(self) -> bool:
        """Interrupt running JavaScript if the engine can; False when it cannot."""
        with self._lock:
            if self._interruptible and self._engine is not None:
                self._engine.interrupt()
                return True
        return False

    # ---- what the cell's state asks (RuntimePort) -------------------------------------

    def interrupt_for_exit(self) -> bool:
        """The cell ran ``exit()``: interrupt its JavaScript; False when the engine cannot."""
        return self._interrupt()

    def out_of_memory(self, kind: str) -> str | None:
        """Runtime code met an allocation failure (``kind`` ``"error"``, or ``"null"`` that may be
        one, judged by the engine): the cell ends with the heap-limit error. ``"ended"`` when
        its JavaScript is interrupted, None for a plain thrown ``null`` or no interrupt."""
        engine = self._engine
        if kind == "null" and not (engine is not None and engine.null_is_out_of_memory()):
            return None
        self.state.set_outcome(CellOutcome("completed", out_of_memory_text(self.state.heap_limit)))
        return "ended" if self._interrupt() else None

    def given_up(self) -> bool:
        """Never: a cell's own thread is not given up (a realm's is)."""
        return False

    # ---- what the engine asks (engines.CellHost) ------------------------------------

    def post_engine_outcome(self, outcome: CellOutcome) -> None:
        """An engine running JavaScript on another thread ends the cell with ``outcome`` (any thread)."""
        self._queue.put(("engine", outcome))

    def wake(self) -> None:
        """Make the cell thread look at its state again (an engine running JS on another thread)."""
        self._queue.put(("tick", None))

    def js_failure(self, text: str, *, compile_time: bool) -> CellOutcome:
        """The outcome of an engine exception with text ``text`` that escaped JavaScript: the
        cell's own when it has ended (stopped, ``exit()``, an outcome), else the error."""
        state = self.state
        if state.finished():
            return state.ended_outcome()
        return CellOutcome("completed", compile_error_text(text, state.source, compile_time))

    def waiting_on_nothing(self) -> bool:
        """No timer, no tool call in flight and no event queued: nothing can wake the cell."""
        return not (self.state.waiting_on_timers_or_tools() or not self._queue.empty())

    def _next_timeout(self, engine: engines.CellEngine) -> float | None:
        timeout = engine.poll_s
        due_at = self.state.next_timer_due()
        if due_at is not None:
            due = max(0.0, due_at - time.monotonic())
            timeout = due if timeout is None else min(timeout, due)
        return timeout

    def _loop_events(self, engine: engines.CellEngine) -> CellOutcome:
        state = self.state
        while True:
            outcome = engine.run_jobs()
            if outcome is not None:
                return outcome
            if state.finished():
                break
            outcome = engine.stalled()
            if outcome is not None:
                state.set_outcome(outcome)
                break
            try:
                kind, payload = self._queue.get(timeout=self._next_timeout(engine))
            except queue.Empty:
                kind, payload = "tick", None
            while True:
                if kind == "stop":
                    break
                if kind == "engine":
                    state.set_outcome(payload)
                    break
                if kind == "settle":
                    runtime_tool_call_id, (op, arg) = payload
                    state.tool_settled(runtime_tool_call_id)
                    outcome = engine.deliver(op, arg)
                    if outcome is not None:
                        return outcome
                    if state.finished():
                        break
                try:
                    kind, payload = self._queue.get_nowait()
                except queue.Empty:
                    break
            if state.finished():
                break
            now = time.monotonic()
            while not state.finished():
                timer_id = state.pop_due_timer(now)
                if timer_id is None:
                    break
                outcome = engine.deliver("fire", str(timer_id))
                if outcome is not None:
                    return outcome
        engine.end_checkpoint()
        return state.ended_outcome()
