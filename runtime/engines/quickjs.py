"""The QuickJS engine: one ``quickjs.Context`` per cell, used only on the cell's thread.

The source runs as an ES module (top-level await); promise jobs run when the cell thread
calls :meth:`QuickJSEngine.run_jobs`. A memory limit and a stack limit bound the context;
the in-process interrupt (:mod:`~codemode.runtime.interrupt`) stops running JavaScript.
QuickJS words some failures unlike V8 (Codex's engine): the prelude and
:mod:`~codemode.runtime.jserrors` give them V8's texts, and an exhausted heap, which
QuickJS may report as a bare ``null``, is recognised here (:mod:`~codemode.runtime.heap`).

The binding's extension module ``_quickjs`` is imported, not its package ``quickjs``: the
package only re-exports ``Context`` and ``JSException`` from it, and importing it starts a
thread pool for its ``Function`` helper (which the host never uses) and loads
``concurrent.futures``, a cost paid at every host start.
"""

from __future__ import annotations

import json
from typing import Any

import _quickjs as quickjs

from codemode.runtime import interrupt
from codemode.runtime.engines.base import CellHost
from codemode.runtime.heap import (
    heap_nearly_full,
    is_out_of_memory,
    null_is_out_of_memory,
    out_of_memory_text,
    untold_failure_text,
)
from codemode.runtime.jserrors import prepare_source
from codemode.runtime.outcome import CellOutcome
from codemode.runtime.prelude_source import prelude_source

JS_STACK_LIMIT_BYTES = 4 * 1024 * 1024
"""QuickJS stack budget: deep recursion fails with ``RangeError`` instead of crashing."""
PREPARED_HEAP_LIMIT_BYTES = 8 * 1024 * 1024
"""The heap limit of a context prepared before its cell is known (:func:`prepare`). A cell
whose limit is lower gets a fresh context made under its own limit instead, so a heap too
small for the prelude fails as it always did."""


def new_context(heap_limit: int) -> tuple[Any, interrupt.Interrupter | None]:
    """A ``quickjs.Context`` limited to ``heap_limit`` bytes and :data:`JS_STACK_LIMIT_BYTES`
    of stack, and its installed interrupt switch (None when no interrupt is available)."""
    ctx = quickjs.Context()
    ctx.set_memory_limit(heap_limit)
    ctx.set_max_stack_size(JS_STACK_LIMIT_BYTES)
    switch = interrupt.Interrupter(ctx) if interrupt.AVAILABLE else None
    if switch is None or not switch.usable:
        return ctx, None
    switch.install()
    return ctx, switch


class Prepared:
    """A context made ahead on a cell thread: ``install`` is the prelude's ``__cm_install``
    compiled in it, not called yet (it reads the cell's configuration when called). A plain
    class: a dataclass costs the host's start the generation of its methods."""

    __slots__ = ("ctx", "switch", "install")

    def __init__(self, ctx: Any, switch: interrupt.Interrupter | None, install: Any) -> None:
        self.ctx = ctx
        self.switch = switch
        self.install = install


def prepare() -> Prepared:
    """A context with the prelude compiled, on the thread that will run its cell (see
    ``runtime/cell_thread.py``); limited to :data:`PREPARED_HEAP_LIMIT_BYTES` until a cell
    takes it. Raises ``quickjs.JSException`` when the prelude does not compile."""
    ctx, switch = new_context(PREPARED_HEAP_LIMIT_BYTES)
    return Prepared(ctx, switch, ctx.eval(prelude_source("quickjs", called=False)))


