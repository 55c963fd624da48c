"""What belongs to one cell, whatever thread drives its JavaScript.

A :class:`CellState` holds a cell's life apart from the engine: its events to the asyncio
side (in order, through an :class:`~codemode.runtime.events.EventPipe`, bounded by the
output and notification :class:`~codemode.runtime.events.Window`), its tool calls in
flight, its timers, its view of the session store and its writes, its outcome and whether
it was stopped or ran ``exit()``. It serves the prelude's host calls
(:mod:`~codemode.runtime.bridge`). The cell's runtime, what runs its JavaScript, holds the
state: the strict profile's cell thread (``runtime/cell.py``'s ``CellRuntime``, one cell a
thread) or a cell of the notebook profile's realm (``runtime/realm.py``'s ``RealmCell``, many
cells in one context). What needs the engine (interrupting JavaScript after ``exit()``, an
exhausted heap) the state asks of its runtime (:class:`RuntimePort`).

Stored values: the cell starts from a snapshot of the session store (JSON texts by key);
its writes are visible to its own ``load`` at once and are handed back in the ``finished``
event, for the session to merge when the cell completes.
"""

from __future__ import annotations

import asyncio
import heapq
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from codemode.runtime import bridge
from codemode.runtime.events import MAX_BUFFERED_OUTPUT, MAX_NOTIFICATIONS_IN_FLIGHT, EventPipe, Window, item_cost
from codemode.runtime.heap import DEFAULT_HEAP_LIMIT_BYTES
from codemode.runtime.jsontext import scrub
from codemode.runtime.outcome import CellOutcome
from codemode.wire import messages


class CellEvents:
    """Callbacks run on the asyncio loop for what a cell does.

    ``item(dict)``: a content item; ``yield_control()``; ``tool_call(runtime_tool_call_id, index,
    input_json, via_ended)`` (the argument's JSON text, as the prelude wrote it; ``via_ended``:
    the ended cell whose helper made the call, or None); ``notify(text)``; ``finished(outcome)``: the cell is done (once);
    ``output_full()``: a helper waits for room in the output window (the items before it
    are posted first), which only a response taking the output makes; ``began()``: the
    engine is ready and the cell's own code is about to run (posted before any of its items).
    """

    __slots__ = ("item", "yield_control", "tool_call", "notify", "finished", "output_full", "began")

    def __init__(
        self,
        item: Callable[[dict[str, Any]], None],
        yield_control: Callable[[], None],
        tool_call: Callable[[str, int, str, str | None], None],
        notify: Callable[[str], None],
        finished: Callable[[CellOutcome], None],
        output_full: Callable[[], None],
        began: Callable[[], None],
    ) -> None:
        self.item = item
        self.yield_control = yield_control
        self.tool_call = tool_call
        self.notify = notify
        self.finished = finished
        self.output_full = output_full
        self.began = began


class RuntimePort(Protocol):
    """What a cell's state asks of the cell's runtime, what runs its JavaScript (``CellRuntime``,
    ``RealmCell``; the asyncio side's view of the same object is ``livecell.CellControl``)."""

    def interrupt_for_exit(self) -> bool:
        """The cell ran ``exit()``: interrupt its running JavaScript; False when no interrupt is
        available (the prelude then throws its sentinel instead)."""
        ...

    def out_of_memory(self, kind: str) -> str | None:
        """Runtime code met an allocation failure (``kind`` ``"error"``, or ``"null"`` that may
        be one): ``"ended"`` when the cell now ends with the heap-limit error and its
        JavaScript is interrupted, None when a ``null`` is judged a plain thrown value or no
        interrupt is available."""
        ...

    def given_up(self) -> bool:
        """The JavaScript that runs the cell was given up (the realm's, :attr:`Realm.lost`):
        a helper waiting for room in a window returns at once."""
        ...


