"""How values stored with ``store()`` cross the host connection: one value a frame.

Codex's host keeps stored values in its own process (``codex-rs/code-mode/src/stored_values.rs``,
a ``HashMap<String, JsonValue>``), so nothing about them crosses a frame, and a host that is
replaced starts empty. codemode keeps them across a host replacement (codemode's
``session/storedValues`` extension): the host reports each value a cell commits, the client
keeps a copy and gives it to the next host. Every value travels in a frame of its own, both
ways, as ``{"type": "session/storedValues", "sessionId": ..., "values": {key: value}}``, so
how much is stored in all never meets the 64 MiB frame limit
(:data:`~codemode.wire.framing.MAX_FRAME_BYTES`); one value does, so ``store()`` refuses at once a
value whose frame would be too large (:func:`refusal`): stored, it could not be given to a
new host.

The value is written as :func:`canonical` JSON, the text Python's ``json`` writes (compact,
UTF-8, no ASCII escapes), and the host keeps that text: the client, which parses what the
host reports, writes the same text again when it seeds a new host, so the frame it sends
is the size the host measured (JavaScript writes some numbers otherwise: ``5e-7`` is
``5e-07`` here).
"""

from __future__ import annotations

import json

from codemode.wire.frame_json import json_text
from codemode.wire.framing import MAX_FRAME_BYTES

ENVELOPE_BYTES = 1024
"""Bytes of a value's frame kept for what surrounds its key and value (the message type and a
session id of up to about 950 bytes; codemode's client names its sessions ``session-<n>``)."""
MAX_STORED_VALUE_BYTES = MAX_FRAME_BYTES - ENVELOPE_BYTES
"""The most a stored value may take: its key's JSON and its value's :func:`canonical` JSON,
together, in UTF-8 bytes (67 107 840)."""


def canonical(value_json: str) -> str:
    """The JSON text that the host keeps and sends for a value whose JSON, as JavaScript's
    ``JSON.stringify`` wrote it, is ``value_json``. A string's is the text itself: both write
    a string alike (the same escapes, the rest as it is; ``tests/runtime/test_stored_frames.py``
    compares every character), which spares parsing and writing a large one again. Raises
    ``ValueError`` for a text that is not JSON."""
    if value_json.startswith('"'):
        return value_json
    return json_text(json.loads(value_json))


def entry_bytes(key: str, value_text: str) -> int:
    """What ``key`` with its value's :func:`canonical` JSON ``value_text`` take in a frame,
    in UTF-8 bytes (the key's JSON, a colon, the value)."""
    return _utf8_length(json_text(key)) + 1 + _utf8_length(value_text)


def refusal(key: str, size: int) -> str:
    """The error ``store(key, ...)`` throws (a string, as Codex's ``store`` errors are) when
    its value would take ``size`` bytes (:func:`entry_bytes`), more than
    :data:`MAX_STORED_VALUE_BYTES`."""
    return (
        f"Unable to store {json_text(key)}: the key and the value take {size} bytes as JSON, "
        f"more than the {MAX_STORED_VALUE_BYTES} one stored value may take."
    )


def message_text(session_id: str, key: str, value_text: str) -> str:
    """The JSON text of the ``session/storedValues`` frame carrying one value: ``value_text`` is
    its :func:`canonical` JSON, written in as it is."""
    return (
        '{"type":"session/storedValues","sessionId":'
        + json_text(session_id)
        + ',"values":{'
        + json_text(key)
        + ":"
        + value_text
        + "}}"
    )


def _utf8_length(text: str) -> int:
    if text.isascii():
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


__all__ = ["ENVELOPE_BYTES", "MAX_STORED_VALUE_BYTES", "canonical", "entry_bytes", "message_text", "refusal"]