class QuickJSEngine:
    """A cell's QuickJS context (see the module docstring)."""

    poll_s: float | None = None

    def __init__(self, cell: CellHost, prepared: Prepared | None = None) -> None:
        self._cell = cell
        self._state = cell.state
        self._prepared = prepared
        self._ctx: Any = None
        self._dispatch: Any = None
        self._switch: interrupt.Interrupter | None = None

    def start(self) -> CellOutcome | None:
        cell, state = self._cell, self._state
        prepared, self._prepared = self._prepared, None
        if prepared is not None and state.heap_limit >= PREPARED_HEAP_LIMIT_BYTES:
            ctx, switch, install = prepared.ctx, prepared.switch, prepared.install
            ctx.set_memory_limit(state.heap_limit)
        else:
            ctx, switch = new_context(state.heap_limit)
            install = None
        prepared = None
        self._ctx = ctx
        if switch is not None:
            self._switch = switch
            cell.interrupt_ready()
        ctx.add_callable("__codemode_host", state.host_call)
        ctx.set("__codemode_config", json.dumps({"tools": state.tools, "source": state.source}))
        try:
            dispatch = install() if install is not None else ctx.eval(prelude_source("quickjs"))
        except quickjs.JSException as exc:
            # Only a heap too small for the prelude itself can fail here: the cell ends with
            # the heap-limit error, as when its own code exhausts the heap.
            if is_out_of_memory(str(exc).strip(), state.source, ctx, state.heap_limit):
                return CellOutcome("completed", out_of_memory_text(state.heap_limit))
            return CellOutcome("completed", f"code-mode runtime error: {exc}")
        state.report_began()
        try:
            promise = ctx.module(prepare_source(state.source))
        except quickjs.JSException as exc:
            return cell.js_failure(str(exc), compile_time=True)
        self._dispatch = dispatch
        return self._call("watch", promise)

    def deliver(self, op: str, arg: str) -> CellOutcome | None:
        return self._call(op, arg) or self.run_jobs()

    def _call(self, op: str, arg: Any) -> CellOutcome | None:
        try:
            self._dispatch(op, arg)
        except quickjs.JSException as exc:
            return self._cell.js_failure(str(exc), compile_time=False)
        return None

    def run_jobs(self) -> CellOutcome | None:
        state = self._state
        try:
            while not state.halted() and self._ctx.execute_pending_job():
                pass
        except quickjs.JSException as exc:
            return self._cell.js_failure(str(exc), compile_time=False)
        if state.untold_failure():
            text = untold_failure_text(self._ctx, state.heap_limit, out_of_memory_text(state.heap_limit))
            state.set_outcome(CellOutcome("completed", text))
        return None

    def end_checkpoint(self) -> None:
        return None  # run_jobs ran the queue empty

    def stalled(self) -> CellOutcome | None:
        """Nothing can wake the cell any more, and its heap is nearly full.

        A promise job that QuickJS could not even enqueue (the module's rejection after
        an allocation failure, say) is lost without a trace; what is left is a cell with
        no timer, no tool call in flight and a full heap. Codex's host would have crashed
        on such a heap; here the cell ends with the heap-limit error.
        """
        heap_limit = self._state.heap_limit
        if self._cell.waiting_on_nothing() and heap_nearly_full(self._ctx, heap_limit):
            return CellOutcome("completed", out_of_memory_text(heap_limit))
        return None

    def null_is_out_of_memory(self) -> bool:
        return null_is_out_of_memory(self._state.source, self._ctx, self._state.heap_limit)

    def interrupt(self) -> None:
        if self._switch is not None:
            self._switch.arm()

    def finish(self, outcome: CellOutcome) -> CellOutcome:
        """Give an exhausted heap its clear error text (QuickJS may throw a bare ``null``)."""
        state = self._state
        text = outcome.error_text
        if (
            text is not None
            and not outcome.thrown
            and (
                is_out_of_memory(text, state.source, self._ctx, state.heap_limit)
                or text.startswith("code-mode runtime error: InternalError: out of memory")
            )
        ):
            outcome.error_text = out_of_memory_text(state.heap_limit)
        return outcome

    def close(self) -> None:
        self._dispatch = None
        self._switch = None
        self._ctx = None
