"""Framing of the code-mode host protocol, version 1.

Both sides of the connection use this module: the runtime host (``codemode.runtime``) and
the client that supervises it (``codemode.host``). The messages themselves are typed in
:mod:`codemode.wire.messages`.

A frame is a 4-byte little-endian unsigned length followed by that many bytes of UTF-8 JSON;
one JSON object is one message. Frames are at most :data:`MAX_FRAME_BYTES` (64 MiB), as in
Codex's ``codex-rs/code-mode-protocol`` (``MAX_FRAME_BYTES``).

Every frame is valid UTF-8, whatever a Python ``str`` in the message holds: a surrogate pair
stored as two code points is joined into its character, and a lone surrogate (which no UTF-8
can carry) is replaced by U+FFFD. Replacing rather than writing a ``\ud800`` JSON escape is
what Codex's host needs: its decoder (serde_json) rejects a lone-surrogate escape with
``unexpected end of hex escape`` and ends the connection, and its own ``text()`` already turns a
lone surrogate into U+FFFD. The same rule holds for what our host writes.
"""

from __future__ import annotations

import asyncio
import json
import struct
from typing import Any

from codemode.wire import frame_json
from codemode.wire.session_bindings import BINDINGS_CAPABILITY

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 64 * 1024 * 1024
"""Largest frame payload in bytes (``MAX_FRAME_BYTES`` in Codex)."""

_LENGTH = struct.Struct("<I")

EXIT_NOTICE_CAPABILITY = "codemode-host-exit-notice-v1"
"""codemode's extension: a host that grants it sends ``{"type": "host/exiting", "reason": str}``
before it exits on its own (a cell it could not stop in-process), ahead of the answer to the
request that caused the exit. The client then sends no new ``session/execute`` on that
connection: the next cell starts on a new host while the old one finishes exiting."""

RAW_TEXT_CAPABILITY = "codemode-raw-text-v1"
"""codemode's extension: a host that grants it may send the long strings of a runtime
response's content items in frames of their own beside the response (:mod:`codemode.wire.raw_text`)."""

CAPABILITIES = (
    "bounded-output-v1",
    "delegate-capacity-4096",
    "session-cell-execution-resource-limits",
    "tool-catalog-revision-v1",
    "yield-observation",
    EXIT_NOTICE_CAPABILITY,
    RAW_TEXT_CAPABILITY,
    BINDINGS_CAPABILITY,
)
"""Capabilities the client offers and our host grants: the five of Codex 0.171's host (which
grants the requested ones it knows and ignores the rest) and codemode's extensions (our host
grants :data:`~codemode.wire.session_bindings.BINDINGS_CAPABILITY` in the notebook profile only)."""


class FrameError(Exception):
    """A frame could not be encoded or decoded.

    The message is Codex's text, e.g. ``code-mode IPC frame length N exceeds 67108864 bytes``
    or ``failed to decode code-mode IPC frame: <reason>``.
    """


class FrameEof(FrameError):
    """The input ended inside a frame (its length prefix or its payload)."""


class FrameTooLarge(FrameError):
    """A frame's payload is over :data:`MAX_FRAME_BYTES`; ``length`` is its size in bytes."""

    def __init__(self, length: int) -> None:
        super().__init__(f"code-mode IPC frame length {length} exceeds {MAX_FRAME_BYTES} bytes")
        self.length = length


def text_frame_parts(text: str) -> tuple[bytes, bytes]:
    """The two parts of :func:`encode_frame_parts` for a payload given as its JSON text ``text``
    (a writer that builds a frequent message's text itself). Raises :class:`FrameTooLarge`
    when it is over :data:`MAX_FRAME_BYTES` once encoded."""
    return raw_frame_parts(frame_json.encode_text(text))


def raw_frame_parts(data: bytes) -> tuple[bytes, bytes]:
    """The two parts of a frame whose payload is ``data`` as it is (the frame of every payload;
    the raw texts of :mod:`codemode.wire.raw_text` are not JSON). Raises :class:`FrameTooLarge` over
    :data:`MAX_FRAME_BYTES`."""
    if len(data) > MAX_FRAME_BYTES:
        raise FrameTooLarge(len(data))
    return _LENGTH.pack(len(data)), data


def encode_frame(message: Any) -> bytes:
    """Serialise one message into a frame (length prefix + compact JSON in UTF-8).

    Any Python ``str`` can be sent: the payload is always valid UTF-8 (see the module
    docstring for surrogates). Raises :class:`FrameTooLarge` when the JSON is over 64 MiB.
    """
    return b"".join(encode_frame_parts(message))


def encode_frame_parts(message: Any) -> tuple[bytes, bytes]:
    """:func:`encode_frame` as its two parts, the 4-byte length prefix and the payload, for a
    writer that can take them one after the other without copying a large payload once more."""
    return raw_frame_parts(frame_json.payload(message))


def decode_payload(payload: bytes) -> dict[str, Any]:
    """Parse a frame's payload into a message object.

    Raises :class:`FrameError` (``failed to decode code-mode IPC frame: …``) for bytes
    that are not UTF-8 JSON or a JSON value that is not an object.
    """
    try:
        message = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FrameError(f"failed to decode code-mode IPC frame: {exc}") from None
    if not isinstance(message, dict):
        raise FrameError(f"failed to decode code-mode IPC frame: expected a JSON object, got {type(message).__name__}")
    return message


def decode_frames(buffer: bytes) -> tuple[list[dict[str, Any]], bytes]:
    """Split complete frames off the front of ``buffer``.

    Returns the decoded messages and the unconsumed rest (a partial frame).
    Raises :class:`FrameTooLarge` as soon as a length prefix is over the limit and
    :class:`FrameError` for a payload that does not decode.
    """
    messages: list[dict[str, Any]] = []
    offset = 0
    while len(buffer) - offset >= _LENGTH.size:
        (length,) = _LENGTH.unpack_from(buffer, offset)
        if length > MAX_FRAME_BYTES:
            raise FrameTooLarge(length)
        end = offset + _LENGTH.size + length
        if end > len(buffer):
            break
        messages.append(decode_payload(buffer[offset + _LENGTH.size : end]))
        offset = end
    return messages, buffer[offset:]


async def read_frame(reader: asyncio.StreamReader) -> dict[str, Any] | None:
    """Read one message from ``reader``.

    Returns ``None`` on a clean EOF at a frame boundary. Raises :class:`FrameError`
    for EOF inside a frame (``UnexpectedEof``), an oversized length or a bad payload.
    """
    payload = await read_payload(reader)
    return None if payload is None else decode_payload(payload)


async def read_payload(reader: asyncio.StreamReader) -> bytes | None:
    """Read one frame's payload from ``reader``, undecoded; ``None`` on a clean EOF at a frame
    boundary. Raises :class:`FrameError` for EOF inside a frame (:class:`FrameEof`) or an oversized length."""
    try:
        header = await reader.readexactly(_LENGTH.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise FrameEof("failed to read code-mode IPC frame: unexpected end of file") from None
    (length,) = _LENGTH.unpack(header)
    if length > MAX_FRAME_BYTES:
        raise FrameTooLarge(length)
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise FrameEof("failed to read code-mode IPC frame: unexpected end of file") from None


async def read_attached_payload(reader: asyncio.StreamReader) -> bytes:
    """The payload of a frame that must follow (a raw text of :mod:`codemode.wire.raw_text`): as
    :func:`read_payload`, with an EOF before it an error too."""
    payload = await read_payload(reader)
    if payload is None:
        raise FrameError("failed to read code-mode IPC frame: unexpected end of file")
    return payload
