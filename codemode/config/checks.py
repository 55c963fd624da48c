"""Checks and reporting shared by the config sections: each problem becomes one sentence
``"<file>: <key>: <problem>"`` (:class:`Reporter`), values are described in it by kind
(:func:`described`)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

logger = logging.getLogger("codemode.config")


class Reporter:
    def __init__(self, source: str, errors: list[str]) -> None:
        self.source = source
        self.errors = errors

    def __call__(self, key: str, problem: str) -> None:
        message = f"{self.source}: {key}: {problem}"
        logger.warning("config problem: %s", message)
        self.errors.append(message)


def type_name(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def described(value: Any, kinds: tuple[type, ...] = ()) -> str:
    """``value`` for a sentence after "must be …, not": the value alone when its type is one of
    the ``kinds`` the setting takes, so only the value is wrong (``-5``, ``'rhino'``); else its
    kind, with the value itself when it is a scalar (``an integer (-1)``, ``a string ('fast')``,
    ``a table``). A boolean is never taken for an integer."""
    if type(value) in kinds:
        return repr(value)
    if isinstance(value, (bool, int, float, str)):
        return f"{type_name(value)} ({value!r})"
    return type_name(value)


def non_negative_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def string_table(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def string_list_table(
    value: Any,
    section: str,
    key: str,
    what: str,
    report: Reporter,
    problem: Callable[[str], str | None] | None = None,
) -> list[str] | None:
    """The strings under ``[section] key``, or None when absent or unusable. Reported: a
    section that is not a table, unknown keys, a value that is not an array, and each entry
    that is not a string or in which ``problem`` finds one (its sentence; the other entries
    are kept)."""
    if not isinstance(value, dict):
        report(section, f"must be a table, not {described(value)}.")
        return None
    found = None
    for name, item in value.items():
        if name != key:
            report(f"{section}.{name}", "is not a known setting and was ignored.")
        elif not isinstance(item, list):
            report(f"{section}.{key}", f"must be an array of {what} (strings); it was ignored.")
        else:
            found = []
            for index, entry in enumerate(item):
                wrong = None if not isinstance(entry, str) or problem is None else problem(entry)
                if not isinstance(entry, str):
                    report(f"{section}.{key}[{index}]", f"must be a string, not {described(entry)}; it was ignored.")
                elif wrong is not None:
                    report(f"{section}.{key}[{index}]", f"{wrong}; it was ignored.")
                else:
                    found.append(entry)
    return found


def path_problem(text: str) -> str | None:
    """Why the path ``text`` cannot be used, as the end of a sentence, or None: a NUL character
    (every system call refuses it, Python with ``ValueError``), or a ``~user`` whose home
    folder is unknown (``Path.expanduser`` raises ``RuntimeError``). Checked when the file is
    read, so that the kernel's start never meets them."""
    if "\0" in text:
        return "contains a NUL character, which no path can hold"
    try:
        Path(text).expanduser()
    except RuntimeError:
        return f"starts with {text.split('/')[0]!r}, the home folder of a user that does not exist here"
    return None


def module_name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a tool module, or None: not an absolute Python module name
    (identifiers joined by dots, such as ``mypkg.tools``: a path, ``/x`` or ``tools.py``, or a
    relative name, ``.x``, would fail deep in the import system, or search folders it must
    not); ``__main__`` (the kernel's own program: importing it runs nothing of the user's and
    finds no tools); or a module of Python's standard library (``sys.stdlib_module_names``:
    ``os.path`` is already imported by the kernel and defines no tools, ``this`` and
    ``antigravity`` print or open a browser when imported). The same answer at every start, with
    nothing looked up."""
    if not name or not all(part.isidentifier() for part in name.split(".")):
        return f"{name!r} is not a Python module name (identifiers joined by dots, such as mypkg.tools)"
    top = name.split(".")[0]
    if top == "__main__":
        return f"{name!r} is the kernel's own program, not a tool module"
    if top in sys.stdlib_module_names:
        return f"{name!r} is a module of Python's standard library, not a tool module"
    return None
