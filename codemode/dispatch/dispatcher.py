"""``ToolCallRuntime``: runs nested tool calls of code-mode cells.

A port of the behaviour of Codex's ``core/src/tools/parallel.rs`` (``ToolCallRuntime``), for
calls arriving as ``tool/invoke`` delegate requests:

- the call is resolved and its input marshalled (Codex's texts, from its
  ``build_nested_tool_payload``) and validated (JSON Schema: :mod:`.arguments`) before it
  reaches the gate;
- a per-cell gate: parallel tools share it, the others hold it exclusively;
- cancellation: a handler that already finished keeps its real result; otherwise the call is
  aborted, at once (the handler, which runs in the calling task, is cancelled) or, for tools
  that ``waits_for_cancellation`` (run in a task of their own), after awaiting the handler's
  own cleanup; the abort text is Codex's;
- exactly one lifecycle outcome per call (``completed`` with a success flag, ``failed``,
  ``aborted``), claimed by whichever of the finish and abort paths comes first;
- timing per call (dispatch wait, handler, total; ms), kept per cell for the kernel's
  ``execute_reply`` metadata, and listener events (``started`` / ``progress`` / ``output`` /
  ``finished``);
- with a recorder (``[recording] mode = "record"``), every call that reached its tool and was
  not cancelled is recorded with its arguments and its value or error text.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from codemode.cancellation import CancellationToken, first_of
from codemode.dispatch.arguments import ArgumentSchema
from codemode.dispatch.gate import SharedExclusiveGate
from codemode.dispatch.rejection import rejection_text
from codemode.errors import ToolCallError
from codemode.schema import jsonschema
from codemode.tools.base import ApprovalRequester, Tool, ToolContext
from codemode.tools.failures import exception_text, failure_text, json_problem

if TYPE_CHECKING:
    from codemode.replay.recorder import Recorder

logger = logging.getLogger(__name__)

MAX_REMEMBERED_CELLS = 1024
"""How many cells' call records :meth:`ToolCallRuntime.calls_for` keeps (oldest dropped)."""
MAX_RECORDS_PER_CELL = 1000
"""How many call records one cell keeps (the first ones); later calls are only counted
(:meth:`ToolCallRuntime.omitted_calls`), so a cell flooding calls does not grow memory."""

SHELL_TOOLS = frozenset({"exec_command", "shell_command", "unified_exec"})
"""Tools whose abort text is ``Wall time: X.X seconds\\naborted by user`` (Codex's shell tools)."""

EventKind = Literal["started", "progress", "output", "finished"]
Outcome = Literal["completed", "failed", "aborted"]


@dataclass
class ToolCallEvent:
    """A listener event. ``kind``: ``started`` (the call arrived), ``progress`` (``progress`` /
    ``total`` / ``message`` from the tool), ``output`` (text the tool printed: ``stream`` is
    ``"stdout"`` or ``"stderr"``, ``text`` the text; between ``started`` and ``finished``, in
    the order written) or ``finished`` (``outcome`` set)."""

    kind: EventKind
    cell_id: str
    runtime_tool_call_id: str
    tool: str
    progress: float | None = None
    total: float | None = None
    message: str | None = None
    outcome: str | None = None
    stream: str | None = None
    text: str | None = None


@dataclass
class ToolCallResult:
    """The end of one call. ``outcome`` is ``completed`` (``success`` tells whether the tool
    reported success), ``failed`` (``error`` holds the rejection text) or ``aborted``
    (``error`` holds Codex's abort text). ``value`` is the JSON result when completed."""

    outcome: Outcome
    value: Any = None
    error: str | None = None
    success: bool | None = None


@dataclass
class _Call:
    cell_id: str
    runtime_tool_call_id: str
    tool_label: str
    started: float
    execution_started: float | None = None
    cancelled: float | None = None
    """When the call's token was cancelled (the clock's seconds), for the abort text."""
    claimed: bool = False

    def claim(self) -> bool:
        """Claim the terminal outcome; True for the first caller only."""
        if self.claimed:
            return False
        self.claimed = True
        return True


