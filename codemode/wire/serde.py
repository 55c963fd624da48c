"""Decoding parsed JSON as Rust's serde derive decodes it, with serde's error texts.

Codex's host decodes every client frame with serde (``#[serde(deny_unknown_fields)]``
structs, internally tagged enums, serde_json built with ``arbitrary_precision``) and ends the
connection with serde's text when a frame does not match. The types here decode a value
already parsed by :mod:`json` the same way: a struct's keys in the frame's order (the first
bad key or value wins), then its missing fields in declaration order, then its own checks;
a struct also decodes from a sequence, positionally. Every text comes from two patterns,
``invalid type: <unexpected>, expected <expecting>`` and ``invalid value: ...``, where
:func:`unexpected` describes the value as serde's ``Unexpected`` does: ``null``,
``boolean `true```, ``integer `5``` (a 64-bit integer), ``string "x"`` (Rust's ``{:?}``),
``sequence``, and ``map`` for objects and also for the numbers ``arbitrary_precision`` keeps
as text (floats, integers past 64 bits).

``decode`` returns the value normalised: a struct as a dict of the fields present (a struct
given as a sequence too), an enum as its variant's wire name (also one chosen by its index).
:class:`DecodeError` carries serde's text. The schema of Codex's client messages is in
:mod:`codemode.runtime.validate`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

U64_MAX = 2**64 - 1
I64_MIN = -(2**63)


class DecodeError(ValueError):
    """A value does not match its type; ``str(error)`` is serde's text."""


