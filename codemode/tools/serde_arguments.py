"""A Codex function tool's arguments, read as Codex's Rust structs read them (serde), with serde's
error texts.

Codex serialises a code-mode program's argument object to compact JSON
(``serde_json::to_string``, keys sorted) and parses it into the tool's argument struct; a
failure reaches the program as ``failed to parse function arguments: <serde_json's error>``
(``codex-rs/core/src/tools/handlers/mod.rs`` ``parse_arguments``), for instance ``failed to
parse function arguments: missing field `cmd` at line 1 column 2`` for ``exec_command({})``
(Codex CLI 0.171.0). serde reads the keys in the text's order: the first value of the wrong
type is the error, reported where its token ends (an array or object where a scalar belongs:
where the ``:`` before it ends), then the first missing required field in the struct's order,
reported at the closing ``}``. Unknown keys are ignored (the structs do not deny them), so
:meth:`SerdeStruct.known` keeps only the struct's fields. Columns count UTF-8 bytes, from 1.

Texts: ``invalid type: integer `5`, expected a string``, ``invalid type: string "x", expected
u64``, ``invalid value: integer `-1`, expected u64``, ``invalid type: null, expected a
boolean``, ``invalid type: sequence, expected a string``, ``unknown variant `x`, expected
`use_default` or `require_escalated```, ``expected value`` (a unit enum given neither a string
nor an object).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from codemode.wire.serde import one_of, unexpected

PREFIX = "failed to parse function arguments: "

INTEGERS = {"u64": (0, 2**64 - 1), "usize": (0, 2**64 - 1), "i32": (-(2**31), 2**31 - 1), "i64": (-(2**63), 2**63 - 1)}
"""The Rust integer types a field may have, with their ranges."""


@dataclass(frozen=True)
class SerdeField:
    """One field: its ``name``, its Rust ``kind`` (``String``, ``bool``, one of
    :data:`INTEGERS`, ``Vec<String>``, or ``enum`` with its ``variants``), whether it is
    ``required`` (neither ``Option`` nor ``#[serde(default)]``) and whether ``null`` is
    accepted (``optional``: an ``Option``)."""

    name: str
    kind: str
    required: bool = False
    optional: bool = True
    variants: tuple[str, ...] = ()


def _unexpected(value: Any) -> str:
    """serde's ``Unexpected`` for a JSON value parsed straight into a field: a float is a
    ``floating point`` here (:func:`codemode.wire.serde.unexpected` describes buffered values)."""
    if isinstance(value, float):
        return f"floating point `{value!r}`"
    return unexpected(value)


def _expected(field: SerdeField) -> str:
    return {"String": "a string", "bool": "a boolean", "Vec<String>": "a sequence"}.get(field.kind, field.kind)


def _scalar(value: Any) -> bool:
    return not isinstance(value, (list, dict))


def _problem(field: SerdeField, value: Any) -> tuple[str, bool] | None:
    """What serde says of ``value`` for ``field``, and whether the error is placed where the
    value's token ends (True) or before it (an array or object not read)."""
    kind = field.kind
    if value is None:
        if field.optional:
            return None
        if kind == "enum":
            return "expected value", False
        return f"invalid type: null, expected {_expected(field)}", True
    if kind == "enum":
        if isinstance(value, str):
            if value in field.variants:
                return None
            return f"unknown variant `{value}`, {one_of(field.variants, 'there are no variants')}", True
        if isinstance(value, dict):
            return None  # not a shape these tools' enums are given; left to the schema
        return "expected value", False
    ok = {
        "String": isinstance(value, str),
        "bool": isinstance(value, bool),
        "Vec<String>": isinstance(value, list),
    }.get(kind)
    if kind in INTEGERS:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if ok:
            low, high = INTEGERS[kind]
            if not low <= value <= high:
                return f"invalid value: integer `{value}`, expected {kind}", True
            return None
    if not ok:
        return f"invalid type: {_unexpected(value)}, expected {_expected(field)}", _scalar(value)
    return None


@dataclass(frozen=True)
class SerdeStruct:
    """A Rust argument struct: its ``fields`` in declaration order."""

    fields: tuple[SerdeField, ...]

    def known(self, args: dict[str, Any]) -> dict[str, Any]:
        """``args`` without the keys the struct does not have (serde skips them)."""
        names = {f.name for f in self.fields}
        return {k: v for k, v in args.items() if k in names}

    def problem(self, args: dict[str, Any]) -> str | None:
        """The error text Codex gives for ``args`` (an object), or None when they parse."""
        by_name = {f.name: f for f in self.fields}
        column = 1  # the "{"
        for index, key in enumerate(sorted(args)):
            value = args[key]
            key_text = json.dumps(key, ensure_ascii=False)
            value_text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
            before = column + (1 if index else 0) + _bytes(key_text) + 1  # a comma, the key, the colon
            column = before + _bytes(value_text)
            field = by_name.get(key)
            if field is None:
                continue
            problem = _problem(field, value)
            if problem is None and field.kind == "Vec<String>" and isinstance(value, list):
                element = _element_problem(value, before)
                if element is not None:
                    return PREFIX + element
            if problem is not None:
                text, at_end = problem
                if text == "expected value":
                    where = before + 1
                else:
                    where = column if at_end else before
                return f"{PREFIX}{text} at line 1 column {where}"
        for field in self.fields:
            if field.required and field.name not in args:
                return f"{PREFIX}missing field `{field.name}` at line 1 column {column + 1}"
        return None


def _element_problem(items: list[Any], before: int) -> str | None:
    column = before + 1  # the "["
    for index, item in enumerate(items):
        text = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
        start = column + (1 if index else 0)
        column = start + _bytes(text)
        if not isinstance(item, str):
            where = column if _scalar(item) else start
            return f"invalid type: {_unexpected(item)}, expected a string at line 1 column {where}"
    return None


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
