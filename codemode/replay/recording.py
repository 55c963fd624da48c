"""The recording file: nested tool calls as JSON Lines, one call a line.

A recording is UTF-8 text, one JSON object a line, each line ended by ``\\n``:

- line 1, the header: ``{"codemode_recording": 1, "created": ISO-8601 UTC time,
  "codemode": version}``; ``codemode_recording`` is the format's version (only 1 exists);
- ``{"type": "tools", "tools": [DECLARATION, ...]}``: the tools the session offered when a
  call was made (written before the first call and again whenever the list changed); a
  DECLARATION is ``{"name", "namespace", "namespace_description", "description", "kind",
  "input_schema", "output_schema", "supports_parallel", "any_input", "origin"}``, what a replay
  needs to offer the same ``tools.NAME`` with the same TypeScript declaration;
- ``{"type": "call", "seq", "tool", "arguments", "outcome", "result" | "error", "cell",
  "call_id", "started", "duration_ms"}``: one call that reached its tool. ``seq`` (1, 2, ...)
  is the order in which the calls reached their tools (a line is written when its call
  ends, so lines of parallel calls may come out of ``seq`` order); ``tool`` the code-mode name
  (``exec_command``, ``mcp__SERVER__TOOL``); ``arguments`` the validated arguments;
  ``outcome`` ``"completed"`` with ``result`` (the JSON value the tool returned, an MCP
  ``isError`` result included) or ``"failed"`` with ``error`` (the text the cell's promise was
  rejected with); ``output`` (only when the tool printed) the ``["stdout" | "stderr", text]``
  pieces it printed while it ran, in order; ``cell`` and ``call_id`` the public cell id and ``tool-N`` id; ``started``
  an ISO-8601 UTC time; ``duration_ms`` the handler's time in milliseconds.

Calls that never reached a tool (an unknown tool, arguments the schema refused) are not
recorded: a replay refuses them the same way. Calls aborted by a cancellation are not
recorded either. A recording holds whatever the tools returned, secrets included.

:func:`read_recording` raises :class:`RecordingError` naming the first bad line;
:class:`RecordingWriter` appends each line with one ``write`` to a file opened with
``O_APPEND``; :func:`write_recording` writes a whole recording (the seeding entry point).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from codemode.atomic_file import write_atomically

FORMAT_VERSION = 1
"""The value of the header's ``codemode_recording``."""

DECLARATION_KEYS = (
    "name",
    "namespace",
    "namespace_description",
    "description",
    "kind",
    "input_schema",
    "output_schema",
    "supports_parallel",
    "any_input",
    "origin",
)
"""The keys of a tool declaration in a ``tools`` line."""


class RecordingError(ValueError):
    """A recording that cannot be read; ``str(e)`` is ``"<path>: line <n>: <problem>"``."""


@dataclass
class RecordedCall:
    """One ``call`` line. ``line`` is its line number in the file (1-based)."""

    seq: int
    tool: str
    arguments: Any
    outcome: str
    result: Any = None
    error: str | None = None
    cell: str | None = None
    call_id: str | None = None
    started: str | None = None
    duration_ms: float | None = None
    output: list[list[str]] | None = None
    line: int = 0


@dataclass
class Recording:
    """A read recording: its ``tools`` declarations (by code-mode name, the last line's wins),
    and its ``calls`` sorted by ``seq``."""

    path: Path
    created: str | None = None
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[RecordedCall] = field(default_factory=list)


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON: keys sorted, no blanks, non-ASCII kept. Two argument
    objects match in a replay when these texts are equal."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def now_iso() -> str:
    """The current UTC time as ``2026-12-07T20:11:01.123Z``."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def header_line() -> dict[str, Any]:
    """A new recording's header object."""
    try:
        version = metadata.version("codemode")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return {"codemode_recording": FORMAT_VERSION, "created": now_iso(), "codemode": version}


