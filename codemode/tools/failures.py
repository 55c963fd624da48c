"""What a failed tool call says: one sentence for any exception, and results checked for JSON.

Tool code (a Python tool, the MCP SDK under an MCP tool, a built-in) may raise anything,
``BaseException`` subclasses included (``SystemExit``, ``KeyboardInterrupt``,
``GeneratorExit``), an exception whose ``str()`` itself raises, or return a value that JSON
cannot hold. The dispatcher turns each into the error of that one call
(:func:`failure_text`, :func:`json_problem`); nothing of it reaches the event loop.

Field paths are written as a JavaScript caller spells them (:func:`field_path`):
``items[2].name``, ``headers["content-type"]``.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Iterable
from typing import Any, TypeVar

from codemode.errors import ToolCallError
from codemode.wire.tool_names import is_identifier

T = TypeVar("T")

MAX_JSON_DEPTH = 500
"""Deepest nesting of arrays and objects a tool result may have. The reply to the host is
encoded by ``json.dumps``, which fails past the interpreter's recursion limit (1000 frames)."""


def field_path(parts: Iterable[str | int]) -> str:
    """A path into JSON as JavaScript spells it: ``("items", 2, "name")`` -> ``items[2].name``;
    keys that are not identifiers are quoted (``a["b c"]``); ``()`` -> ``""``."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif is_identifier(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part, ensure_ascii=False)}]"
    return text


def exception_text(exc: BaseException) -> str:
    """``str(exc)`` stripped; when ``str()`` itself raises, a sentence saying so instead."""
    try:
        return str(exc).strip()
    except BaseException as inner:  # noqa: BLE001 - a broken __str__ must not break the report
        return f"(its message cannot be shown: str() raised {type(inner).__name__})"


def failure_text(tool: str, exc: BaseException) -> str:
    """The error of a call to ``tool`` (its code-mode name) that raised ``exc``.

    A :class:`~codemode.errors.ToolCallError` is the tool's own sentence and is returned as it
    is; any other exception gives ``tool `<tool>` raised <Type>: <message>`` (``.`` instead of
    ``: <message>`` when the message is empty). A ``CancelledError`` here is one the tool
    raised while its call was not cancelled, and says so. A ``StopIteration`` that left a
    coroutine, which Python turned into ``RuntimeError: coroutine raised StopIteration``
    (PEP 479), is reported as the ``StopIteration`` the tool raised.
    """
    exc = _raised(exc)
    detail = exception_text(exc)
    if isinstance(exc, ToolCallError) and detail:
        return detail
    kind = type(exc).__name__
    if isinstance(exc, asyncio.CancelledError):
        return f"tool `{tool}` raised CancelledError although its call was not cancelled."
    return f"tool `{tool}` raised {kind}: {detail}" if detail else f"tool `{tool}` raised {kind}."


def _raised(exc: BaseException) -> BaseException:
    """The exception tool code raised behind ``exc``: the ``StopIteration`` that PEP 479 turned
    into ``RuntimeError`` when it left a coroutine or generator, otherwise ``exc`` itself."""
    cause = exc.__cause__
    if type(exc) is RuntimeError and isinstance(cause, StopIteration):
        if exception_text(exc) in ("coroutine raised StopIteration", "generator raised StopIteration"):
            return cause
    return exc


_SCALARS = (str, int, type(None))
_KEY_TYPES = (str, int, float, bool, type(None))
_PLAIN = frozenset({str, int, bool, type(None)})
_STR_ONLY = frozenset({str})


def _plainly_json(value: Any) -> bool:
    """True when ``value`` is JSON made only of the plain types (dicts with string keys,
    lists, tuples, strings, integers, booleans, ``None``, finite floats) at most
    :data:`MAX_JSON_DEPTH` deep. False means "look closer" (:func:`json_problem`), not "not
    JSON": subclasses and non-string keys are left to the closer look. A cycle goes past the
    depth limit. Iterative, with no call per element: about as fast as ``json.dumps``'s C
    encoder is on such values, and independent of the length of the strings."""
    plain = _PLAIN
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        kind = type(item)
        if kind is dict:
            if depth >= MAX_JSON_DEPTH or not {*map(type, item)} <= _STR_ONLY:
                return False
            children: Any = item.values()
        elif kind is list or kind is tuple:
            if depth >= MAX_JSON_DEPTH:
                return False
            children = item
        elif kind in plain:
            continue
        elif kind is float:
            if item - item != 0:  # NaN or infinite
                return False
            continue
        else:
            return False
        for child in children:
            child_kind = type(child)
            if child_kind in plain:
                continue
            if child_kind is float:
                if child - child != 0:
                    return False
                continue
            stack.append((child, depth + 1))
    return True


def _kind(value: Any) -> str:
    if isinstance(value, float):
        return "NaN" if math.isnan(value) else "an infinite number"
    return f"a value of type {type(value).__qualname__}"


def json_problem(value: Any) -> str | None:
    """Why ``value`` cannot be sent as JSON, or ``None`` when it can.

    JSON here is what ``json.dumps(value, allow_nan=False)`` writes: ``None``, booleans,
    integers, finite floats, strings, lists and tuples, dicts whose keys are strings, numbers,
    booleans or ``None``; nested at most :data:`MAX_JSON_DEPTH` deep, containing no cycle.
    The answer names the first offending place: ``items[2].when is a value of type datetime``.
    Time: one visit per container and element (strings are not scanned); values of the plain
    types are checked by :func:`_plainly_json` alone.
    """
    if _plainly_json(value):
        return None
    path: list[str | int] = []
    open_ids: set[int] = set()

    def where() -> str:
        return f"`{field_path(path)}`" if path else "the result"

    def visit(item: Any) -> str | None:
        if isinstance(item, _SCALARS):
            return None
        if isinstance(item, float):
            return None if math.isfinite(item) else f"{where()} is {_kind(item)}"
        if not isinstance(item, (list, tuple, dict)):
            return f"{where()} is {_kind(item)}"
        if id(item) in open_ids:
            return f"{where()} contains itself"
        if len(path) >= MAX_JSON_DEPTH:
            return f"{where()} is nested more than {MAX_JSON_DEPTH} levels deep"
        open_ids.add(id(item))
        try:
            entries = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in entries:
                if isinstance(item, dict):
                    if not isinstance(key, _KEY_TYPES) or (isinstance(key, float) and not math.isfinite(key)):
                        return f"{where()} has a key that is {_kind(key)}"
                    key = key if isinstance(key, str) else json.dumps(key)
                path.append(key)
                problem = visit(child)
                path.pop()
                if problem:
                    return problem
        finally:
            open_ids.discard(id(item))
        return None

    return visit(value)


class ContainedError(Exception):
    """``SystemExit`` or ``KeyboardInterrupt`` (``original``) carried as an ordinary exception
    out of a task: asyncio re-raises those two from a task into the event loop, which would
    end the kernel (every other exception stays the task's)."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(exception_text(original))
        self.original = original


async def contained(awaitable: Awaitable[T]) -> T:
    """Await ``awaitable``; ``SystemExit`` and ``KeyboardInterrupt`` come out as
    :class:`ContainedError`, every other outcome unchanged. Use it as the coroutine of a task
    that runs code we do not control."""
    try:
        return await awaitable
    except (SystemExit, KeyboardInterrupt) as exc:
        raise ContainedError(exc) from exc
