"""Read a Codex session file ("rollout") into typed records.

Codex writes each session to ``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``
(``CODEX_HOME`` defaults to ``~/.codex``): one JSON object a line, ``{"timestamp", "type",
"payload"}`` (0.171.0 adds ``ordinal`` and, on ``response_item`` lines, ``metadata``). The first
line is the ``session_meta``. The lines read here (Codex's ``codex-rs/protocol`` ``RolloutItem``
and ``ResponseItem`` types; the shapes below are those Codex CLI 0.171.0 wrote):

- ``response_item`` / ``message``: the user's prompt (role ``user``; the blocks Codex injects,
  such as ``<environment_context>``, are left out) and the model's messages (role
  ``assistant``, an optional ``phase`` ``commentary`` / ``final_answer``); ``reasoning``: its summary;
- ``response_item`` / ``custom_tool_call`` named ``exec``: a code-mode cell; ``input`` is the
  JavaScript exactly as the model sent it, its ``// @exec:`` pragma line included;
- ``response_item`` / ``function_call`` named ``wait``: ``arguments`` is the JSON text the model
  sent (``cell_id``, ``yield_time_ms``, ``max_tokens``, ``terminate``);
- ``custom_tool_call_output`` / ``function_call_output`` with the call's ``call_id``: its
  result. ``output`` is a list of items whose first is the header ``Script completed`` /
  ``Script running with cell ID N`` / ``Script failed`` / ``Script terminated``, then
  ``Wall time X.Y seconds`` and ``Output:``; the other items are the texts and images the model
  saw, a failure's last one ``Script error:\\n<message>``. With no item after the header the
  output is a plain string, and older Codex versions wrote every output as one string: both
  read as a header followed by (at most) one text (:func:`codemode.model_view.parse` reads
  the header, the error item and Codex's truncation warning);
- a ``custom_tool_call_output`` carrying ``"name": "exec"`` is one ``notify()`` of the exec
  with that ``call_id`` (a plain string), written after the output then pending;
- ``event_msg`` / ``item_completed`` of a nested tool call (``CommandExecution``,
  ``McpToolCall``, ``FileChange``, ``ImageView``): written when the call finished, with nothing
  tying it to its cell but its place and time;
- ``event_msg`` / ``task_started``: a turn; ``event_msg`` / ``thread_settings_applied``: a
  Codex process opened the thread. A resumed session (``codex exec resume``) appends to the
  same file from a new process, whose cell ids restart at 1.

Cell ids appear only in ``Script running with cell ID N``; every exec takes the next id of its
process, also one that completes at once. :attr:`Session.cells` maps each process's ids to the
exec calls.

Codex's first layout is read too: a first line with the session's ``id`` and ``timestamp`` and
no ``type``, then bare response items with no envelope (:func:`legacy_meta`).

Bad input: a line that is not JSON (or not an object) is skipped and named in
:attr:`Session.problems` by its 1-based number (the last one, when the file ends inside it, as
cut short); a line of a type this module does not know is skipped and counted in
:attr:`Session.skipped`; a file whose first readable line is not a ``session_meta`` raises
:class:`NotASessionError`. Reading 10 000 lines takes well under a second (``python -m bench
--rows replay`` measures it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from codemode import model_view
from codemode.model_view import Truncation


class NotASessionError(ValueError):
    """The file is not a Codex session file; ``str(e)`` names the file and says why."""


@dataclass(frozen=True)
class SessionMeta:
    """The ``session_meta`` line: Codex's ``session_id``, ``codex_version`` (``cli_version``),
    the working folder ``cwd``, ``started_at`` (ISO time, UTC) and ``originator``
    (``codex_exec``, an app-server client's name...)."""

    session_id: str
    codex_version: str
    cwd: str
    started_at: str
    originator: str


@dataclass(frozen=True)
class CallResult:
    """What the model saw of an ``exec`` or ``wait`` call.

    ``status``: ``completed``, ``running`` (the cell yielded), ``failed``, ``terminated``, or
    ``unknown`` when the header is not one of Codex's; ``cell_id``: N of ``Script running with
    cell ID N`` (else None); ``wall_time_s``: seconds, from ``Wall time X.Y seconds``;
    ``items``: the content items after the header (``input_text`` / ``input_image`` dicts as
    recorded), the ``Script error:`` item left out: its message is ``error``; ``output``: the
    recorded ``output`` unchanged (a string or a list of items), the model's exact view;
    ``time``: the line's timestamp; ``line``: its 1-based number.
    """

    status: str
    cell_id: str | None
    wall_time_s: float | None
    items: tuple[dict[str, Any], ...]
    truncation: Truncation | None
    error: str | None
    output: Any
    time: str
    line: int


@dataclass(frozen=True)
class Process:
    """A Codex process opened the thread (``index`` 1, 2, ...); cell ids restart at 1 in each."""

    index: int
    time: str
    line: int


@dataclass(frozen=True)
class Turn:
    """A turn started (``index`` 1, 2, ... over the file)."""

    turn_id: str
    index: int
    time: str
    line: int


@dataclass(frozen=True)
class UserPrompt:
    """The user's prompt (the text of a user ``message`` that Codex did not inject)."""

    text: str
    turn_id: str | None
    time: str
    line: int


@dataclass(frozen=True)
class ModelMessage:
    """A message of the model; ``phase`` is ``commentary``, ``final_answer`` or None."""

    text: str
    phase: str | None
    turn_id: str | None
    time: str
    line: int


@dataclass(frozen=True)
class Reasoning:
    """The summary of a ``reasoning`` item (its summary texts joined by blank lines)."""

    text: str
    turn_id: str | None
    time: str
    line: int


@dataclass(frozen=True)
class ExecCall:
    """An ``exec`` call: ``source`` exactly as sent (pragma included); ``cell_id`` the id Codex
    gave the cell in its ``process`` (seen in a header, else counted: every exec takes the next
    one); ``result`` None when no output was recorded (the turn ended first)."""

    call_id: str
    source: str
    cell_id: str
    process: int
    turn_id: str | None
    time: str
    line: int
    result: CallResult | None


@dataclass(frozen=True)
class WaitArguments:
    """A ``wait`` call's arguments, parsed; None where the model gave none (or an unusable
    value: the verbatim text is :attr:`WaitCall.arguments`)."""

    cell_id: str | None
    yield_time_ms: int | None
    max_tokens: int | None
    terminate: bool


@dataclass(frozen=True)
class WaitCall:
    """A ``wait`` call: ``arguments`` verbatim, ``parsed``; ``target`` the ``call_id`` of the
    exec the cell id names in this ``process``, or None when the process gave no such id."""

    call_id: str
    arguments: str
    parsed: WaitArguments
    target: str | None
    process: int
    turn_id: str | None
    time: str
    line: int
    result: CallResult | None


@dataclass(frozen=True)
class Notify:
    """One ``notify()`` of the exec ``call_id``: its text, written after the output then pending."""

    call_id: str
    text: str
    turn_id: str | None
    time: str
    line: int


@dataclass(frozen=True)
class NestedToolCall:
    """A nested tool call's ``item_completed``: ``kind`` is the item's type
    (``CommandExecution``, ``McpToolCall``, ``FileChange``, ``ImageView``, ...), ``item`` the
    item as recorded; ``pending_call_id`` the exec or wait whose output was not written yet
    when it was (a hint, not a link: Codex records none); times in ms since the epoch."""

    kind: str
    item_id: str
    item: Mapping[str, Any]
    turn_id: str | None
    started_at_ms: int | None
    completed_at_ms: int | None
    pending_call_id: str | None
    time: str
    line: int


@dataclass(frozen=True)
class OtherToolCall:
    """A tool the model called directly, not from code mode (``apply_patch``, ``exec_command``
    in Codex's feature-flag mode...): ``arguments`` verbatim, ``output`` as recorded or None."""

    name: str
    call_id: str
    arguments: str
    output: Any
    turn_id: str | None
    time: str
    line: int


Record = (
    Process
    | Turn
    | UserPrompt
    | ModelMessage
    | Reasoning
    | ExecCall
    | WaitCall
    | Notify
    | NestedToolCall
    | OtherToolCall
)
"""One record of a session, in file order (outputs are in their calls' ``result``)."""


@dataclass(frozen=True)
class LineProblem:
    """A line that could not be read: its 1-based number and why."""

    line: int
    problem: str


@dataclass(frozen=True)
class Session:
    """A whole session file: ``meta``, ``records`` in file order, ``cells`` (process index ->
    cell id -> exec ``call_id``), ``problems`` (unreadable lines), ``skipped`` (line type ->
    count of lines of a type not known here) and ``lines`` (how many the file has)."""

    path: Path
    meta: SessionMeta
    records: tuple[Record, ...]
    cells: Mapping[int, Mapping[str, str]]
    problems: tuple[LineProblem, ...]
    skipped: Mapping[str, int]
    lines: int

    @property
    def execs(self) -> tuple[ExecCall, ...]:
        return tuple(r for r in self.records if isinstance(r, ExecCall))

    @property
    def waits(self) -> tuple[WaitCall, ...]:
        return tuple(r for r in self.records if isinstance(r, WaitCall))

    @property
    def nested_tool_calls(self) -> tuple[NestedToolCall, ...]:
        return tuple(r for r in self.records if isinstance(r, NestedToolCall))


MESSAGE_TYPES = ("UserMessage", "AgentMessage", "Reasoning", "Plan", "Sleep")
"""``item_completed`` items that are not nested tool calls."""
KNOWN_LINE_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "world_state", "token_usage_record", "compacted"}
)
"""Line types Codex writes; any other is skipped and counted."""
KNOWN_ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "custom_tool_call",
        "custom_tool_call_output",
        "function_call",
        "function_call_output",
        "additional_tools",
        "local_shell_call",
        "web_search_call",
        "image_generation_call",
        "tool_search_call",
        "tool_search_output",
        "compaction",
        "compaction_summary",
        "ghost_snapshot",
    }
)
"""``response_item`` payload types Codex writes; any other is skipped and counted."""


