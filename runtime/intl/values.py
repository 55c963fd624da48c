"""Values as they cross from a cell's prelude: JSON plus tags for what JSON cannot hold.

``{"$": "NaN" | "Infinity" | "-Infinity" | "-0" | "undefined"}`` and ``{"$bigint": "<digits>"}``
(the prelude's ``__cm_intl_value`` writes them; ``oracle.js`` reads them the same way).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Slow(Exception):
    """Raised by an ICU formatter for a call it leaves to V8 (a string to format, a NaN date)."""


class Options(NamedTuple):
    """What an ICU formatter is built from.

    ``resolved``: V8's ``resolvedOptions()``; ``basis``: the options V8's constructor worked
    from (for dates, with ECMA-402's default components made explicit); ``requested``: the
    cell's options snapshot as given.
    """

    resolved: dict[str, Any]
    basis: dict[str, Any]
    requested: dict[str, Any]


class BigIntValue(NamedTuple):
    """A JavaScript BigInt, as its decimal digits (``"-123"``)."""

    digits: str


class _Undefined:
    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = _Undefined()
"""JavaScript's ``undefined`` inside an argument list."""

_SPECIAL: dict[str, Any] = {
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
    "-0": -0.0,
    "undefined": UNDEFINED,
}


def decode(value: Any) -> Any:
    """The Python value of an encoded argument: floats for the special numbers, :class:`BigIntValue`, ..."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        tag = value.get("$")
        if isinstance(tag, str) and tag in _SPECIAL:
            return _SPECIAL[tag]
        digits = value.get("$bigint")
        if isinstance(digits, str):
            return BigIntValue(digits)
        return {k: decode(v) for k, v in value.items()}
    return value
