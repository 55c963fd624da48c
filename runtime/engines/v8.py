"""The V8 engine: one isolate per cell (mini-racer), as Codex's own host runs cells.

The isolate runs JavaScript on a thread of its own (:mod:`.v8_native`); the cell thread
only queues tasks and never waits on the isolate once the cell runs, so a stop always
gets through. Start-up, in order (the isolate idle, so the cell thread waits for each):
``[]`` (an empty argument list) and the bridge (``v8_boot.js``, called with the native
callback as ``this``; it returns the shared buffer), both usually done ahead of time
(:mod:`.v8_spare`), then the prelude (which hands its dispatcher to ``__cm_connect`` and
gets the entry function back), then the cell's script.

The cell's source is compiled as a classic script named ``exec_main.mjs`` (mini-racer has
no module loader): line 1 holds a strict function that passes the cell's ``async``
arrow function to the entry, the source follows from line 2 (``errors_v8.js`` moves the
positions of error texts back), so top-level ``await`` works and ``this`` is undefined,
as in Codex's module. Messages of the cell thread (a tool's settlement, a timer) wait in a
mailbox; each is one task calling ``entry()``, which fetches the next one through the
bridge, so V8 runs a message's promise jobs before the next message, as QuickJS does.

Stopping: :meth:`V8Engine.interrupt` cancels the running task (V8 terminates it,
uncatchably); JavaScript in a promise job outlives that, so the isolate is always freed at
the cell's end (:meth:`V8Engine.close`), which terminates whatever still runs. The heap
limit is mini-racer's hard limit: V8 stops the cell's JavaScript at the garbage collection
that finds the heap over it (allocation can overshoot until then); the cell then ends with
the heap-limit error. One allocation V8 itself cannot make (an array of more than about
2^27 elements, a heap beyond V8's own limit) aborts the whole host process, as it aborts
Codex's host; the client then starts a new host and keeps the stored values.
"""

from __future__ import annotations

import collections
import json
import re
from typing import Any

from codemode.runtime import bridge
from codemode.runtime.engines import v8_spare
from codemode.runtime.engines.base import CellHost
from codemode.runtime.engines.v8_native import Isolate, TaskResult
from codemode.runtime.heap import out_of_memory_text
from codemode.runtime.jserrors import first_static_import, prepare_source
from codemode.runtime.outcome import CellOutcome
from codemode.runtime.prelude_source import prelude_source

HEAP_POLL_S = 0.05
"""How often a waiting cell thread checks whether V8 stopped the cell at its heap limit."""
_WAKE_OPS = frozenset({"done", "failed", "fail", "exited", "exit", "oom", "timer", "cleartimer"})
"""Bridge operations after which the cell thread must look at the cell again."""
_CELL_HEADER = (
    '"use strict";(function () { return this((function () { const __cm_meta__ = Object.create(null); '
    "return async () => {\n"
)
_CELL_FOOTER = "\n}; })()); })\n//# sourceURL=exec_main.mjs"
_IMPORT_META = re.compile(r"\bimport\s*\.\s*meta\b")
"""``import.meta`` (a module's, an empty object with no prototype in Codex's host) becomes
``__cm_meta__``, which the header declares; both are 11 characters, so positions stay."""
_AWAIT = re.compile(r"(\bfor\s+)?(\bawait\b)")
"""``await`` (after ``for``, as in ``for await``, replaced by spaces; else by ``void``)."""