def _lines(data: bytes) -> Iterator[tuple[int, bytes, bool]]:
    """``(number, line, is_last)`` of the non-blank lines; ``is_last`` when the file ends inside
    the line (no newline after it)."""
    start = 0
    number = 0
    size = len(data)
    while start < size:
        end = data.find(b"\n", start)
        number += 1
        if end < 0:
            line = data[start:]
            if line.strip():
                yield number, line, True
            return
        line = data[start:end]
        if line.strip():
            yield number, line, False
        start = end + 1


def _text_of(content: Any, *kinds: str) -> str:
    """The texts of a message's content parts of the given types, joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") in kinds)


def injected(text: str) -> bool:
    """True for a user message Codex wrote itself: a ``<tag>...</tag>`` block such as
    ``<environment_context>`` or the ``# AGENTS.md instructions`` it sends as the user."""
    stripped = text.strip()
    return (stripped.startswith("<") and stripped.endswith(">")) or stripped.startswith("# AGENTS.md instructions")


def _output_items(output: Any) -> list[dict[str, Any]]:
    """An output as content items: a string is one text item; a list is kept; an object with
    ``content`` (an older payload) is read through its ``content``."""
    if isinstance(output, str):
        return [{"type": "input_text", "text": output}]
    if isinstance(output, dict):
        inner = output.get("content_items", output.get("content", ""))
        return _output_items(inner)
    if isinstance(output, list):
        return [item if isinstance(item, dict) else {"type": "input_text", "text": str(item)} for item in output]
    return [{"type": "input_text", "text": json.dumps(output)}]


