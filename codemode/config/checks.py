"""Checks and reporting shared by the config sections: each problem becomes one sentence
``"<file>: <key>: <problem>"`` (:class:`Reporter`), values are described in it by kind
(:func:`described`)."""

from __future__ import annotations

import logging
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


def described(value: Any) -> str:
    """``value`` for a sentence: its kind, with the value itself when it is a scalar
    (``an integer (-1)``, ``a string ('fast')``, ``a table``)."""
    if isinstance(value, (bool, int, float, str)):
        return f"{type_name(value)} ({value!r})"
    return type_name(value)


def non_negative_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def string_table(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


def string_list_table(value: Any, section: str, key: str, what: str, report: Reporter) -> list[str] | None:
    """The strings under ``[section] key``, or None when absent or unusable. Reported: a
    section that is not a table, unknown keys, a value that is not an array, and each entry
    that is not a string (the other entries are kept)."""
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
            found = [entry for entry in item if isinstance(entry, str)]
            for index, entry in enumerate(item):
                if not isinstance(entry, str):
                    report(f"{section}.{key}[{index}]", f"must be a string, not {described(entry)}; it was ignored.")
    return found