def rust_debug(text: str) -> str:
    """``text`` quoted as Rust's ``{:?}`` shows a string: ``"a\\"b\\n\\u{1}"``."""
    escapes = {"\0": "\\0", "\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"'}
    out = []
    for char in text:
        if char in escapes:
            out.append(escapes[char])
        elif not char.isprintable() or unicodedata.category(char) in ("Mn", "Me"):
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def is_integer(value: Any) -> bool:
    """True for a JSON integer serde_json reads as ``i64`` or ``u64`` (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and I64_MIN <= value <= U64_MAX


def unexpected(value: Any) -> str:
    """serde's ``Unexpected`` text for a JSON value serde_json buffered (``arbitrary_precision``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if is_integer(value):
        return f"integer `{value}`"
    if isinstance(value, str):
        return "string " + rust_debug(value)
    if isinstance(value, list):
        return "sequence"
    return "map"


def invalid_type(value: Any, expecting: str) -> DecodeError:
    return DecodeError(f"invalid type: {unexpected(value)}, expected {expecting}")


def invalid_value(value: Any, expecting: str) -> DecodeError:
    return DecodeError(f"invalid value: {unexpected(value)}, expected {expecting}")


def one_of(names: Sequence[str], none: str) -> str:
    """serde's list of what was expected: ``expected `a```, ``expected `a` or `b```,
    ``expected one of `a`, `b`, `c```, or ``none`` for an empty list."""
    quoted = [f"`{n}`" for n in names]
    if not quoted:
        return none
    if len(quoted) == 1:
        return f"expected {quoted[0]}"
    if len(quoted) == 2:
        return f"expected {quoted[0]} or {quoted[1]}"
    return "expected one of " + ", ".join(quoted)


def _elements(count: int) -> str:
    return f"{count} element" if count == 1 else f"{count} elements"


class Type:
    """A Rust type: :meth:`decode` returns the normalised value or raises :class:`DecodeError`."""

    expecting = "a value"

    def decode(self, value: Any) -> Any:  # pragma: no cover - every type overrides it
        raise NotImplementedError


class AnyValue(Type):
    """``serde_json::Value``: anything."""

    def decode(self, value: Any) -> Any:
        return value


class Integer(Type):
    """An integer type: ``u64``, ``i32``, ``a nonzero u32``... (bounds inclusive)."""

    def __init__(self, expecting: str, low: int, high: int) -> None:
        self.expecting, self.low, self.high = expecting, low, high

    def decode(self, value: Any) -> Any:
        if not is_integer(value):
            raise invalid_type(value, self.expecting)
        if not self.low <= value <= self.high:
            raise invalid_value(value, self.expecting)
        return value


class Text(Type):
    """``String``; with ``empty`` set, an identifier type whose empty value fails with that text."""

    expecting = "a string"

    def __init__(self, empty: str | None = None) -> None:
        self.empty = empty

    def decode(self, value: Any) -> Any:
        if not isinstance(value, str):
            raise invalid_type(value, self.expecting)
        if self.empty is not None and not value:
            raise DecodeError(self.empty)
        return value


class JsonMap(Type):
    """A map of JSON values (``HashMap<String, Value>``)."""

    expecting = "a map"

    def decode(self, value: Any) -> Any:
        if not isinstance(value, dict):
            raise invalid_type(value, self.expecting)
        return value


class Optional(Type):
    """``Option<T>``: ``null`` is ``None``."""

    def __init__(self, inner: Type) -> None:
        self.inner = inner
        self.expecting = inner.expecting

    def decode(self, value: Any) -> Any:
        return None if value is None else self.inner.decode(value)


class Seq(Type):
    """``Vec<T>``; ``check`` runs on the decoded list (a newtype's own validation)."""

    expecting = "a sequence"

    def __init__(self, item: Type, check: Callable[[list[Any]], None] | None = None) -> None:
        self.item, self.check = item, check

    def decode(self, value: Any) -> Any:
        if not isinstance(value, list):
            raise invalid_type(value, self.expecting)
        items = [self.item.decode(element) for element in value]
        if self.check is not None:
            self.check(items)
        return items


class Field:
    """A struct field. ``missing``: ``"required"``; ``"option"`` (an ``Option`` with no
    default: may be left out of a map, not off the end of a sequence); ``"default"``
    (``#[serde(default)]``: may be left out of both). An ``extension`` field (codemode's,
    not Codex's) is accepted in a map but named in no text and has no place in a sequence,
    so every text stays Codex's."""

    def __init__(self, name: str, type_: Type, missing: str = "required", *, extension: bool = False) -> None:
        self.name, self.type, self.missing, self.extension = name, type_, missing, extension


class Struct(Type):
    """A ``deny_unknown_fields`` struct; ``expecting`` is serde's name for it (``struct
    WireToolName``, ``struct variant HostRequest::Wait``); ``check`` runs on the decoded dict."""

    def __init__(self, expecting: str, fields: Sequence[Field], check: Callable[[dict[str, Any]], None] | None = None):
        self.expecting, self.check = expecting, check
        self._by_name = {f.name: f for f in fields}
        self.members = list(fields)
        """Every field, codemode's extensions too, in declaration order."""
        self.fields = [f for f in fields if not f.extension]
        """The fields serde knows, in declaration order."""

    def decode(self, value: Any) -> Any:
        if isinstance(value, dict):
            out = self._from_map(value)
        elif isinstance(value, list):
            out = self._from_seq(value)
        else:
            raise invalid_type(value, self.expecting)
        if self.check is not None:
            self.check(out)
        return out

    def _from_map(self, value: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, item in value.items():
            field = self._by_name.get(key)
            if field is None:
                names = one_of([f.name for f in self.fields], "there are no fields")
                raise DecodeError(f"unknown field `{key}`, {names}")
            out[key] = field.type.decode(item)
        for field in self.fields:
            if field.name not in out and field.missing == "required":
                raise DecodeError(f"missing field `{field.name}`")
        return out

    def _from_seq(self, value: list[Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        count = len(self.fields)
        for index, field in enumerate(self.fields):
            if index < len(value):
                out[field.name] = field.type.decode(value[index])
            elif field.missing != "default":
                raise DecodeError(f"invalid length {index}, expected {self.expecting} with {_elements(count)}")
        if len(value) > count:
            raise DecodeError(f"invalid length {len(value)}, expected {_elements(count)} in sequence")
        return out


class UnitEnum(Type):
    """An externally tagged enum of unit variants: ``"client"`` or ``{"client": null}``."""

    expecting = "string or map"

    def __init__(self, variants: Sequence[str]) -> None:
        self.variants = list(variants)

    def decode(self, value: Any) -> Any:
        if isinstance(value, dict):
            if len(value) != 1:
                raise invalid_value(value, "map with a single key")
            ((name, unit),) = value.items()
            variant = self._variant(name)
            if unit is not None:
                raise invalid_type(unit, "unit")
            return variant
        if isinstance(value, str):
            return self._variant(value)
        raise invalid_type(value, self.expecting)

    def _variant(self, name: str) -> str:
        if name not in self.variants:
            raise DecodeError(f"unknown variant `{name}`, {one_of(self.variants, 'there are no variants')}")
        return name


class Tagged(Type):
    """An internally tagged enum (``#[serde(tag = ...)]``) named ``name``: ``variants`` maps
    each wire name to its struct, or to None for a unit variant (whose other fields are
    ignored, as serde ignores them). ``extensions`` (codemode's variants) are accepted by
    name only, and named in no text."""

    def __init__(
        self, name: str, tag: str, variants: dict[str, Struct | None], extensions: dict[str, Struct] | None = None
    ) -> None:
        self.name, self.tag = name, tag
        self.variants: dict[str, Struct | None] = {**variants, **(extensions or {})}
        self.expecting = f"internally tagged enum {name}"
        self._names = list(variants)

    def decode(self, value: Any) -> Any:
        if isinstance(value, dict):
            if self.tag not in value:
                raise self.missing_tag()
            variant = self.variant(value[self.tag])
            return self.decode_variant(variant, {k: v for k, v in value.items() if k != self.tag})
        if isinstance(value, list):
            if not value:
                raise self.missing_tag()
            return self.decode_variant(self.variant(value[0]), value[1:])
        raise invalid_type(value, self.expecting)

    def missing_tag(self) -> DecodeError:
        return DecodeError(f"missing field `{self.tag}`")

    def variant(self, value: Any, *, buffered: bool = True) -> str:
        """The variant a tag names: a wire name, or (from serde's buffered content,
        ``buffered``) a non-negative integer taken as the variant's index. Unbuffered, as
        serde_json reads a top-level tag, an integer is refused and a number it keeps as
        text is ``number``, not ``map``."""
        if isinstance(value, str):
            if value not in self.variants:
                raise DecodeError(f"unknown variant `{value}`, {one_of(self._names, 'there are no variants')}")
            return value
        if buffered and is_integer(value) and value >= 0:
            if value >= len(self._names):
                raise invalid_value(value, f"variant index 0 <= i < {len(self._names)}")
            return self._names[value]
        if not buffered and isinstance(value, (int, float)) and not isinstance(value, bool) and not is_integer(value):
            raise DecodeError("invalid type: number, expected variant identifier")
        raise invalid_type(value, "variant identifier")

    def decode_variant(self, variant: str, content: Any) -> dict[str, Any]:
        """The variant's fields (``content``: the map without the tag, or the sequence after
        it) decoded, with the tag: ``{tag: variant, **fields}``."""
        struct = self.variants[variant]
        if struct is None:
            if isinstance(content, list) and content:
                raise DecodeError(f"invalid length {len(content)}, expected 0 elements in sequence")
            return {self.tag: variant}
        return {self.tag: variant, **struct.decode(content)}


__all__ = [
    "AnyValue",
    "DecodeError",
    "Field",
    "Integer",
    "JsonMap",
    "Optional",
    "Seq",
    "Struct",
    "Tagged",
    "Text",
    "Type",
    "UnitEnum",
    "invalid_type",
    "invalid_value",
    "is_integer",
    "one_of",
    "rust_debug",
    "unexpected",
]
