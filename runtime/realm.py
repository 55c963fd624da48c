"""The notebook profile's realm: one QuickJS context, on one thread, for every cell of a session.

A :class:`Realm` is created at a session's first execute and closed with the session. Its
thread evaluates the realm prelude once (``prelude_source.realm_prelude_source``: the parts
every cell shares, and a factory that makes one cell's helpers and dispatcher), then serves
one queue of events tagged by cell: a cell to start, a tool's settlement, a stop. Each
:class:`RealmCell` keeps what belongs to it (:class:`~codemode.runtime.cellstate.CellState`:
its output, tool calls, timers, stored values, outcome); the thread fires every cell's due
timers, runs the context's promise jobs (one job queue for all cells) and, after each step,
reports each cell that has ended with its own ``finished`` event.

Stopping one cell (terminate, ``exit()``, an exhausted heap) must leave the others running.
A cell whose JavaScript is not running is ended at once: its pending tool calls never
settle, its timers are dropped and its helpers act for the cell running now. JavaScript
that runs is interrupted (:mod:`~codemode.runtime.interrupt`) only when it is the stopped
cell's: the realm attributes what runs to the cell it last handed an event to or that last
called a helper of its own. QuickJS cannot tell whose promise job runs; a busy loop that
resumes after a promise another cell settled may be taken for the other cell's, and is
then not interrupted (the terminate's answer comes, the loop keeps the realm busy).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from typing import Any

import quickjs

from . import bridge, interrupt
from .cell import start_thread
from .cellstate import CellState
from .engines.quickjs import new_context
from .heap import (
    DEFAULT_HEAP_LIMIT_BYTES,
    heap_nearly_full,
    is_out_of_memory,
    null_is_out_of_memory,
    shared_out_of_memory_text,
)
from .jserrors import compile_error_text
from .notebook_cell import HELPERS, cell_script, compile_error
from .outcome import CellOutcome
from .prelude_source import realm_prelude_source

log = logging.getLogger(__name__)

_SILENT_WHEN_ENDED = frozenset({"emit", "notify", "tool", "store", "yield", "timer"})
"""Host calls of a cell that has ended which have no effect (nothing more of it is observable)."""
_UNTOLD = "Error: the cell failed, and the text of its error could not be formatted"


class RealmCell(CellState):
    """A cell run by a :class:`Realm` (constructed as ``CellState`` plus ``realm``)."""

    def __init__(self, *, realm: Realm, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.realm = realm
        self.dispatch: Any = None
        self.reported = False

    def start(self) -> None:
        """Hand the cell to the realm's thread."""
        self.realm.post("start", self)

    def stop(self) -> None:
        """Terminate the cell (the realm's other cells go on)."""
        self.realm.stop_cell(self)

    def deliver_tool_result(self, runtime_id: str, ok: bool, value: Any) -> None:
        """Settle the promise of tool call ``runtime_id`` (reject with string ``value``)."""
        self.realm.post("settle", self, (runtime_id, json.dumps({"id": runtime_id, "ok": ok, "value": value})))

    def _interrupt(self) -> bool:
        return self.realm.interrupt_running()

    def _null_is_out_of_memory(self) -> bool:
        return self.realm.null_is_out_of_memory(self.source)

    def out_of_memory(self, kind: str) -> str | None:
        return self.realm.out_of_memory(kind)