class V8Engine:
    """A cell's V8 isolate (see the module docstring)."""

    poll_s: float | None = HEAP_POLL_S

    def __init__(self, cell: CellHost) -> None:
        self._cell = cell
        self._state = cell.state
        self._isolate: Isolate | None = None
        self._mailbox: collections.deque[str] = collections.deque()
        self._empty: Any = None
        self._entry: Any = None

    # ---- start-up ------------------------------------------------------------------

    def start(self) -> CellOutcome | None:
        state = self._state
        booted = v8_spare.take()
        isolate = booted.isolate
        isolate.attach(on_call=self._on_call, on_result=self._on_result, heap_limit=state.heap_limit)
        self._isolate = isolate
        self._empty = booted.empty
        self._cell.interrupt_ready()
        config = json.dumps(json.dumps({"tools": state.tools, "source": state.source}))
        prelude = f"globalThis.__codemode_config = {config};\n__cm_connect({prelude_source('v8')})"
        entry = v8_spare.wait_for(lambda tag: isolate.eval(prelude, tag))
        if entry.kind != "handle":
            return CellOutcome("completed", f"code-mode runtime error: {entry.text}")
        self._entry = entry.handle
        body = _IMPORT_META.sub("__cm_meta__", prepare_source(state.source))
        problem = self._refusal(body)
        if problem is not None:
            return CellOutcome("completed", problem)
        state.report_began()
        script = v8_spare.wait_for(lambda tag: isolate.eval(_CELL_HEADER + body + _CELL_FOOTER, tag))
        if script.kind != "handle":
            return self._failure(script)
        isolate.call(script.handle, self._empty, "cell", this=self._entry)
        return None

    def _refusal(self, body: str) -> str | None:
        """The SyntaxError text of a source Codex's module would refuse, else None.

        The bridge compiles the source on its own, as an async function's body, then as
        global code where ``return`` is illegal (``check`` in ``v8_boot.js``), with ``await``
        taken out, which only a module or an async function allows.
        """
        without_await = _AWAIT.sub(lambda m: m.group(1) + " " * len(m.group(2)) if m.group(1) else "void ", body)
        self._mailbox.append("check\u0000" + body + "\u0000" + without_await)
        isolate = self._isolate
        assert isolate is not None
        result = v8_spare.wait_for(lambda tag: isolate.call(self._entry, self._empty, tag))
        if result.kind != "value" or not result.text:
            return None
        text = result.text
        if text == "SyntaxError: Cannot use import statement outside a module":
            specifier = first_static_import(self._state.source)
            if specifier is not None:
                text = f"Unsupported import in exec: {specifier}"
        return text

    # ---- running -------------------------------------------------------------------

    def deliver(self, op: str, arg: str) -> CellOutcome | None:
        isolate = self._isolate
        if isolate is None:
            return None
        self._mailbox.append(op + "\u0000" + arg)
        isolate.call(self._entry, self._empty, "pump")
        return None

    def run_jobs(self) -> CellOutcome | None:
        return None  # V8 runs its promise jobs after each task, on the isolate's thread

    def end_checkpoint(self) -> None:
        """Wait until the isolate has run the promise jobs of the checkpoint the cell ended in.

        mini-racer reports a task's result before V8 runs the promise jobs the task queued,
        and starts the next task only after them; so a task queued now ends after that
        checkpoint. It is the entry, which takes no message once the cell is finished
        (``next`` answers nothing), as do the tasks of messages delivered before the end."""
        isolate = self._isolate
        state = self._state
        if isolate is None or state.halted():
            return
        barrier = v8_spare.Waiter()
        isolate.call(self._entry, self._empty, barrier)
        while not barrier.done.wait(HEAP_POLL_S):
            if state.halted() or isolate.heap_limit_reached():
                return  # close() terminates what still runs

    def stalled(self) -> CellOutcome | None:
        isolate = self._isolate
        if isolate is not None and isolate.heap_limit_reached():
            return CellOutcome("completed", out_of_memory_text(self._state.heap_limit))
        return None

    def null_is_out_of_memory(self) -> bool:
        return False  # V8 reports an exhausted heap by terminating, never as a thrown null

    def interrupt(self) -> None:
        isolate = self._isolate
        if isolate is not None:
            isolate.cancel_running()

    def finish(self, outcome: CellOutcome) -> CellOutcome:
        return outcome

    def close(self) -> None:
        isolate, self._isolate = self._isolate, None
        if isolate is not None:
            isolate.close()

    # ---- the isolate's side (isolate thread) -----------------------------------------

    def _on_call(self, request: str) -> str | None:
        op, _, arg = request.partition("\u0000")
        state = self._state
        if op == "next":
            # A message queued before the cell ended is not run after it (as in Codex's host,
            # which takes no message once the cell's checkpoint is over).
            return self._mailbox.popleft() if self._mailbox and not state.finished() else None
        if state.halted() and bridge.observable(op):
            # After exit() or a stop, promise jobs V8 left queued may run in a later task.
            return None
        reply = state.host_call(op, arg)
        if op in _WAKE_OPS:
            self._cell.wake()
        return reply

    def _on_result(self, tag: object, result: TaskResult) -> None:
        if isinstance(tag, v8_spare.Waiter):
            tag.settle(result)
            return
        cell = self._cell
        if result.kind == "out_of_memory" or (self._isolate is not None and self._isolate.heap_limit_reached()):
            cell.post_engine_outcome(CellOutcome("completed", out_of_memory_text(self._state.heap_limit)))
        elif result.kind in ("error", "parse_error"):
            cell.post_engine_outcome(CellOutcome("completed", f"code-mode runtime error: {result.text}"))

    def _failure(self, result: TaskResult) -> CellOutcome:
        """The outcome of a cell script V8 did not accept although its source compiled alone
        (only an exhausted heap is expected here)."""
        if result.kind == "out_of_memory":
            return CellOutcome("completed", out_of_memory_text(self._state.heap_limit))
        lines = [line for line in (result.text or "").splitlines() if line.strip()]
        return CellOutcome("completed", lines[-1] if lines else "SyntaxError")
