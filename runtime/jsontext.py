"""Lone UTF-16 surrogates and deep nesting at the edge of the sandbox, treated as Codex's host
treats them.

A JavaScript string may hold an unpaired surrogate (``"ab😀".slice(0, 3)``); UTF-8 and
so every frame cannot. Codex's host (0.171) does one of two things, depending on how the
string leaves the sandbox, and so does ours:

- A value serialised to JSON (a tool argument, a ``store()`` value, an MCP block given
  to ``image``/``audio``/``content``) goes through V8's ``JSON.stringify``, which writes
  a lone surrogate as a ``\\udXXX`` escape, and is then read by serde_json, which refuses
  it: the call throws ``failed to serialize JavaScript value: <serde_json message> at line
  1 column <byte>`` (:func:`lone_surrogate_error`), and nothing is sent.
- A plain string (``text``, ``notify``, an error text, an image or audio URL, a
  ``store``/``load`` key) is converted lossily: each lone surrogate becomes U+FFFD
  (:func:`scrub`), so ``store("\\ud800", 1)`` and ``load("\\ufffd")`` meet.

Whatever a string holds, every frame the host writes is valid UTF-8:
:func:`codemode.wire.framing.encode_frame` replaces what is left of lone surrogates with U+FFFD.

serde_json also refuses a value nesting 128 arrays and objects (``recursion limit exceeded``,
at the 128th opening bracket; recorded from Codex 0.171: a tool argument or ``store()`` value
nesting 127 arrays goes out, 128 throws ``failed to serialize JavaScript value: recursion limit
exceeded at line 1 column 128``). :func:`value_error` gives whichever of the two comes first, as
serde_json reads left to right. Such a value never reaches a frame, where a reader could choke
on it (the client's JSON parser gives up near a thousand levels).
"""

from __future__ import annotations

import json
import re
from typing import Any

from codemode.runtime import nesting
from codemode.wire.frame_json import LARGE_PAYLOAD_BYTES, use_orjson

_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""What every ``\\u`` escape of a surrogate starts with (and, rarely, an escaped backslash
followed by such letters): a text without it holds no lone surrogate."""
_PREFIX = "failed to serialize JavaScript value: "


def scrub(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        if has_surrogate(value):
            return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    return value


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a surrogate code point (in a ``str`` from ``json.loads`` or the
    engines, a lone one: a pair is one character); O(1) for an ASCII string."""
    return not text.isascii() and _SURROGATE.search(text) is not None


def _error(text: str, message: str, end: int, extra_bytes: int = 0) -> str:
    column = len(text[:end].encode("utf-8")) + extra_bytes
    return f"{_PREFIX}{message} at line 1 column {column}"


def lone_surrogate_error(text: str) -> str | None:
    """Codex's error for JSON ``text`` (as ``JSON.stringify`` writes it) holding a lone surrogate.

    Follows serde_json's reading of ``\\u`` escapes: a trailing surrogate alone, or a
    leading one followed by an escape that is no trailing surrogate, is ``lone leading
    surrogate in hex escape``, reported after its four hex digits; a leading surrogate
    followed by anything else is ``unexpected end of hex escape``, reported one byte past
    it (serde discards that byte). Columns count UTF-8 bytes. None when ``text`` holds no
    lone surrogate.
    """
    if _SURROGATE_ESCAPE.search(text) is None:
        return None  # at C speed: a text of millions of other escapes took seconds below
    n = len(text)
    i = text.find("\\")
    while i != -1:
        if text[i + 1] != "u":
            i = text.find("\\", i + 2)
            continue
        code = int(text[i + 2 : i + 6], 16)
        end = i + 6
        if 0xDC00 <= code <= 0xDFFF:
            return _error(text, "lone leading surrogate in hex escape", end)
        if 0xD800 <= code <= 0xDBFF:
            if end >= n or text[end] != "\\":
                return _error(text, "unexpected end of hex escape", end, 1)
            if end + 1 >= n or text[end + 1] != "u":
                return _error(text, "unexpected end of hex escape", end, 2)
            if not 0xDC00 <= int(text[end + 2 : end + 6], 16) <= 0xDFFF:
                return _error(text, "lone leading surrogate in hex escape", end + 6)
            end += 6
        i = text.find("\\", end)
    return None


def value_error(text: str) -> str | None:
    """Codex's error for a value's JSON ``text`` (as ``JSON.stringify`` writes it, on one line):
    a lone surrogate (:func:`lone_surrogate_error`) or nesting as deep as serde_json refuses
    (:data:`~codemode.runtime.nesting.LIMIT`), whichever comes first; None for a value Codex's
    host sends. A text with fewer brackets than the limit is not looked into; one with more is
    parsed first (:func:`~codemode.runtime.nesting.nests_too_deep`), and scanned for the refused
    bracket only when it does nest too deep."""
    deep = None
    if text.count("[") + text.count("{") >= nesting.LIMIT and nesting.nests_too_deep(text):
        deep = nesting.first_too_deep(text)
    if deep is None:
        return lone_surrogate_error(text)
    # a surrogate's escape lies in a string, which ends before the refused bracket
    return lone_surrogate_error(text[:deep]) or _error(text, "recursion limit exceeded", deep + 1)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)


def is_one_value(text: str) -> bool:
    """Whether ``text`` is exactly one JSON value and nothing else (no ``NaN`` or ``Infinity``,
    nothing before or after it), as ``JSON.stringify`` writes one.

    A text the prelude hands over for a frame (a tool argument spliced into ``tool/invoke``, a
    ``store()`` value sent in ``session/storedValues``) is checked so before it goes anywhere:
    were the prelude's code ever called with what its helpers never pass, a text such as
    ``1},"id":7,"x":{`` would otherwise write fields of the frame itself. Costs a parse (a few
    µs for a small argument; a text of a megabyte or more is read by ``orjson``, 2.5 times
    faster, which its frame is written with anyway, :mod:`codemode.wire.frame_json`). Call it after
    :func:`value_error` found nothing: a value nesting deeper than Python's recursion limit is
    that function's to refuse."""
    if len(text) >= LARGE_PAYLOAD_BYTES:
        use_orjson()
        import orjson

        try:
            orjson.loads(text)
        except orjson.JSONDecodeError:
            return False
        return not text[0].isspace() and not text[-1].isspace()
    try:
        _, end = _DECODER.raw_decode(text)
    except (ValueError, RecursionError):
        return False
    return end == len(text)
