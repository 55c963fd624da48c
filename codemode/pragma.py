"""Parsing of the optional first-line ``// @exec: {...}`` pragma of a cell.

Follows Codex's ``parse_exec_source``: the error texts are Codex's exact strings, so a user
(or a model) sees the same message as in Codex. The runtime host never interprets the pragma
(Codex's host runs the source it is given as it is), so the client must strip it before
sending the source.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

PRAGMA_PREFIX = "// @exec:"
MAX_SAFE_INTEGER = 2**53 - 1
"""JavaScript's ``Number.MAX_SAFE_INTEGER``: the largest value a pragma field may hold."""

_FIELDS = ("yield_time_ms", "max_output_tokens")
SERDE_RECURSION_LIMIT = 128
"""serde_json's nesting limit (``Deserializer::remaining_depth``, 128): the 128th array or
object opened inside another fails with ``recursion limit exceeded``. Codex parses the pragma
with ``serde_json::from_str``; Python's ``json`` would instead recurse until ``RecursionError``
(a 100 000-deep directive)."""
_CLOSERS = {"[": "]", "{": "}"}

EMPTY_SOURCE_MESSAGE = (
    "exec expects raw JavaScript source text (non-empty). Provide JS only, optionally with "
    'first-line `// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}`.'
)
MISSING_SOURCE_MESSAGE = "exec pragma must be followed by JavaScript source on subsequent lines"
INVALID_JSON_MESSAGE = "exec pragma must be valid JSON with supported fields `yield_time_ms` and `max_output_tokens`"
NOT_OBJECT_MESSAGE = "exec pragma must be a JSON object with supported fields `yield_time_ms` and `max_output_tokens`"


class PragmaError(ValueError):
    """The cell's input or its pragma is invalid; ``str(error)`` is Codex's exact text.

    No cell is created for such input.
    """


@dataclass
class ExecSource:
    """A parsed cell: the JavaScript to run and the pragma's settings.

    ``source`` is the text to execute (the pragma line removed, so stack-trace line numbers
    move up by one). ``yield_time_ms`` / ``max_output_tokens`` are ``None`` when the pragma is
    absent, omits the field or sets it to JSON ``null`` ("use the default").
    """

    source: str
    yield_time_ms: int | None = None
    max_output_tokens: int | None = None


def _serde_type_error(value: Any) -> str:
    """Describe ``value`` the way serde_json reports a non-``u64`` value."""
    if isinstance(value, bool):
        return f"invalid type: boolean `{str(value).lower()}`, expected u64"
    if isinstance(value, int):
        return f"invalid value: integer `{value}`, expected u64"
    if isinstance(value, float):
        return f"invalid type: floating point `{value!r}`, expected u64"
    if isinstance(value, str):
        return f"invalid type: string {json.dumps(value, ensure_ascii=False)}, expected u64"
    if isinstance(value, list):
        return "invalid type: sequence, expected u64"
    return "invalid type: map, expected u64"


def _check_field(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PragmaError(
            "exec pragma fields `yield_time_ms` and `max_output_tokens` must be non-negative "
            f"safe integers: {_serde_type_error(value)}"
        )
    if value > MAX_SAFE_INTEGER:
        raise PragmaError(f"exec pragma field `{name}` must be a non-negative safe integer")
    return value


def _check_depth(directive: str) -> None:
    """Raise ``ValueError`` with serde_json's text when ``directive`` (one line) nests arrays
    and objects :data:`SERDE_RECURSION_LIMIT` deep: ``recursion limit exceeded at line 1 column
    N``, N the 1-based column of the bracket that reaches the limit. Brackets inside strings do
    not count. A syntax error before that bracket is reported as ``json`` words it, as serde
    reports the first error it meets: the text up to the bracket, with a value in its place and
    the open brackets closed, must parse."""
    depth = 0
    opened: list[str] = []
    in_string = escaped = False
    for index, char in enumerate(directive):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in _CLOSERS:
            depth += 1
            if depth == SERDE_RECURSION_LIMIT:
                closed = directive[:index] + "0" + "".join(_CLOSERS[c] for c in reversed(opened))
                json.loads(closed)  # a syntax error before the bracket comes first
                raise ValueError(f"recursion limit exceeded at line 1 column {index + 1}")
            opened.append(char)
        elif char in "]}" and opened:
            depth -= 1
            opened.pop()


def parse_exec_source(text: str) -> ExecSource:
    """Split a cell into its optional pragma and its JavaScript source.

    ``text`` is the raw cell input. Returns an :class:`ExecSource`. A first line that, after
    leading whitespace, starts with exactly ``// @exec:`` is the pragma; anything else
    (``//@exec:`` included) is ordinary code. Raises :class:`PragmaError` with Codex's texts
    for empty input, a pragma with no code after it, a directive that is not a JSON object,
    invalid JSON (nested :data:`SERDE_RECURSION_LIMIT` deep included, as serde_json refuses it),
    an unknown key, or a value that is not a non-negative safe integer (above 2**53 - 1
    included). JSON ``null`` means "use the default".
    """
    if not text.strip():
        raise PragmaError(EMPTY_SOURCE_MESSAGE)
    first_line, newline, rest = text.partition("\n")
    stripped = first_line.lstrip()
    if not stripped.startswith(PRAGMA_PREFIX):
        return ExecSource(source=text)
    if not newline or not rest.strip():
        raise PragmaError(MISSING_SOURCE_MESSAGE)
    directive = stripped[len(PRAGMA_PREFIX) :].strip()
    if not directive:
        raise PragmaError(NOT_OBJECT_MESSAGE)
    try:
        _check_depth(directive)
        parsed = json.loads(directive)
    except ValueError as exc:
        raise PragmaError(f"{INVALID_JSON_MESSAGE}: {exc}") from None
    if not isinstance(parsed, dict):
        raise PragmaError(NOT_OBJECT_MESSAGE)
    for key in parsed:
        if key not in _FIELDS:
            raise PragmaError(f"exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `{key}`")
    return ExecSource(
        source=rest,
        yield_time_ms=_check_field("yield_time_ms", parsed.get("yield_time_ms")),
        max_output_tokens=_check_field("max_output_tokens", parsed.get("max_output_tokens")),
    )