def encode_line(value: dict[str, Any]) -> bytes:
    """One line of the file: compact JSON, UTF-8, ``\\n`` at its end (a JSON text never holds a
    raw newline, so a line is one object). A text holding a lone surrogate (which a JavaScript
    string may hold, and UTF-8 cannot) makes the line all ASCII, the surrogate escaped as
    ``\\udXXX``, which reads back as the same string."""
    try:
        return (json.dumps(value, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(value, separators=(",", ":")) + "\n").encode("ascii")


def call_line(call: RecordedCall) -> dict[str, Any]:
    """The ``call`` line of ``call``."""
    line: dict[str, Any] = {"type": "call", "seq": call.seq, "tool": call.tool, "arguments": call.arguments}
    line["outcome"] = call.outcome
    if call.outcome == "completed":
        line["result"] = call.result
    else:
        line["error"] = call.error
    for key in ("output", "cell", "call_id", "started", "duration_ms"):
        value = getattr(call, key)
        if value is not None:
            line[key] = value
    return line


def read_recording(path: Path) -> Recording:
    """Read the recording at ``path``. Raises :class:`RecordingError` for a missing or
    unreadable file, a first line that is not a version-1 header, and the first line that is
    not JSON, not an object, of an unknown ``type`` or missing a field; a last line without its
    newline that is not JSON is named as cut short (a run stopped while writing it)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RecordingError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    recording = Recording(path)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if not lines:
        raise RecordingError(f"{path}: line 1: the file is empty; a recording starts with its header line")
    for number, raw in enumerate(lines, 1):
        cut = number == len(lines) and not data.endswith(b"\n")
        value = _parse(path, number, raw, cut)
        if number == 1:
            recording.created = _header(path, value)
        else:
            _entry(path, number, value, recording)
    recording.calls.sort(key=lambda call: call.seq)
    return recording


def _parse(path: Path, number: int, raw: bytes, cut: bool) -> dict[str, Any]:
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        if cut:
            raise RecordingError(
                f"{path}: line {number}: is cut short (no newline ends it and it is not complete JSON): the run "
                "that wrote it stopped while writing; delete that line to replay the rest"
            ) from None
        raise RecordingError(f"{path}: line {number}: is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise RecordingError(f"{path}: line {number}: is not a JSON object")
    return value


def _header(path: Path, value: dict[str, Any]) -> str | None:
    version = value.get("codemode_recording")
    if version is None:
        raise RecordingError(
            f'{path}: line 1: is not a recording header (a header is {{"codemode_recording": {FORMAT_VERSION}, ...}})'
        )
    if version != FORMAT_VERSION:
        raise RecordingError(
            f"{path}: line 1: is a recording of format {version!r}; this codemode reads format {FORMAT_VERSION}"
        )
    created = value.get("created")
    return created if isinstance(created, str) else None


def _entry(path: Path, number: int, value: dict[str, Any], recording: Recording) -> None:
    kind = value.get("type")
    where = f"{path}: line {number}"
    if kind == "tools":
        tools = value.get("tools")
        if not isinstance(tools, list) or not all(
            isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools
        ):
            raise RecordingError(f"{where}: a tools line needs `tools`, a list of objects with a string `name`")
        from codemode.wire.tool_names import code_mode_name

        for tool in tools:
            recording.tools[code_mode_name(tool["name"], tool.get("namespace"))] = tool
        return
    if kind != "call":
        raise RecordingError(f'{where}: has type {kind!r}; a line after the header is a "tools" or a "call" line')
    seq, tool, outcome = value.get("seq"), value.get("tool"), value.get("outcome")
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise RecordingError(f"{where}: a call needs `seq`, a whole number from 1")
    if not isinstance(tool, str) or not tool:
        raise RecordingError(f"{where}: a call needs `tool`, the tool's code-mode name")
    if "arguments" not in value:
        raise RecordingError(f"{where}: a call needs `arguments`")
    if outcome == "completed":
        if "result" not in value:
            raise RecordingError(f'{where}: a call of outcome "completed" needs `result`')
    elif outcome == "failed":
        if not isinstance(value.get("error"), str):
            raise RecordingError(f'{where}: a call of outcome "failed" needs `error`, a string')
    else:
        raise RecordingError(f'{where}: a call needs `outcome`, "completed" or "failed" (not {outcome!r})')
    duration = value.get("duration_ms")
    output = value.get("output")
    if output is not None and not (
        isinstance(output, list)
        and all(isinstance(o, list) and len(o) == 2 and all(isinstance(t, str) for t in o) for o in output)
    ):
        raise RecordingError(f'{where}: a call\'s `output` is a list of ["stdout" or "stderr", text] pairs')
    recording.calls.append(
        RecordedCall(
            seq,
            tool,
            value["arguments"],
            outcome,
            value.get("result"),
            value.get("error"),
            _text(value.get("cell")),
            _text(value.get("call_id")),
            _text(value.get("started")),
            float(duration) if isinstance(duration, int | float) and not isinstance(duration, bool) else None,
            output,
            number,
        )
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class RecordingWriter:
    """Writes a recording as calls end. :meth:`start` replaces the file with a new one that
    holds only the header (written beside it, then renamed over it: a reader never sees half
    a header); each later line is appended with one ``write`` on a descriptor opened with
    ``O_APPEND``, so a line is never interleaved with another writer's and a stop between
    lines leaves a readable file (a stop inside a write leaves a last line that
    :func:`read_recording` names as cut short)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def start(self) -> None:
        """Replace the file at :attr:`path` with a new recording's header. Raises ``OSError``."""
        write_atomically(self.path, encode_line(header_line()).decode("utf-8"))
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)

    def append(self, line: dict[str, Any]) -> None:
        """Append one line. Raises ``OSError`` (a full disk) or ``RuntimeError`` before
        :meth:`start`."""
        if self._fd is None:
            raise RuntimeError("the recording was not started")
        data = encode_line(line)
        written = os.write(self._fd, data)
        while written < len(data):  # a short write (a signal): the rest follows at once
            written += os.write(self._fd, data[written:])

    def close(self) -> None:
        """Close the file (later appends raise)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)


def write_recording(path: Path, calls: list[tuple[str, Any, Any]], tools: list[dict[str, Any]] | None = None) -> None:
    """Write a whole recording at ``path`` (replacing it): the seeding entry point, for a
    converter that found nested calls' results elsewhere (a Codex session's ``item_completed``
    lines).

    ``calls``: ``(tool, arguments, answer)`` in call order; ``tool`` is the code-mode name
    (``exec_command``, ``mcp__SERVER__TOOL``), ``answer`` the JSON result, or a
    :class:`SeedError` for a call that failed (its ``str`` is the error text). ``tools``: optional
    declarations (see the module docstring); without them a replay offers each called tool with
    no input schema. Raises ``OSError``.
    """
    writer = RecordingWriter(path)
    writer.start()
    try:
        if tools:
            writer.append({"type": "tools", "tools": tools})
        for seq, (tool, arguments, answer) in enumerate(calls, 1):
            if isinstance(answer, SeedError):
                call = RecordedCall(seq, tool, arguments, "failed", error=str(answer))
            else:
                call = RecordedCall(seq, tool, arguments, "completed", result=answer)
            writer.append(call_line(call))
    finally:
        writer.close()


class SeedError(Exception):
    """The answer of a seeded call that failed (:func:`write_recording`); ``str`` is its text."""