class CellState:
    """One cell's state and its side of the bridge (see the module docstring).

    ``runtime``: what runs the cell's JavaScript and holds this state. ``tools``: list of
    ``{"name": <JS name>, "description": str}`` in catalog order (the index into this list
    identifies the tool in ``tool_call``). ``stored``: the session
    store snapshot, key -> JSON text. ``heap_limit_bytes``: the engine's memory limit.
    Any thread: :meth:`notification_done`, :meth:`output_taken`; everything else runs on
    the thread that drives the cell's JavaScript.
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
        runtime: RuntimePort,
    ) -> None:
        self.cell_id = cell_id
        self.source = source
        self.tools = tools
        self._view = dict(stored)
        self._writes: dict[str, str] = {}
        self.heap_limit = heap_limit_bytes or DEFAULT_HEAP_LIMIT_BYTES
        self._events = events
        self._loop = loop
        self._runtime = runtime
        self._timers: list[tuple[float, int, int]] = []
        self._active_timers: set[int] = set()
        self._tool_seq = 0
        self._outstanding_tools: set[str] = set()
        self._outcome: CellOutcome | None = None
        self._exit_requested = False
        self._failed_untold = False
        self.stop_requested = False
        """Set by the cell's runtime when the cell is terminated (or its session closed)."""
        self._timer_lock = threading.Lock()
        self._flow = threading.Condition()
        stopped = self._is_stopping
        self._pipe = EventPipe(loop, stopped, self._flow, quiet=events.item)
        self._notifications = Window(MAX_NOTIFICATIONS_IN_FLIGHT, stopped, self._flow)
        self._output = Window(MAX_BUFFERED_OUTPUT, stopped, self._flow, on_full=self._output_full)

    # ---- state -------------------------------------------------------------------

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        self._pipe.post(fn, *args)

    def _is_stopping(self) -> bool:
        return self.stop_requested or self._runtime.given_up()

    def wake_waiters(self) -> None:
        """A helper waiting for room in a window returns at once (after a stop). Any thread."""
        with self._flow:
            self._flow.notify_all()

    def notification_done(self) -> None:
        """A notification of this cell was answered (or will never be): one more may go. Any thread."""
        self._notifications.release(1)

    def run_posted_items(self) -> None:
        """Run the content items the thread posted that the loop has not run yet (ahead of any
        other event), so the buffer holds them before a response takes it. Loop only."""
        self._pipe.run_quiet()

    def output_taken(self, cost: int) -> None:
        """Output of this cell (:func:`~codemode.runtime.events.item_cost`) left the buffer. Any thread."""
        self._output.release(cost)

    def output_waits(self) -> bool:
        """A helper of this cell waits for room in the output window: only a response taking
        the buffered output lets the cell go on. Any thread."""
        return self._output.full()

    def _output_full(self) -> None:
        """The output window is full (cell thread, before the helper waits): tell the loop,
        behind the items already posted, without waiting for room in the event queue."""
        self._pipe.post(self._events.output_full, wait=False)

    def final_outcome(self, outcome: CellOutcome) -> CellOutcome:
        """``outcome`` as reported: ``stopped`` after a stop; the writes only of a completed cell."""
        if self.stop_requested:
            outcome = CellOutcome("stopped")
        outcome.writes = dict(self._writes) if outcome.kind == "completed" else {}
        return outcome

    def report_began(self) -> None:
        """Post the ``began`` event: the engine is ready and the cell's code runs next (cell
        thread). An execute's yield time counts from here (:meth:`LiveCell.on_began`)."""
        self._pipe.post(self._events.began, wait=False)

    def report_finished(self, outcome: CellOutcome) -> None:
        """Post the ``finished`` event (once per cell, by whoever ends it)."""
        self._pipe.post(self._events.finished, outcome, wait=False)

    def finished(self) -> bool:
        """The cell has an outcome, was stopped or ran ``exit()``."""
        return self._outcome is not None or self.stop_requested or self._exit_requested

    def halted(self) -> bool:
        """The cell was stopped or ran ``exit()``: none of its JavaScript may run any more.

        A cell that ended because its promise settled (or failed) is finished but not halted:
        the promise jobs of the microtask checkpoint it ended in still run, as in Codex's host,
        whose module evaluation completes only once the checkpoint has run (the recorded case
        ``promise_jobs_after_the_end``); an error those jobs throw changes nothing
        (``promise_job_errors_after_the_end``)."""
        return self.stop_requested or self._exit_requested

    def ended_outcome(self) -> CellOutcome:
        """The outcome of a finished cell (:meth:`finished`), before :meth:`final_outcome`."""
        if self.stop_requested:
            return CellOutcome("stopped")
        if self._exit_requested:
            return CellOutcome("completed")
        assert self._outcome is not None
        return self._outcome

    def untold_failure(self) -> bool:
        """The cell failed but the text of its failure could not be formatted (see install.js)."""
        return self._failed_untold and self._outcome is None

    def set_outcome(self, outcome: CellOutcome) -> None:
        """End the cell with ``outcome`` unless it already has one."""
        if self._outcome is None:
            self._outcome = outcome

    def waiting_on_timers_or_tools(self) -> bool:
        """A timer or a tool call in flight can still wake the cell."""
        return bool(self._outstanding_tools or self._active_timers)

    # ---- timers ------------------------------------------------------------------

    def next_timer_due(self) -> float | None:
        """The ``time.monotonic()`` at which the next timer is due, or None."""
        with self._timer_lock:
            return self._timers[0][0] if self._timers else None

    def pop_due_timer(self, now: float) -> int | None:
        """The id of an active timer due at ``now`` (taken off the schedule), or None."""
        while True:
            with self._timer_lock:
                if not self._timers or self._timers[0][0] > now:
                    return None
                _, _, timer_id = heapq.heappop(self._timers)
                active = timer_id in self._active_timers
                self._active_timers.discard(timer_id)
            if active:
                return timer_id

    def clear_timers(self) -> None:
        """Forget every timer (the cell ended)."""
        with self._timer_lock:
            self._timers.clear()
            self._active_timers.clear()

    # ---- what the prelude asks (runtime/bridge.py) --------------------------------

    def host_call(self, op: str, arg: str, via_ended: str | None = None) -> str | None:
        """Serve ``__codemode_host(op, arg)`` (:mod:`~codemode.runtime.bridge`); ``via_ended``:
        the ended cell whose helper acts for this one (the notebook realm's)."""
        return bridge.handle(self, op, arg, via_ended)

    def emit_item(self, item: dict[str, Any]) -> None:
        self._buffer_item(scrub(item))

    def emit_text(self, text: str) -> None:
        """An ``input_text`` item whose text the prelude sent raw, checked well formed there (and
        a Python ``str`` the binding decoded as strict UTF-8 holds no surrogate): nothing to scrub."""
        self._buffer_item(dict(messages.input_text(text)))

    def _buffer_item(self, item: dict[str, Any]) -> None:
        """Wait for room in the output window, then hand ``item`` to the loop's buffer."""
        self._output.acquire(item_cost(item))
        self._post(self._events.item, item)

    def call_tool(self, index: int, input_json: str, via_ended: str | None = None) -> str:
        self._tool_seq += 1
        runtime_tool_call_id = f"tool-{self._tool_seq}"
        self._outstanding_tools.add(runtime_tool_call_id)
        self._post(self._events.tool_call, runtime_tool_call_id, index, input_json, via_ended)
        return runtime_tool_call_id

    def tool_settled(self, runtime_tool_call_id: str) -> None:
        """Tool call ``runtime_tool_call_id`` has its answer."""
        self._outstanding_tools.discard(runtime_tool_call_id)

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
        return self._runtime.interrupt_for_exit()

    def exited(self) -> None:
        self._exit_requested = True

    def module_done(self) -> None:
        if self._outcome is None:
            self._outcome = CellOutcome("completed")

    def out_of_memory(self, kind: str) -> str | None:
        """Runtime code met an allocation failure: its runtime decides (:meth:`RuntimePort.out_of_memory`)."""
        return self._runtime.out_of_memory(kind)

    def module_failed(self, text: str | None) -> None:
        """The module (or a timer callback) failed; ``text`` is None when it could not be formatted."""
        if self._outcome is not None:
            return
        if text is None:
            self._failed_untold = True
        else:
            self._outcome = CellOutcome("completed", scrub(text), thrown=True)
