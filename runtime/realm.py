"""The notebook profile's realm: one QuickJS context, on one thread, for every cell of a session.

A :class:`Realm` is created at a session's first execute and closed with the session. Its
thread evaluates the realm prelude once (``prelude_source.realm_prelude_source``: the parts
every cell shares, and an entry to the factory that makes one cell's helpers and dispatcher
and to the listing of bindings for completion), then serves one queue of events tagged by
cell: a cell to start, a tool's settlement, a stop; and listings (:meth:`Realm.members`). Each
:class:`RealmCell` holds what belongs to it (its :class:`~codemode.runtime.cellstate.CellState`:
its output, tool calls, timers, stored values, outcome); the thread fires every cell's due
timers, runs the context's promise jobs (one job queue for all cells) and, after each step,
reports each cell that has ended with its own ``finished`` event.

Stopping one cell (terminate, ``exit()``, an exhausted heap) must leave the others running.
A cell whose JavaScript is not running is ended at once: its pending tool calls never
settle (the host cancels them), except the ones a helper of an ended cell made through it,
which other cells' code may await: their promises are rejected (``prelude/realm_install.js``).
Its timers are dropped and its helpers act for the cell running now. JavaScript
that runs is interrupted (:mod:`~codemode.runtime.interrupt`) at once when it is a call the
realm made for the stopped cell (its start, a timer, a settlement). QuickJS cannot tell whose
promise job runs, so any other JavaScript may be the stopped cell's too: a
:class:`~codemode.runtime.realm_stop.StopWatch` interrupts it when the thread has not come
back to its event loop shortly after the stop, and gives the realm up when even that does not
bring it back (every cell ends; the session's next cells get a fresh realm,
:attr:`Realm.lost`). An interrupt that stopped another live cell's body (in a promise job:
read from the interrupt's stack, where the body function's name carries a token only the realm
knows) ends that cell with a clear error rather than leaving it waiting forever.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import queue
import threading
import time
from typing import Any

import _quickjs as quickjs  # the binding itself, as engines/quickjs.py imports it

from codemode.runtime import bridge
from codemode.runtime.bridge import settlement
from codemode.runtime.cell_thread import start_thread
from codemode.runtime.cellstate import CellState
from codemode.runtime.engines.quickjs import new_context
from codemode.runtime.heap import (
    DEFAULT_HEAP_LIMIT_BYTES,
    is_out_of_memory,
    null_is_out_of_memory,
    shared_out_of_memory_text,
    untold_failure_text,
)
from codemode.runtime.jserrors import compile_error_text
from codemode.runtime.notebook_cell import HELPERS, body_name, cell_script, compile_error, interrupted_cell
from codemode.runtime.outcome import CellOutcome
from codemode.runtime.prelude_source import realm_prelude_source
from codemode.runtime.realm_stop import STOPPED_BY_RESET, StopWatch, collateral_text
from codemode.runtime.realm_thread import RealmThread

log = logging.getLogger(__name__)


def _silent_when_ended(name: str) -> bool:
    """Host calls of a cell that has ended which have no effect (nothing more of it is
    observable): what :func:`~codemode.runtime.bridge.observable` names, and new timers."""
    return bridge.observable(name) or name == "timer"


class RealmCell:
    """A cell run by a :class:`Realm`: its :class:`~codemode.runtime.cellstate.CellState`
    (made from ``settings``, CellState's keyword arguments but ``runtime``) and what the realm
    keeps of it."""

    def __init__(self, *, realm: Realm, **settings: Any) -> None:
        self.realm = realm
        self.state = CellState(runtime=self, **settings)
        self.cell_id: str = self.state.cell_id
        self.dispatch: Any = None
        """The cell's dispatcher in the realm's JavaScript, while the cell runs."""
        self.reported = False
        """Its ``finished`` event went out (under the realm's lock)."""
        self.body_name = body_name(self.cell_id)
        """The name of its body function, which no other cell knows (``notebook_cell``)."""

    def start(self) -> None:
        """Hand the cell to the realm's thread."""
        self.realm.post("start", self)

    def stop(self) -> None:
        """Terminate the cell (the realm's other cells go on)."""
        self.realm.stop_cell(self)

    def deliver_tool_result(self, runtime_tool_call_id: str, ok: bool, value: Any) -> None:
        """Settle the promise of tool call ``runtime_tool_call_id`` (reject with string ``value``)."""
        self.realm.post("settle", self, (runtime_tool_call_id, settlement(runtime_tool_call_id, ok, value)))

    # ---- what the cell's state asks (RuntimePort) -------------------------------------

    def interrupt_for_exit(self) -> bool:
        """The cell ran ``exit()``: interrupt the realm's running JavaScript."""
        return self.realm.interrupt_running(f"cell {self.cell_id} ran exit()")

    def out_of_memory(self, kind: str) -> str | None:
        """The realm's heap is exhausted: every running cell ends (:meth:`Realm.out_of_memory`)."""
        return self.realm.out_of_memory(kind)

    def given_up(self) -> bool:
        """The realm was given up (:attr:`Realm.lost`)."""
        return self.realm.lost is not None


class Realm:
    """One session's JavaScript context and the thread that drives it (see the module docstring).

    Thread-safe: :meth:`post`, :meth:`stop_cell`, :meth:`close`, :attr:`lost`, and what a
    :class:`StopWatch` calls.
    """

    def __init__(self, *, heap_limit_bytes: int | None, name: str) -> None:
        self.heap_limit = heap_limit_bytes or DEFAULT_HEAP_LIMIT_BYTES
        self._name = name
        self._queue: queue.SimpleQueue[tuple[str, RealmCell | None, Any]] = queue.SimpleQueue()
        self._cells: dict[str, RealmCell] = {}
        self._thread_state = RealmThread()
        self._lock = self._thread_state.lock
        self._members: dict[str, RealmCell] = {}
        """Every cell handed to the realm and not yet reported (what ends when it is given up)."""
        self._running: RealmCell | None = None
        self._ctx: Any = None
        self._entry: Any = None
        self._thread: threading.Thread | None = None

    @property
    def lost(self) -> str | None:
        """The error text of its cells once the realm was given up: the next cells need a new one."""
        return self._thread_state.lost

    # ---- thread-safe API -----------------------------------------------------------

    def post(self, kind: str, cell: RealmCell | None, payload: Any = None) -> None:
        """Queue an event for the realm's thread (started on the first event). A cell started
        on a realm given up meanwhile ends at once with the realm's error text."""
        with self._lock:
            lost = self.lost
            if kind == "start" and cell is not None and lost is None:
                self._members[cell.cell_id] = cell
            if self._thread is None:
                self._thread = start_thread(self._run, f"codemode-realm-{self._name}")
        if kind == "start" and cell is not None and lost is not None:
            cell.state.set_outcome(CellOutcome("completed", lost))
            self._report(cell)
            return
        self._queue.put((kind, cell, payload))

    def stop_cell(self, cell: RealmCell) -> None:
        """Terminate ``cell``: interrupt its JavaScript if it runs now, else end it at once; in
        both cases watch that the realm's thread comes back (:class:`StopWatch`)."""
        with self._lock:
            if cell.state.stop_requested or self.lost is not None:
                cell.state.stop_requested = True
                return
            cell.state.stop_requested = True
            own_call = self._thread_state.in_js and self._thread_state.call_cell is cell
            if own_call:
                self._thread_state.arm(f"cell {cell.cell_id} was terminated")
            report_now = not own_call and not cell.reported
            if report_now:
                cell.reported = True
                self._members.pop(cell.cell_id, None)
            epoch = self._thread_state.epoch
        cell.state.wake_waiters()
        if report_now:
            cell.state.report_finished(cell.state.final_outcome(CellOutcome("stopped")))
        self.post("stop", cell)
        StopWatch(self, cell.cell_id, epoch).start()

    def members(self, path: list[str]) -> concurrent.futures.Future[list[list[str]] | None]:
        """The names the cells declared as globals (``path`` empty), or the members of the value
        at ``path`` (``[name, kind]`` pairs, ``prelude/realm_members.js``), listed by the realm's
        thread between jobs; None when the listing failed. A busy thread answers late: the
        caller bounds its wait and may cancel the future."""
        future: concurrent.futures.Future[list[list[str]] | None] = concurrent.futures.Future()
        if self._thread_state.ended:
            future.set_result(None)
        else:
            self.post("members", None, (path, future))
        return future

    def close(self) -> None:
        """End the realm's thread (the session closed; its cells were stopped): JavaScript
        still running is interrupted for good."""
        self._thread_state.end()
        if self._thread is not None:
            self._queue.put(("close", None, None))

    # ---- a stop that does not take effect at once (realm_stop.StopWatch) -------------

    def wait_idle(self, epoch: int, timeout_s: float) -> bool:
        """True once the thread came back to its event loop after idle count ``epoch``, or the
        realm ended; False after ``timeout_s`` seconds."""
        return self._thread_state.wait_return(epoch, timeout_s)

    def interrupt_stray(self, reason: str) -> None:
        """Interrupt the JavaScript running now, whoever's it is, because ``reason``."""
        self._thread_state.interrupt(reason)

    def give_up(self, text: str) -> None:
        """The thread cannot be got back: every cell ends (a stopped one as stopped, the others
        with ``text``), the thread is interrupted for good and leaves at its next poll."""
        if not self._thread_state.end(lost=text):
            return
        with self._lock:
            cells = list(self._members.values())
            self._members.clear()
        for cell in cells:
            cell.state.wake_waiters()
            if cell.state.stop_requested:
                # Its own output says what stopping it cost (the others' error texts say it).
                cell.state.emit_item({"type": "input_text", "text": STOPPED_BY_RESET})
            elif not cell.state.finished():
                cell.state.set_outcome(CellOutcome("completed", text))
            self._report(cell)

    # ---- interrupts (realm thread) -----------------------------------------------------

    def interrupt_running(self, reason: str) -> bool:
        """Interrupt the JavaScript running now because ``reason`` (``exit()``, an exhausted
        heap); False when no interrupt is available."""
        return self._thread_state.interrupt(reason)

    def null_is_out_of_memory(self, source: str) -> bool:
        """Whether a thrown ``null`` is QuickJS's report of a failed allocation (realm thread)."""
        return null_is_out_of_memory(source, self._ctx, self.heap_limit)

    def out_of_memory(self, kind: str) -> str | None:
        """The heap is exhausted: every running cell ends with the heap-limit error (realm thread)."""
        running = self._running
        if kind == "null" and not self.null_is_out_of_memory(running.state.source if running is not None else ""):
            return None
        self._all_out_of_memory()
        return "ended" if self.interrupt_running("the heap was exhausted") else None

    def _all_out_of_memory(self) -> None:
        text = shared_out_of_memory_text(self.heap_limit)
        for cell in self._cells.values():
            cell.state.set_outcome(CellOutcome("completed", text))

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
            self._entry = None
            self._thread_state.switch = None
            self._ctx = None

    def _boot(self) -> None:
        ctx, self._thread_state.switch = new_context(self.heap_limit)
        ctx.add_callable("__codemode_host", self._host_call)
        ctx.set("__codemode_config", json.dumps({"tools": [], "source": ""}))
        self._ctx = ctx
        self._entry = ctx.eval(realm_prelude_source())

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
            cell.state.set_outcome(CellOutcome("completed", text))
            self._report(cell)
        self._cells.clear()

    def _loop(self) -> None:
        while self.lost is None:
            self._run_jobs()
            self._check_cells()
            self._thread_state.came_back()
            try:
                kind, cell, payload = self._queue.get(timeout=self._next_timeout())
            except queue.Empty:
                kind, cell, payload = "tick", None, None
            while True:
                if kind == "close":
                    for live in list(self._cells.values()):
                        live.state.stop_requested = True
                        self._finalize(live)
                    return
                if kind == "members":
                    self._list_members(*payload)
                elif cell is not None:
                    self._handle(kind, cell, payload)
                try:
                    kind, cell, payload = self._queue.get_nowait()
                except queue.Empty:
                    break
            self._fire_timers()

    def _next_timeout(self) -> float | None:
        due = [at for at in (cell.state.next_timer_due() for cell in self._cells.values()) if at is not None]
        return max(0.0, min(due) - time.monotonic()) if due else None

    def _handle(self, kind: str, cell: RealmCell, payload: Any) -> None:
        if kind == "start":
            self._start(cell)
        elif kind == "settle":
            runtime_tool_call_id, (op, arg) = payload
            cell.state.tool_settled(runtime_tool_call_id)
            if cell.cell_id in self._cells and not cell.state.finished():
                self._deliver(cell, op, arg)
        elif kind == "stop" and cell.cell_id in self._cells:
            self._finalize(cell)

    def _list_members(self, path: list[str], future: concurrent.futures.Future[list[list[str]] | None]) -> None:
        if not future.set_running_or_notify_cancel():
            return  # the caller stopped waiting
        listed = self._call(None, self._entry, "members", json.dumps(path), quiet=True)
        future.set_result(json.loads(listed) if isinstance(listed, str) else None)

    def _fire_timers(self) -> None:
        now = time.monotonic()
        for cell in list(self._cells.values()):
            while not cell.state.finished():
                timer_id = cell.state.pop_due_timer(now)
                if timer_id is None:
                    break
                self._deliver(cell, "fire", str(timer_id))

    def _start(self, cell: RealmCell) -> None:
        self._cells[cell.cell_id] = cell
        if cell.state.finished():
            return
        script = cell_script(cell.state.source, cell.body_name)
        if script.error is not None:
            cell.state.set_outcome(CellOutcome("completed", script.error))
            return
        config = {"tools": cell.state.tools, "source": script.body, "helpers": HELPERS, "has_value": script.has_value}
        try:
            cell.dispatch = self._entry("cell", cell.cell_id, json.dumps(config))
            function = self._ctx.eval(script.script)
        except quickjs.JSException as exc:
            text = str(exc)
            if is_out_of_memory(text, script.body, self._ctx, self.heap_limit):
                self._all_out_of_memory()
            else:
                cell.state.set_outcome(CellOutcome("completed", compile_error(text, script.body)))
            return
        self._deliver(cell, "start", function)

    def _deliver(self, cell: RealmCell, op: str, arg: Any) -> None:
        """Hand ``cell``'s dispatcher ``op``, then run the promise jobs that made ready."""
        self._call(cell, cell.dispatch, op, arg)
        self._run_jobs()

    def _run_jobs(self) -> None:
        if self._ctx is None:
            return
        while self.lost is None and self._call(None, self._ctx.execute_pending_job):
            pass
        for cell in self._cells.values():
            if cell.state.untold_failure():
                text = untold_failure_text(self._ctx, self.heap_limit, shared_out_of_memory_text(self.heap_limit))
                cell.state.set_outcome(CellOutcome("completed", text))

    def _call(self, cell: RealmCell | None, function: Any, *args: Any, quiet: bool = False) -> Any:
        """Call into JavaScript on behalf of ``cell`` (None: promise jobs, the last cell's).

        Returns what the call returned, None when it failed; a failure that escaped the
        prelude ends the cell it is attributed to (an interrupt is no failure of its own),
        unless ``quiet`` (the runtime's own calls, which no cell made).
        """
        if not self._thread_state.enter(cell):
            return None
        if cell is not None:
            self._running = cell
        failure = None
        result = None
        try:
            result = function(*args)
        except quickjs.JSException as exc:
            failure = str(exc)
        finally:
            armed, reason, ended = self._thread_state.leave()
        if failure is None or ended:
            return result
        if function is not self._entry:
            # The stack unwound to here, an interrupt without running ``finally``: forget the
            # ended cell whose helper may have been running (later host calls would carry it).
            self._call(None, self._entry, "unwound", quiet=True)
        if armed and "interrupted" in failure.partition("\n")[0]:
            self._interrupted(cell, failure, reason)
        elif not quiet:
            self._escaped(cell or self._running, failure)
        return result

    def _interrupted(self, cell: RealmCell | None, text: str, reason: str | None) -> None:
        """An interrupt armed because ``reason`` stopped a call made for ``cell`` (None: a
        promise job): the live cell whose body it stopped can never go on, so it ends with a
        clear error. That is ``cell`` when the realm called for it (its start, a timer, a
        settlement: no other cell's body resumes in them); in a promise job, the cell whose
        body function (named by a token only the realm knows) is on the stack ``text``."""
        owner = cell
        if owner is None:
            bodies = {live.body_name: live.cell_id for live in self._cells.values()}
            owner_id = interrupted_cell(text, bodies)
            owner = self._cells.get(owner_id) if owner_id is not None else None
        if owner is not None and reason is not None and not owner.state.finished():
            owner.state.set_outcome(CellOutcome("completed", collateral_text(reason)))

    def _escaped(self, cell: RealmCell | None, text: str) -> None:
        source = cell.state.source if cell is not None else ""
        if is_out_of_memory(text, source, self._ctx, self.heap_limit) or text.startswith(
            "InternalError: out of memory"
        ):
            self._all_out_of_memory()
        elif cell is not None:
            cell.state.set_outcome(CellOutcome("completed", compile_error_text(text, source, False)))

    def _check_cells(self) -> None:
        """Finalize every cell that has ended, also one that ended in the promise jobs a
        finalization ran."""
        while ended := [cell for cell in self._cells.values() if cell.state.finished()]:
            for cell in ended:
                self._finalize(cell)

    def _finalize(self, cell: RealmCell) -> None:
        """``cell`` has ended: forget it here and in JavaScript, report it (once)."""
        if self._cells.pop(cell.cell_id, None) is None:
            return
        cell.state.clear_timers()
        if cell.dispatch is not None and self._ctx is not None:
            # Its helpers now act for the cell running now; the calls an ended cell's helper made
            # through it are rejected (the host cancels them): their reactions run now.
            self._call(None, cell.dispatch, "ended", "")
            cell.dispatch = None
            self._run_jobs()
        self._report(cell)

    def _report(self, cell: RealmCell) -> None:
        with self._lock:
            report, cell.reported = not cell.reported, True
            self._members.pop(cell.cell_id, None)
        if report:
            cell.state.report_finished(cell.state.final_outcome(cell.state.ended_outcome()))

    # ---- the prelude's host calls (realm thread) ----------------------------------------

    def _host_call(self, op: str, arg: str) -> str | None:
        """Serve a host call of the realm's JavaScript: ``"<cell id>|<op>"`` for a cell's
        helpers, ``"<cell id>@<ended cell id>|<op>"`` when a helper of an ended cell acts for
        the cell (``prelude/realm.js``: a tool call then says so, ``via_ended``), or a call of
        the realm itself (``intl``, ``readers``, ``oom``)."""
        head, separator, name = op.partition("|")
        cell_id, _, via_ended = head.partition("@")
        if not separator:
            if op == "oom":
                return self.out_of_memory(arg)
            if op in ("intl", "readers"):
                return bridge.handle(_NO_CELL, op, arg)
            return bridge.error_reply(f"code-mode runtime error: unknown host operation {op}")
        cell = self._cells.get(cell_id)
        if cell is None:
            return None
        with self._lock:
            self._running = cell
            if cell.state.stop_requested:
                self._thread_state.arm(f"cell {cell_id} was terminated")
                return None
        if cell.state.finished() and _silent_when_ended(name):
            return None
        return cell.state.host_call(name, arg, via_ended or None)


_NO_CELL: Any = None
"""The cell of a host call that needs none (``intl``, ``readers``)."""