def abort_message(tool_name: str, elapsed_s: float) -> str:
    """Codex's abort text for a call aborted after ``elapsed_s`` seconds (at least 0.1), as
    ``abort_message`` in Codex's ``core/src/tools/parallel.rs`` writes it."""
    secs = max(elapsed_s, 0.1)
    if tool_name in SHELL_TOOLS:
        return f"Wall time: {secs:.1f} seconds\naborted by user"
    return f"aborted by user after {secs:.1f}s"


def _ends_the_task(exc: BaseException, task: asyncio.Task[Any] | None) -> bool:
    """Whether ``exc``, raised out of a handler awaited by ``task``, ends ``task`` itself rather
    than the call: the task's own cancellation (it has a pending ``cancel()``), or
    ``GeneratorExit`` thrown in while its coroutine is closed outside a step of the task. Any
    other exception - a ``CancelledError`` or ``GeneratorExit`` the tool raised itself
    included - is the call's failure."""
    if isinstance(exc, asyncio.CancelledError):
        return task is None or task.cancelling() > 0
    if isinstance(exc, GeneratorExit):
        try:
            return asyncio.current_task() is not task
        except RuntimeError:  # no running loop: the coroutine is being closed
            return True
    return False


class ToolCallRuntime:
    """Dispatches nested tool calls against a registry.

    ``registry`` needs ``find(name, namespace) -> Tool | None``. Listeners get every
    :class:`ToolCallEvent`; a listener that raises is logged and ignored. ``clock`` gives the
    times (seconds, monotonic) of the call records and of the elapsed time in abort texts.
    ``approver`` asks a person for a tool that needs approval (``ToolContext.request_approval``;
    the kernel sets it; by default no one can be asked); ``asker(cell_id, prompt)`` asks a
    person one line for cell ``cell_id`` (``ToolContext.ask_person``; likewise).
    """

    def __init__(
        self, registry: Any, *, clock: Callable[[], float] = time.monotonic, recorder: Recorder | None = None
    ) -> None:
        """``recorder``: where every call that reached its tool is recorded
        (:mod:`codemode.replay.recorder`; ``[recording] mode = "record"``), or None."""
        self.registry = registry
        self.recorder = recorder
        self.approver: ApprovalRequester | None = None
        self.asker: Callable[[str, str], Awaitable[str | None]] | None = None
        self._clock = clock
        self._gates: dict[str, SharedExclusiveGate] = {}
        self._records: OrderedDict[str, list[dict[str, Any]]] = OrderedDict()
        self._omitted: dict[str, int] = {}
        self._listeners: list[Callable[[ToolCallEvent], None]] = []
        self._validators: dict[int, tuple[Tool, ArgumentSchema | None]] = {}

    # -- listeners and records -------------------------------------------------
    def add_listener(self, fn: Callable[[ToolCallEvent], None]) -> None:
        """Register ``fn`` for started / progress / output / finished events."""
        self._listeners.append(fn)

    def remove_listener(self, fn: Callable[[ToolCallEvent], None]) -> None:
        """Unregister a listener added with :meth:`add_listener` (no error if absent)."""
        if fn in self._listeners:
            self._listeners.remove(fn)

    def _emit(self, event: ToolCallEvent) -> None:
        for fn in list(self._listeners):
            try:
                fn(event)
            except Exception:  # noqa: BLE001 - a listener must not break a call
                logger.exception("tool-call listener failed")

    def calls_for(self, cell_id: str) -> list[dict[str, Any]]:
        """Finished calls of ``cell_id``, in finishing order: ``{"tool", "runtime_tool_call_id",
        "outcome", "success", "execution_started", "dispatch_ms", "handler_ms", "total_ms"}``
        (times in milliseconds, floats)."""
        return [dict(r) for r in self._records.get(cell_id, [])]

    def omitted_calls(self, cell_id: str) -> int:
        """Finished calls of ``cell_id`` beyond :data:`MAX_RECORDS_PER_CELL`, counted but not kept."""
        return self._omitted.get(cell_id, 0)

    def forget(self, cell_id: str) -> None:
        """Drop the records of ``cell_id``."""
        self._records.pop(cell_id, None)
        self._omitted.pop(cell_id, None)

    def cell_closed(self, cell_id: str) -> None:
        """The cell can issue no more calls: drop its gate (Codex does the same in ``cell_closed``)."""
        gate = self._gates.get(cell_id)
        if gate is not None and gate.idle:
            del self._gates[cell_id]

    def _gate(self, cell_id: str) -> SharedExclusiveGate:
        gate = self._gates.get(cell_id)
        if gate is None:
            gate = self._gates[cell_id] = SharedExclusiveGate()
        return gate

    def _record(self, call: _Call, outcome: Outcome, success: bool | None) -> None:
        finished = self._clock()
        total = (finished - call.started) * 1000
        if call.execution_started is not None and call.execution_started <= finished:
            dispatch = (call.execution_started - call.started) * 1000
            handler = (finished - call.execution_started) * 1000
        else:
            dispatch, handler = total, 0.0
        records = self._records.setdefault(call.cell_id, [])
        self._records.move_to_end(call.cell_id)
        while len(self._records) > MAX_REMEMBERED_CELLS:
            oldest, _ = self._records.popitem(last=False)
            self._omitted.pop(oldest, None)
        if len(records) >= MAX_RECORDS_PER_CELL:
            self._omitted[call.cell_id] = self._omitted.get(call.cell_id, 0) + 1
        else:
            records.append(
                {
                    "tool": call.tool_label,
                    "runtime_tool_call_id": call.runtime_tool_call_id,
                    "outcome": outcome,
                    "success": success,
                    "execution_started": call.execution_started is not None,
                    "dispatch_ms": round(dispatch, 3),
                    "handler_ms": round(handler, 3),
                    "total_ms": round(total, 3),
                }
            )
        self._emit(ToolCallEvent("finished", call.cell_id, call.runtime_tool_call_id, call.tool_label, outcome=outcome))

    # -- resolution and marshalling --------------------------------------------
    def resolve(self, tool_name: dict[str, Any] | str, tool_kind: str = "function") -> Tool:
        """Find the tool named by a wire ``tool_name`` (or a JS/raw name string).

        Raises :class:`ToolCallError` with Codex's texts: ``exec cannot invoke itself``,
        ``unsupported call: <name>`` / ``unsupported custom tool call: <name>``.
        """
        if isinstance(tool_name, dict):
            name = str(tool_name.get("name", ""))
            namespace = tool_name.get("namespace")
        else:
            name, namespace = tool_name, None
        label = name if not namespace else f"{namespace}{name}"
        if name in ("exec", "wait") and not namespace:
            raise ToolCallError("exec cannot invoke itself")
        tool = self.registry.find(name, namespace)
        if tool is None:
            if tool_kind == "freeform":
                raise ToolCallError(f"unsupported custom tool call: {label}")
            raise ToolCallError(f"unsupported call: {label}")
        return tool

    def marshal(self, tool: Tool, raw_input: Any) -> Any:
        """Check and shape the JSON input as Codex does and validate it against the input schema.

        Function tools: ``None`` -> ``{}``; objects pass; anything else raises
        ``tool `<name>` expects a JSON object for arguments``. Function tools with
        ``any_input`` take the value as it is (``None`` stays ``None``). Freeform tools need a
        string (``tool `<name>` expects a string input``). A tool with ``arguments`` (a Codex
        tool's Rust struct) refuses with Codex's serde text first and loses the keys the struct
        lacks. Schema violations raise a message naming the field and the rule.
        """
        if tool.kind == "freeform":
            if not isinstance(raw_input, str):
                raise ToolCallError(f"tool `{tool.raw_name}` expects a string input")
            return raw_input
        args = {} if raw_input is None and not tool.any_input else raw_input
        if not isinstance(args, dict) and not tool.any_input:
            raise ToolCallError(f"tool `{tool.raw_name}` expects a JSON object for arguments")
        if tool.arguments is not None and isinstance(args, dict):
            problem = tool.arguments.problem(args)
            if problem is not None:
                raise ToolCallError(problem)
            args = tool.arguments.known(args)
        schema = self._schema(tool)
        if schema is None:
            return args
        try:
            error = schema.first_error(args)
        except Exception as exc:  # noqa: BLE001 - a schema that cannot be applied (unresolvable $ref, ...)
            logger.warning(
                "tool %s has an input schema that cannot be applied (%s); arguments are not validated",
                tool.raw_name,
                exception_text(exc),
            )
            self._validators[id(tool)] = (tool, None)
            return args
        if error is not None:
            raise ToolCallError(rejection_text(tool.raw_name, error))
        return args

    def _schema(self, tool: Tool) -> ArgumentSchema | None:
        key = id(tool)
        if key in self._validators:
            cached_tool, schema = self._validators[key]
            if cached_tool is tool:
                return schema
        schema = None
        if isinstance(tool.input_schema, dict):
            try:
                schema = ArgumentSchema.build(tool.input_schema)
            except Exception as exc:  # noqa: BLE001 - SchemaError, or a schema jsonschema cannot read
                reason = exc.message if isinstance(exc, jsonschema.SchemaError) else exception_text(exc)
                logger.warning(
                    "tool %s has an invalid input schema (%s); arguments are not validated", tool.raw_name, reason
                )
        self._validators[key] = (tool, schema)
        return schema

    # -- calls -----------------------------------------------------------------
    async def invoke(self, cell_id: str, invocation: dict[str, Any], cancellation: CancellationToken) -> ToolCallResult:
        """Run one ``tool/invoke`` delegate call for the public ``cell_id``.

        ``invocation`` is the wire object ``{cell_id, via_ended_cell?, runtime_tool_call_id,
        tool_name, tool_kind, input}`` (``via_ended_cell`` public as well). Returns a
        :class:`ToolCallResult`; never raises for tool errors.
        """
        runtime_tool_call_id = str(invocation.get("runtime_tool_call_id", ""))
        tool_name = invocation.get("tool_name") or {}
        kind = str(invocation.get("tool_kind", "function"))
        via = invocation.get("via_ended_cell")
        return await self.handle_tool_call(
            cell_id,
            runtime_tool_call_id,
            tool_name,
            kind,
            invocation.get("input"),
            cancellation,
            via_ended_cell=None if via is None else str(via),
        )

    async def handle_tool_call(
        self,
        cell_id: str,
        runtime_tool_call_id: str,
        tool_name: dict[str, Any] | str,
        tool_kind: str,
        raw_input: Any,
        cancellation: CancellationToken,
        via_ended_cell: str | None = None,
    ) -> ToolCallResult:
        """Resolve, validate, gate and run one call; see the module docstring for the rules.

        ``cancellation`` aborts the call. If this coroutine itself is cancelled, the call is
        aborted the same way before ``CancelledError`` propagates. ``via_ended_cell``
        (:attr:`ToolContext.via_ended_cell`): such a call never gets the approver.
        """
        if isinstance(tool_name, dict):
            ns = tool_name.get("namespace")
            label = f"{ns or ''}{tool_name.get('name', '')}"
        else:
            label = tool_name
        call = _Call(cell_id, runtime_tool_call_id, label, self._clock())
        self._emit(ToolCallEvent("started", cell_id, runtime_tool_call_id, label))
        try:
            tool = self.resolve(tool_name, tool_kind)
            call.tool_label = tool.js_name
            args = self.marshal(tool, raw_input)
        except BaseException as exc:  # noqa: BLE001 - ToolCallError, or a registry or schema that failed
            if _ends_the_task(exc, asyncio.current_task()):
                raise
            text = str(exc) if isinstance(exc, ToolCallError) else failure_text(label, exc)
            call.claim()
            self._record(call, "failed", False)
            return ToolCallResult("failed", error=text, success=False)

        gate = self._gate(cell_id)
        exclusive = not tool.supports_parallel

        def report_progress(progress: float, total: float | None = None, message: str | None = None) -> None:
            self._emit(ToolCallEvent("progress", cell_id, runtime_tool_call_id, tool.js_name, progress, total, message))

        printed: list[list[str]] = []

        def report_output(stream: str, text: str) -> None:
            if self.recorder is not None:
                printed.append([stream, text])
            self._emit(ToolCallEvent("output", cell_id, runtime_tool_call_id, tool.js_name, stream=stream, text=text))

        ctx = ToolContext(cell_id, runtime_tool_call_id, cancellation, report_progress, report_output)
        ctx.via_ended_cell = via_ended_cell
        if self.approver is not None and via_ended_cell is None:
            ctx.request_approval = self.approver
        if self.asker is not None and via_ended_cell is None:
            ctx.ask_person = functools.partial(self.asker, cell_id)

        async def dispatch() -> ToolCallResult:
            me = asyncio.current_task()
            await asyncio.sleep(0)  # a later turn of the loop, as a new task's first step (see _inline)
            await gate.acquire(exclusive)
            try:
                call.execution_started = self._clock()
                numbered = self.recorder.begin() if self.recorder is not None else None
                try:
                    value = await tool.handler(args, ctx)
                except BaseException as exc:  # noqa: BLE001 - tool code may raise anything
                    if _ends_the_task(exc, me):
                        raise
                    text = failure_text(tool.raw_name, exc)
                    self._keep(numbered, call, tool, args, cancellation, "failed", text, printed)
                    return self._failed(call, tool, cancellation, text, exc)
                problem = json_problem(value)
                if problem is not None:
                    text = f"tool `{tool.raw_name}` returned a value that is not JSON: {problem}."
                    self._keep(numbered, call, tool, args, cancellation, "failed", text, printed)
                    return self._failed(call, tool, cancellation, text, None)
                self._keep(numbered, call, tool, args, cancellation, "completed", value, printed)
                success = not (isinstance(value, dict) and value.get("isError") is True)
                result = ToolCallResult("completed", value=value, success=success)
                # A handler that ends after the call was cancelled leaves the outcome to the
                # abort path (it ended because of the cancellation, or raced it).
                if not cancellation.cancelled and call.claim():
                    self._record(call, "completed", success)
                return result
            finally:
                gate.release(exclusive)

        if tool.waits_for_cancellation:
            return await self._beside(call, tool, cancellation, dispatch())
        return await self._inline(call, tool, cancellation, dispatch())

    async def _inline(
        self, call: _Call, tool: Tool, cancellation: CancellationToken, dispatch: Coroutine[Any, Any, ToolCallResult]
    ) -> ToolCallResult:
        """Run ``dispatch`` in the calling task (a task of its own cost about 15 us a call, a
        quarter of the dispatcher's share), as a task of its own would run it: the handler
        starts on a later turn of the event loop (a caller that loops over quick calls does not
        starve the loop), and a cancelled token cancels the calling task one turn later, so a
        handler that waits on the token itself sees it first (as it did when the abort path
        cancelled its task). The ``CancelledError`` ends the handler and the call is aborted;
        only this request of cancellation is absorbed (``uncancel``); any other cancellation of
        the task aborts the call and propagates."""
        me = asyncio.current_task()
        assert me is not None, "a tool call runs in a task"
        loop = asyncio.get_running_loop()
        requested = ended = False

        def cancel_if_running() -> None:
            nonlocal requested
            if not ended:
                requested = True
                me.cancel()

        def stop() -> None:
            call.cancelled = self._clock()
            loop.call_soon(cancel_if_running)

        unwatch = cancellation.watch(stop)
        try:
            result = await dispatch
        except asyncio.CancelledError:
            if requested and me.cancelling() == 1:
                me.uncancel()
                return self._aborted(call, tool)
            cancellation.cancel()
            self._aborted(call, tool)
            raise
        finally:
            ended = True
            unwatch()
        if requested:  # the handler absorbed the cancellation and returned
            me.uncancel()
        if cancellation.cancelled and not call.claimed:
            return self._aborted(call, tool)
        return result

    async def _beside(
        self, call: _Call, tool: Tool, cancellation: CancellationToken, dispatch: Coroutine[Any, Any, ToolCallResult]
    ) -> ToolCallResult:
        """Run ``dispatch`` in a task of its own, for a tool that ``waits_for_cancellation``: a
        cancelled call awaits the handler's own cleanup (a killed process group, an MCP
        server's ``notifications/cancelled``), and then is aborted."""
        task = asyncio.ensure_future(dispatch)
        try:
            await first_of(task, cancellation)
        except asyncio.CancelledError:
            cancellation.cancel()
            await self._abort(call, tool, task)
            raise
        if task.done() and call.claimed:
            return task.result()
        return await self._abort(call, tool, task)

    def _keep(
        self,
        numbered: tuple[int, str] | None,
        call: _Call,
        tool: Tool,
        args: Any,
        cancellation: CancellationToken,
        outcome: Outcome,
        answer: Any,
        printed: list[list[str]],
    ) -> None:
        """Hand a call that reached its tool to the recorder (``numbered``: its ``(seq,
        started)``, None when not recording): ``answer`` is the value (``completed``) or the
        error text (``failed``), ``printed`` the ``[stream, text]`` the tool printed. A call
        whose cancellation came first is not recorded."""
        if numbered is None or self.recorder is None or cancellation.cancelled:
            return
        from codemode.replay.recording import RecordedCall

        seq, started = numbered
        handler_ms = (self._clock() - (call.execution_started or call.started)) * 1000
        completed = outcome == "completed"
        recorded = RecordedCall(
            seq,
            tool.raw_name,
            args,
            outcome,
            result=answer if completed else None,
            error=None if completed else str(answer),
            cell=call.cell_id,
            call_id=call.runtime_tool_call_id,
            started=started,
            duration_ms=round(handler_ms, 3),
            output=printed or None,
        )
        self.recorder.record(recorded, self.registry.tools)

    def _failed(
        self, call: _Call, tool: Tool, cancellation: CancellationToken, text: str, exc: BaseException | None
    ) -> ToolCallResult:
        """The handler failed with ``text``; the outcome is the call's unless it was cancelled."""
        if exc is not None and not isinstance(exc, ToolCallError):
            logger.debug("tool %s raised", tool.js_name, exc_info=exc)
        if not cancellation.cancelled and call.claim():
            self._record(call, "failed", False)
        return ToolCallResult("failed", error=text, success=False)

    async def _abort(self, call: _Call, tool: Tool, task: asyncio.Future[ToolCallResult]) -> ToolCallResult:
        """The cancellation path of Codex's ``handle_tool_call_with_source`` (``parallel.rs``) for
        a handler in a task of its own: it keeps its outcome when it already claimed it, else its
        cleanup is awaited and the call is aborted."""
        if call.claimed:
            return await task
        call.cancelled = self._clock()
        if not task.done():
            if not call.claim():
                return await task
            try:
                await task
            except asyncio.CancelledError:
                pass
            except Exception:  # noqa: BLE001 - the abort owns the outcome
                logger.debug("cleanup of %s failed", tool.js_name, exc_info=True)
        else:
            call.claim()
            with contextlib.suppress(BaseException):
                task.result()  # finished, but only after the cancellation: the abort owns the outcome
        return self._aborted(call, tool, owned=True)

    def _aborted(self, call: _Call, tool: Tool, owned: bool = False) -> ToolCallResult:
        """The call's ``aborted`` outcome, recorded when the abort claims it (or ``owned``: it
        has claimed it already), with Codex's text for the time from the call's start to the
        cancellation."""
        cancelled = self._clock() if call.cancelled is None else call.cancelled
        if owned or call.claim():
            self._record(call, "aborted", None)
        return ToolCallResult("aborted", error=abort_message(tool.raw_name, cancelled - call.started))