def parse_result(output: Any, time: str, line: int) -> CallResult:
    """Read an exec or wait output (see the module docstring) into a :class:`CallResult`: the
    header, error item and truncation warning are read by :func:`codemode.model_view.parse`;
    an output it cannot read is ``unknown``, its items kept as they are."""
    items = _output_items(output)
    parsed = model_view.parse(items)
    if parsed is None:
        return CallResult("unknown", None, None, tuple(items), None, None, output, time, line)
    header = parsed.header
    return CallResult(
        header.name,
        header.cell_id,
        float(header.wall_time),
        tuple(parsed.items),
        parsed.truncation,
        parsed.error_text,
        output,
        time,
        line,
    )


def _optional_int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def parse_wait_arguments(arguments: str) -> WaitArguments:
    """A ``wait`` call's JSON ``arguments`` (unusable text gives no cell id)."""
    try:
        parsed = json.loads(arguments)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return WaitArguments(None, None, None, False)
    cell = parsed.get("cell_id")
    return WaitArguments(
        cell_id=None if cell is None else str(cell),
        yield_time_ms=_optional_int(parsed.get("yield_time_ms")),
        max_tokens=_optional_int(parsed.get("max_tokens")),
        terminate=parsed.get("terminate") is True,
    )


@dataclass
class _Reader:
    """The state of one pass over a file (see :func:`read_session`)."""

    path: Path
    meta: SessionMeta | None = None
    pending: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """Raw records in order: ``(kind, fields)``; calls get their results in :meth:`finish`."""
    results: dict[str, tuple[Any, str, int]] = field(default_factory=dict)
    other_outputs: dict[str, Any] = field(default_factory=dict)
    problems: list[LineProblem] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    process: int = 0
    turns: int = 0
    turn_id: str | None = None
    open_calls: list[str] = field(default_factory=list)
    exec_calls: set[str] = field(default_factory=set)
    wait_calls: set[str] = field(default_factory=set)
    seen_settings: bool = False

    def skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def line(self, number: int, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        if "payload" not in obj and (kind in KNOWN_ITEM_TYPES or obj.get("record_type") == "state"):
            # the first layout: a response item on a line of its own, no envelope, no timestamp
            if kind in KNOWN_ITEM_TYPES:
                self.response_item(number, obj, "")
            return
        payload = obj.get("payload")
        time = str(obj.get("timestamp", ""))
        if not isinstance(payload, dict):
            payload = {}
        if kind == "session_meta":
            if self.meta is None:
                meta = payload.get("meta", payload)  # older files nest it under "meta"
                self.meta = SessionMeta(
                    session_id=str(meta.get("id") or meta.get("session_id") or ""),
                    codex_version=str(meta.get("cli_version", "")),
                    cwd=str(meta.get("cwd", "")),
                    started_at=str(meta.get("timestamp") or time),
                    originator=str(meta.get("originator", "")),
                )
                self._new_process(time, number)
            return
        if kind == "response_item":
            self.response_item(number, payload, time)
        elif kind == "event_msg":
            self.event(number, payload, time)
        elif kind not in KNOWN_LINE_TYPES:
            self.skip(str(kind))

    def _new_process(self, time: str, number: int) -> None:
        self.process += 1
        self.pending.append(("process", {"index": self.process, "time": time, "line": number}))

    def _turn(self, payload: dict[str, Any]) -> str | None:
        passthrough = payload.get("internal_chat_message_metadata_passthrough")
        if isinstance(passthrough, dict) and passthrough.get("turn_id"):
            return str(passthrough["turn_id"])
        return self.turn_id

    def response_item(self, number: int, payload: dict[str, Any], time: str) -> None:
        kind = payload.get("type")
        turn_id = self._turn(payload)
        common = {"turn_id": turn_id, "time": time, "line": number}
        if kind == "message":
            role = payload.get("role")
            if role == "user":
                text = _text_of(payload.get("content"), "input_text", "text")
                if text and not injected(text):
                    self.pending.append(("prompt", {"text": text, **common}))
            elif role == "assistant":
                text = _text_of(payload.get("content"), "output_text", "text")
                phase = payload.get("phase")
                self.pending.append(("message", {"text": text, "phase": phase, **common}))
        elif kind == "reasoning":
            summary = payload.get("summary")
            texts = (
                [str(s.get("text", "")) for s in summary if isinstance(s, dict)] if isinstance(summary, list) else []
            )
            if any(texts):
                self.pending.append(("reasoning", {"text": "\n\n".join(t for t in texts if t), **common}))
        elif kind in ("custom_tool_call", "function_call"):
            call_id = str(payload.get("call_id", ""))
            name = payload.get("name")
            raw = payload.get("input") if kind == "custom_tool_call" else payload.get("arguments")
            text = raw if isinstance(raw, str) else json.dumps(raw)
            if kind == "custom_tool_call" and name == "exec":
                self.exec_calls.add(call_id)
                self.open_calls.append(call_id)
                self.pending.append(("exec", {"call_id": call_id, "source": text, **common}))
            elif kind == "function_call" and name == "wait":
                self.wait_calls.add(call_id)
                self.open_calls.append(call_id)
                self.pending.append(("wait", {"call_id": call_id, "arguments": text, **common}))
            else:
                self.pending.append(("tool", {"name": str(name), "call_id": call_id, "arguments": text, **common}))
        elif kind in ("custom_tool_call_output", "function_call_output"):
            call_id = str(payload.get("call_id", ""))
            output = payload.get("output")
            if kind == "custom_tool_call_output" and payload.get("name") == "exec" and call_id in self.exec_calls:
                text = output if isinstance(output, str) else json.dumps(output)
                self.pending.append(("notify", {"call_id": call_id, "text": text, **common}))
            elif call_id in self.exec_calls or call_id in self.wait_calls:
                if call_id not in self.results:
                    self.results[call_id] = (output, time, number)
                if call_id in self.open_calls:
                    self.open_calls.remove(call_id)
            else:
                self.other_outputs.setdefault(call_id, output)
        elif kind not in KNOWN_ITEM_TYPES:
            self.skip(f"response_item/{kind}")

    def event(self, number: int, payload: dict[str, Any], time: str) -> None:
        kind = payload.get("type")
        if kind == "task_started":
            self.turns += 1
            self.turn_id = str(payload.get("turn_id", ""))
            self.pending.append(("turn", {"turn_id": self.turn_id, "index": self.turns, "time": time, "line": number}))
        elif kind == "thread_settings_applied":
            if self.seen_settings:
                self._new_process(time, number)
            self.seen_settings = True
        elif kind == "item_completed":
            item = payload.get("item")
            if not isinstance(item, dict) or item.get("type") in MESSAGE_TYPES:
                return
            self.pending.append(
                (
                    "nested",
                    {
                        "kind": str(item.get("type")),
                        "item_id": str(item.get("id", "")),
                        "item": item,
                        "turn_id": payload.get("turn_id") or self.turn_id,
                        "started_at_ms": _optional_int(payload.get("started_at_ms")),
                        "completed_at_ms": _optional_int(payload.get("completed_at_ms")),
                        "pending_call_id": self.open_calls[-1] if self.open_calls else None,
                        "time": time,
                        "line": number,
                    },
                )
            )

    def finish(self, lines: int) -> Session:
        assert self.meta is not None
        records: list[Record] = []
        cells: dict[int, dict[str, str]] = {}
        counters: dict[int, int] = {}
        process = 0
        for kind, f in self.pending:
            if kind == "process":
                process = f["index"]
                cells.setdefault(process, {})
                records.append(Process(**f))
            elif kind == "turn":
                records.append(Turn(**f))
            elif kind == "prompt":
                records.append(UserPrompt(**f))
            elif kind == "message":
                records.append(ModelMessage(**f))
            elif kind == "reasoning":
                records.append(Reasoning(**f))
            elif kind == "notify":
                records.append(Notify(**f))
            elif kind == "nested":
                records.append(NestedToolCall(**f))
            elif kind == "tool":
                records.append(OtherToolCall(output=self.other_outputs.get(f["call_id"]), **f))
            elif kind == "exec":
                result = self._result(f["call_id"])
                expected = counters.get(process, 0) + 1
                seen = result.cell_id if result is not None else None
                if seen is not None and seen.isdigit() and int(seen) < expected and cells.get(process):
                    # ids restarted without a process line: a new process began here
                    process += 1
                    cells.setdefault(process, {})
                    records.append(Process(process, f["time"], f["line"]))
                    expected = 1
                cell_id = seen if seen is not None else str(expected)
                if cell_id.isdigit():
                    counters[process] = int(cell_id)
                cells.setdefault(process, {})[cell_id] = f["call_id"]
                records.append(ExecCall(cell_id=cell_id, process=process, result=result, **f))
            elif kind == "wait":
                parsed = parse_wait_arguments(f["arguments"])
                target = cells.get(process, {}).get(parsed.cell_id) if parsed.cell_id is not None else None
                records.append(
                    WaitCall(parsed=parsed, target=target, process=process, result=self._result(f["call_id"]), **f)
                )
        return Session(
            path=self.path,
            meta=self.meta,
            records=tuple(records),
            cells={k: dict(v) for k, v in cells.items()},
            problems=tuple(self.problems),
            skipped=dict(self.skipped),
            lines=lines,
        )

    def _result(self, call_id: str) -> CallResult | None:
        found = self.results.get(call_id)
        return None if found is None else parse_result(*found)


def legacy_meta(obj: dict[str, Any]) -> bool:
    """True for the first line of Codex's first file layout (2025): the session's ``id`` and
    ``timestamp`` (and ``instructions``) with no ``type``; its other lines are bare response
    items, between which ``{"record_type": "state"}`` lines may stand."""
    return "type" not in obj and "id" in obj and "timestamp" in obj


def read_session(path: str | Path) -> Session:
    """Read the Codex session file at ``path`` (see the module docstring).

    Raises :class:`NotASessionError` for a file that is empty or whose first readable line is
    not a ``session_meta``, and ``OSError`` when it cannot be read.
    """
    path = Path(path)
    data = path.read_bytes()
    reader = _Reader(path)
    count = 0
    for number, raw, last in _lines(data):
        count = number
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            obj = exc
        if not isinstance(obj, dict):
            if reader.meta is None:
                raise NotASessionError(
                    f"{path} is not a Codex session file: line {number} is not a JSON object "
                    "(a session file holds one JSON object a line, a session_meta first)."
                )
            if last:
                problem = "the file ends inside this line (cut short, perhaps still being written)"
            elif isinstance(obj, orjson.JSONDecodeError) and obj.pos >= len(raw.rstrip()):
                problem = "not valid JSON (it ends too early)"
            elif isinstance(obj, orjson.JSONDecodeError):
                problem = f"not valid JSON (at character {obj.pos + 1})"
            else:
                problem = "a JSON value that is not an object"
            reader.problems.append(LineProblem(number, problem))
            continue
        if reader.meta is None and legacy_meta(obj):
            obj = {"type": "session_meta", "timestamp": obj["timestamp"], "payload": obj}
        if reader.meta is None and obj.get("type") != "session_meta":
            raise NotASessionError(
                f"{path} is not a Codex session file: its first record is not a session_meta "
                f"(found type {obj.get('type')!r})."
            )
        reader.line(number, obj)
    if reader.meta is None:
        raise NotASessionError(f"{path} is not a Codex session file: it is empty.")
    return reader.finish(count)


def session_warnings(session: Session) -> list[str]:
    """The warnings to print for a session that converts (unreadable lines, skipped types)."""
    lines = [f"warning: {session.path}: line {p.line} was skipped: {p.problem}." for p in session.problems]
    if session.skipped:
        counts = ", ".join(f"{n} of type {kind}" for kind, n in sorted(session.skipped.items()))
        lines.append(f"warning: {session.path}: skipped lines of a type replay does not know: {counts}.")
    return lines