class Realm:
    """One session's JavaScript context and the thread that drives it (see the module docstring).

    Thread-safe: :meth:`post`, :meth:`stop_cell`, :meth:`close`.
    """

    def __init__(self, *, heap_limit_bytes: int | None, name: str) -> None:
        self.heap_limit = heap_limit_bytes or DEFAULT_HEAP_LIMIT_BYTES
        self._name = name
        self._queue: queue.SimpleQueue[tuple[str, RealmCell | None, Any]] = queue.SimpleQueue()
        self._cells: dict[str, RealmCell] = {}
        self._lock = threading.Lock()
        self._running: RealmCell | None = None
        self._in_js = False
        self._armed = False
        self._switch: interrupt.Interrupter | None = None
        self._ctx: Any = None
        self._factory: Any = None
        self._thread: threading.Thread | None = None
        self._closed = False

    # ---- thread-safe API -----------------------------------------------------------

    def post(self, kind: str, cell: RealmCell | None, payload: Any = None) -> None:
        """Queue an event for the realm's thread (started on the first event)."""
        with self._lock:
            if self._thread is None:
                self._thread = start_thread(self._run, f"codemode-realm-{self._name}")
        self._queue.put((kind, cell, payload))

    def stop_cell(self, cell: RealmCell) -> None:
        """Terminate ``cell``: interrupt its JavaScript if it runs now, else end it at once."""
        with self._lock:
            if cell._stop_requested:
                return
            cell._stop_requested = True
            running = self._in_js and self._running is cell and self._arm()
            report_now = not running and not cell.reported
            cell.reported = cell.reported or report_now
        cell._wake_waiters()
        if report_now:
            cell.report_finished(cell.final_outcome(CellOutcome("stopped")))
        self.post("stop", cell)

    def close(self) -> None:
        """End the realm's thread (the session closed; its cells were stopped)."""
        if self._thread is not None:
            self._queue.put(("close", None, None))

    # ---- interrupts (realm thread, or a stop) ----------------------------------------

    def _arm(self) -> bool:
        """Interrupt the JavaScript running now (lock held); False when no interrupt is available."""
        if self._switch is None:
            return False
        if not self._armed:
            self._switch.arm()
            self._armed = True
        return True

    def interrupt_running(self) -> bool:
        """Interrupt the JavaScript running now (``exit()``, an exhausted heap). Realm thread."""
        with self._lock:
            return self._in_js and self._arm()

    def null_is_out_of_memory(self, source: str) -> bool:
        """Whether a thrown ``null`` is QuickJS's report of a failed allocation (realm thread)."""
        return null_is_out_of_memory(source, self._ctx, self.heap_limit)

    def out_of_memory(self, kind: str) -> str | None:
        """The heap is exhausted: every running cell ends with the heap-limit error (realm thread)."""
        running = self._running
        if kind == "null" and not self.null_is_out_of_memory(running.source if running is not None else ""):
            return None
        self._all_out_of_memory()
        return "ended" if self.interrupt_running() else None

    def _all_out_of_memory(self) -> None:
        text = shared_out_of_memory_text(self.heap_limit)
        for cell in self._cells.values():
            cell.set_outcome(CellOutcome("completed", text))

    # ---- the thread ------------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._boot()
        except Exception as exc:  # noqa: BLE001 - every cell must still report its end
            log.exception("realm %s could not start", self._name)
            self._fail_all(f"code-mode runtime error: {exc}")
            return
        try:
            self._loop()
        except Exception as exc:  # noqa: BLE001
            log.exception("realm %s failed", self._name)
            self._fail_all(f"code-mode runtime error: {exc}")
        finally:
            self._factory = None
            self._switch = None
            self._ctx = None

    def _boot(self) -> None:
        ctx, self._switch = new_context(self.heap_limit)
        ctx.add_callable("__codemode_host", self._host_call)
        ctx.set("__codemode_config", json.dumps({"tools": [], "source": ""}))
        self._ctx = ctx
        self._factory = ctx.eval(realm_prelude_source())

    def _fail_all(self, text: str) -> None:
        """The realm cannot go on: every cell, also one queued to start, ends with ``text``."""
        while True:
            try:
                kind, cell, _ = self._queue.get_nowait()
            except queue.Empty:
                break
            if kind == "start" and cell is not None:
                self._cells[cell.cell_id] = cell
        for cell in list(self._cells.values()):
            cell.set_outcome(CellOutcome("completed", text))
            self._report(cell)
        self._cells.clear()

    def _loop(self) -> None:
        while True:
            self._run_jobs()
            self._check_cells()
            try:
                kind, cell, payload = self._queue.get(timeout=self._next_timeout())
            except queue.Empty:
                kind, cell, payload = "tick", None, None
            while True:
                if kind == "close":
                    for live in list(self._cells.values()):
                        live._stop_requested = True
                        self._finalize(live)
                    return
                if cell is not None:
                    self._handle(kind, cell, payload)
                try:
                    kind, cell, payload = self._queue.get_nowait()
                except queue.Empty:
                    break
            self._fire_timers()

    def _next_timeout(self) -> float | None:
        due = [at for at in (cell.next_timer_due() for cell in self._cells.values()) if at is not None]
        return max(0.0, min(due) - time.monotonic()) if due else None

    def _handle(self, kind: str, cell: RealmCell, payload: Any) -> None:
        if kind == "start":
            self._start(cell)
        elif kind == "settle":
            runtime_id, settlement = payload
            cell.tool_settled(runtime_id)
            if cell.cell_id in self._cells and not cell.finished():
                self._deliver(cell, "settle", settlement)
        elif kind == "stop" and cell.cell_id in self._cells:
            self._finalize(cell)

    def _fire_timers(self) -> None:
        now = time.monotonic()
        for cell in list(self._cells.values()):
            while not cell.finished():
                timer_id = cell.pop_due_timer(now)
                if timer_id is None:
                    break
                self._deliver(cell, "fire", str(timer_id))

    def _start(self, cell: RealmCell) -> None:
        self._cells[cell.cell_id] = cell
        if cell.finished():
            return
        script = cell_script(cell.source)
        if script.error is not None:
            cell.set_outcome(CellOutcome("completed", script.error))
            return
        config = {"tools": cell.tools, "source": script.body, "helpers": HELPERS, "has_value": script.has_value}
        try:
            cell.dispatch = self._factory(cell.cell_id, json.dumps(config))
            function = self._ctx.eval(script.script)
        except quickjs.JSException as exc:
            text = str(exc)
            if is_out_of_memory(text, script.body, self._ctx, self.heap_limit):
                self._all_out_of_memory()
            else:
                cell.set_outcome(CellOutcome("completed", compile_error(text, script.body)))
            return
        self._deliver(cell, "start", function)

    def _deliver(self, cell: RealmCell, op: str, arg: Any) -> None:
        """Hand ``cell``'s dispatcher ``op``, then run the promise jobs that made ready."""
        self._call(cell, cell.dispatch, op, arg)
        self._run_jobs()

    def _run_jobs(self) -> None:
        if self._ctx is None:
            return
        while self._call(None, self._ctx.execute_pending_job):
            pass
        for cell in self._cells.values():
            if cell.untold_failure():
                untold = heap_nearly_full(self._ctx, self.heap_limit)
                cell.set_outcome(
                    CellOutcome("completed", shared_out_of_memory_text(self.heap_limit) if untold else _UNTOLD)
                )

    def _call(self, cell: RealmCell | None, function: Any, *args: Any) -> Any:
        """Call into JavaScript on behalf of ``cell`` (None: promise jobs, the last cell's).

        Returns what the call returned, None when it failed; a failure that escaped the
        prelude ends the cell it is attributed to (an interrupt is no failure of its own).
        """
        with self._lock:
            if cell is not None:
                self._running = cell
            self._in_js = True
        failure = None
        result = None
        try:
            result = function(*args)
        except quickjs.JSException as exc:
            failure = str(exc)
        finally:
            with self._lock:
                self._in_js = False
                armed, self._armed = self._armed, False
                if armed and self._switch is not None:
                    self._switch.disarm()
        if failure is not None and not (armed and "interrupted" in failure.partition("\n")[0]):
            self._escaped(cell or self._running, failure)
        return result

    def _escaped(self, cell: RealmCell | None, text: str) -> None:
        source = cell.source if cell is not None else ""
        if is_out_of_memory(text, source, self._ctx, self.heap_limit) or text.startswith(
            "InternalError: out of memory"
        ):
            self._all_out_of_memory()
        elif cell is not None:
            cell.set_outcome(CellOutcome("completed", compile_error_text(text, source, False)))

    def _check_cells(self) -> None:
        for cell in list(self._cells.values()):
            if cell.finished():
                self._finalize(cell)

    def _finalize(self, cell: RealmCell) -> None:
        """``cell`` has ended: forget it here and in JavaScript, report it (once)."""
        if self._cells.pop(cell.cell_id, None) is None:
            return
        cell.clear_timers()
        if cell.dispatch is not None and self._ctx is not None:
            self._call(None, cell.dispatch, "ended", "")
            cell.dispatch = None
        self._report(cell)

    def _report(self, cell: RealmCell) -> None:
        with self._lock:
            report, cell.reported = not cell.reported, True
        if report:
            cell.report_finished(cell.final_outcome(cell.ended_outcome()))

    # ---- the prelude's host calls (realm thread) ----------------------------------------

    def _host_call(self, op: str, arg: str) -> str | None:
        cell_id, separator, name = op.partition("|")
        if not separator:
            if op == "oom":
                return self.out_of_memory(arg)
            if op == "intl":
                return bridge.handle(_NO_CELL, op, arg)
            return bridge.error_reply(f"code-mode runtime error: unknown host operation {op}")
        cell = self._cells.get(cell_id)
        if cell is None:
            return None
        with self._lock:
            self._running = cell
            if cell._stop_requested:
                self._arm()
                return None
        if cell.finished() and name in _SILENT_WHEN_ENDED:
            return None
        return cell.host_call(name, arg)


_NO_CELL: Any = None
"""The cell of a host call that needs none (``intl``)."""
