"""Parse the kernel's magics: a cell whose first line starts with ``%``.

Grammar (exactly one line; further lines are rejected so that code typed below a magic is
never silently dropped)::

    %wait [CELL_ID] [--yield-time-ms N] [--max-tokens N]
    %terminate [CELL_ID]
    %cells
    %tools [FILTER]
    %config [KEY=VALUE ...]
    %recording
    %finished

:func:`parse_magic` returns a :class:`Magic` or raises :class:`MagicError` whose text is a
complete sentence for the user.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

MAGICS = {
    "wait": "%wait [CELL_ID] [--yield-time-ms N] [--max-tokens N]: show the output a running "
    "cell produced since it was last shown, waiting up to N ms for more",
    "terminate": "%terminate [CELL_ID]: stop a running cell and show its undelivered output",
    "cells": "%cells: list the cells that are still running or have undelivered output",
    "tools": "%tools [FILTER]: list the tools with their TypeScript declarations",
    "config": "%config [KEY=VALUE ...]: show the session defaults, or change "
    "yield_time_ms / max_output_tokens / engine / profile for later cells",
    "recording": "%recording: show whether tool calls are recorded or replayed, the recording's file and its counts",
    "finished": "%finished: an error naming each yielded cell still running (the last cell of a notebook run headless)",
}
"""Magic name -> one-line usage (used for errors, completion and inspection)."""


class MagicError(ValueError):
    """A magic line could not be parsed; ``str(e)`` tells the user what to fix."""


@dataclass
class Magic:
    """A parsed magic. Fields not used by a magic keep their defaults.

    ``cell_id`` is None when the user named no cell ("the most recent live cell");
    ``yield_time_ms`` / ``max_tokens`` are None when not given; ``assignments`` holds the
    ``KEY=VALUE`` pairs of ``%config`` (values still strings).
    """

    name: str
    cell_id: str | None = None
    yield_time_ms: int | None = None
    max_tokens: int | None = None
    filter: str | None = None
    assignments: dict[str, str] = field(default_factory=dict)


def is_magic(code: str) -> bool:
    """True when the cell is a magic: its first line starts with ``%`` (after blanks)."""
    return code.lstrip(" \t\r\n").startswith("%")


MAX_SAFE_INTEGER = 2**53 - 1
"""Largest accepted time or token count, as for the ``// @exec:`` pragma (JavaScript's ``Number.MAX_SAFE_INTEGER``)."""


def non_negative(option: str, value: str) -> int:
    """``value`` as a whole number of milliseconds or tokens for ``option``.

    Raises :class:`MagicError` unless it is ASCII digits (a leading ``+`` is not accepted) and
    at most :data:`MAX_SAFE_INTEGER`, the pragma's limit.
    """
    number = int(value) if value.isascii() and value.isdigit() else -1
    if not 0 <= number <= MAX_SAFE_INTEGER:
        unit = "milliseconds" if "ms" in option else "tokens"
        raise MagicError(
            f"The value of {option} must be a whole number of {unit} from 0 to {MAX_SAFE_INTEGER}; got {value!r}."
        )
    return number


def _cell_id(name: str, arg: str) -> str:
    """``arg`` as the cell id of ``%name``; raises :class:`MagicError` for an empty one."""
    if not arg.strip():
        raise MagicError(
            f"A cell id cannot be empty; %{name} takes an id as the status display or %cells shows it, "
            f"for example %{name} 3."
        )
    return arg


def _parse_wait(args: list[str]) -> Magic:
    magic = Magic("wait")
    it = iter(args)
    for arg in it:
        key, eq, inline = arg.partition("=")
        if key in ("--yield-time-ms", "--max-tokens"):
            value = inline if eq else next(it, None)
            if value is None:
                raise MagicError(f"The option {key} needs a value, for example {key} 5000.")
            if key == "--yield-time-ms":
                magic.yield_time_ms = non_negative(key, value)
            else:
                magic.max_tokens = non_negative(key, value)
        elif arg.startswith("--"):
            raise MagicError(f"%wait does not know the option {arg}; usage: {MAGICS['wait'].split(':')[0]}.")
        elif magic.cell_id is None:
            magic.cell_id = _cell_id("wait", arg)
        else:
            raise MagicError(f"%wait takes at most one cell id; got {magic.cell_id!r} and {arg!r}.")
    return magic


def parse_magic(code: str) -> Magic:
    """Parse a magic cell (see the module docstring for the grammar).

    Raises :class:`MagicError` for an unknown magic, bad options, or extra lines.
    """
    text = code.strip()
    first, _, rest = text.partition("\n")
    if rest.strip():
        raise MagicError(
            "A magic cell holds one line only; put JavaScript in its own cell "
            "(a cell whose first line starts with % is a magic)."
        )
    try:
        words = shlex.split(first[1:])
    except ValueError as exc:
        raise MagicError(f"The magic line could not be split into words: {exc}.") from exc
    if not words:
        raise MagicError(f"A magic needs a name after %; the magics are: {', '.join('%' + m for m in MAGICS)}.")
    name, args = words[0], words[1:]
    if name not in MAGICS:
        raise MagicError(f"Unknown magic %{name}; the magics are: {', '.join('%' + m for m in MAGICS)}.")
    if name == "wait":
        return _parse_wait(args)
    if name == "terminate":
        if len(args) > 1:
            raise MagicError("%terminate takes at most one cell id.")
        return Magic("terminate", cell_id=_cell_id("terminate", args[0]) if args else None)
    if name == "cells":
        if args:
            raise MagicError("%cells takes no arguments.")
        return Magic("cells")
    if name == "tools":
        return Magic("tools", filter=" ".join(args) or None)
    if name == "finished":
        if args:
            raise MagicError("%finished takes no arguments.")
        return Magic("finished")
    if name == "recording":
        if args:
            raise MagicError("%recording takes no arguments; set the mode in codemode.toml's [recording] section.")
        return Magic("recording")
    assignments: dict[str, str] = {}
    for arg in args:
        key, eq, value = arg.partition("=")
        if not eq or not key:
            raise MagicError(f"%config expects KEY=VALUE pairs such as yield_time_ms=2000; got {arg!r}.")
        assignments[key] = value
    return Magic("config", assignments=assignments)
