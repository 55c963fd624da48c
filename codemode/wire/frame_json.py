"""A frame's JSON payload, written by ``json`` or, once frames get large, by ``orjson``.

``json`` writes a 10 MB string in about 30 ms on the 2-core machine (its encoder copies the
escaped string, then ``str.encode`` copies it again); ``orjson`` writes the same bytes in
about 5 ms, and a small message in 0.2 µs instead of 2.5 µs. But importing ``orjson`` also
imports ``datetime``, ``uuid`` and ``dataclasses``, about 10 ms, which the runtime host cannot
spare on its start-up path. So a process starts with ``json``, and :func:`use_orjson`
switches it: the client does at once (those modules are loaded in a kernel anyway), and any
process does after writing a payload of :data:`LARGE_PAYLOAD_BYTES` or more, so a host pays
the import once, after its first large output, never at start.

Both write compact UTF-8 JSON, the same bytes for every message this protocol carries.
Where they would differ, ``json`` writes: ``orjson`` refuses (``TypeError``) a lone
surrogate, an integer beyond 64 bits and a dict key that is not a string, and those
messages take the ``json`` path as before. (``orjson`` writes a NaN as ``null`` where
``json`` writes the invalid ``NaN``; no frame carries one: a tool result that holds one is
refused before it is sent, ``codemode.tools.failures.json_problem``.) Reading stays with
``json``: ``orjson`` reads an integer beyond 64 bits as a float.
"""

from __future__ import annotations

import json
from typing import Any

LARGE_PAYLOAD_BYTES = 1 << 20
"""A payload this long or longer switches its process to ``orjson`` (:func:`use_orjson`)."""

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)
"""Compact JSON; one encoder for every frame (``json.dumps`` with options builds one a call)."""

_orjson: Any = None


def use_orjson() -> None:
    """Write payloads with ``orjson`` from now on, in this process."""
    global _orjson
    if _orjson is None:
        import orjson

        _orjson = orjson


def payload(message: Any) -> bytes:
    """``message`` as compact UTF-8 JSON. A ``str`` that UTF-8 cannot carry (a lone surrogate)
    is written with :func:`well_formed`'s repair. Raises ``TypeError`` / ``ValueError`` for a
    value JSON cannot hold, as ``json.dumps`` does."""
    if _orjson is not None:
        try:
            return _orjson.dumps(message)
        except TypeError:  # orjson.JSONEncodeError: a lone surrogate, a big integer, a key that is not a string
            pass
    data = encode_text(json_text(message))
    if len(data) >= LARGE_PAYLOAD_BYTES and _orjson is None:
        use_orjson()
    return data


def json_text(value: Any) -> str:
    """``value`` as the compact JSON text :func:`payload` writes with ``json``."""
    return _ENCODER.encode(value)


def encode_text(text: str) -> bytes:
    """``text`` (a payload's JSON text, or a raw text of :mod:`codemode.wire.raw_text`) in UTF-8, a
    lone surrogate written with :func:`well_formed`'s repair."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return well_formed(text).encode("utf-8")


def well_formed(text: str) -> str:
    """``text`` with surrogate pairs joined and lone surrogates replaced by U+FFFD."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
