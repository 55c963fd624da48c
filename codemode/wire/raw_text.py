"""Long output texts sent beside a response's frame instead of inside its JSON (codemode's extension).

Parsing JSON is most of what a large output costs the client: a 10 MB ``text()`` took the
client's ``json.loads`` about 13 ms, the host's encoder about 5 ms more, against about 1 ms each
to encode and decode the same text as UTF-8. A host that grants :data:`RAW_TEXT_CAPABILITY`
therefore may send the long strings of a runtime response's content items (an ``input_text``'s
``text`` or a notebook ``stream`` item's, an ``input_image``'s ``image_url``, an ``input_audio``'s ``audio_url``, each of at
least :data:`MIN_RAW_CHARS` characters) out of the JSON, as Jupyter's wire protocol sends binary
buffers beside a message:

- in the response's frame each such string is ``null``, and the object has one more member,
  ``"codemode/raw"``: the list of their paths (object keys and list indices from the top);
- right after it come as many frames as paths, in the same order, each the usual 4-byte
  little-endian length and then the string's UTF-8 bytes (no quotes, no escapes; a lone
  surrogate is written as U+FFFD, as in the JSON frames).

Only responses that carry a runtime response use it (``execute/initialResponse`` and the
``wait/completed`` answer of a wait or terminate), only from host to client, and only when the
same message written inline would fit in one frame (:data:`~codemode.wire.framing.MAX_FRAME_BYTES`):
a response too large for Codex's frame limit still gets Codex's error, as if sent inline.
Codex's host does not know the capability and never grants it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from codemode.wire import frame_json
from codemode.wire.framing import MAX_FRAME_BYTES, RAW_TEXT_CAPABILITY, FrameError, encode_frame_parts, raw_frame_parts

RAW_MEMBER = "codemode/raw"
"""The member of a response frame that lists the paths of the strings sent beside it."""
MIN_RAW_CHARS = 1 << 16
"""Strings shorter than this stay in the JSON: there, parsing them costs less than a frame."""
_LONG_FIELD = {"input_text": "text", "stream": "text", "input_image": "image_url", "input_audio": "audio_url"}
"""The string field of each kind of content item that may be long (the notebook profile's
``stream`` items included); one lookup an item, as a response may hold 100 000 of them."""
_MAX_JSON_BYTES_PER_CHAR = 6
"""The most a character can take in a JSON string (``\\u001f``); bounds a string's inline size."""


def frames(message: dict[str, Any]) -> list[tuple[bytes, bytes]] | None:
    """The frames of ``message`` (a message the host writes) with its long content strings sent
    beside it, each as ``(length prefix, payload)``; None when it has none, or when written
    inline it might not fit in one frame (it is then written inline, which decides)."""
    taken = take_out(message)
    if taken is None:
        return None
    stripped, texts = taken
    header, payload = encode_frame_parts(stripped)
    inline_bound = len(payload) + sum(_MAX_JSON_BYTES_PER_CHAR * len(text) + 2 for text in texts)
    if inline_bound > MAX_FRAME_BYTES:
        return None
    return [(header, payload), *(raw_frame_parts(frame_json.encode_text(text)) for text in texts)]


def take_out(message: dict[str, Any]) -> tuple[dict[str, Any], list[str]] | None:
    """``message`` with its long content strings replaced by ``null`` and their paths listed
    in :data:`RAW_MEMBER`, and those strings in order; None when it has none. ``message``
    itself is not changed (the objects on the way are copied)."""
    found = _response_body(message)
    if found is None:
        return None
    path, body = found
    items = body.get("content_items")
    if items.__class__ is not list:
        return None
    paths: list[list[Any]] = []
    texts: list[str] = []
    copied: list[Any] | None = None
    for index, item in enumerate(items):
        field = _LONG_FIELD.get(item.get("type"))
        if field is None:
            continue
        value = item.get(field)
        if value.__class__ is str and len(value) >= MIN_RAW_CHARS:
            if copied is None:
                copied = list(items)
            copied[index] = {**item, field: None}
            paths.append([*path, "content_items", index, field])
            texts.append(value)
    if copied is None:
        return None
    stripped = _replaced(message, [*path, "content_items"], copied)
    stripped[RAW_MEMBER] = paths
    return stripped, texts


async def put_back(message: dict[str, Any], read_payload: Callable[[], Awaitable[bytes]]) -> dict[str, Any]:
    """Read the raw frames that follow ``message`` (a response holding :data:`RAW_MEMBER`) with
    ``read_payload()`` (an awaitable of one frame's payload) and put each string at its path.

    Raises :class:`~codemode.wire.framing.FrameError` for paths that do not name a ``null`` inside
    the message, a payload that is not UTF-8, or a stream that ends early.
    """
    paths = message.pop(RAW_MEMBER)
    if paths.__class__ is not list:
        raise FrameError(f"failed to decode code-mode IPC frame: {RAW_MEMBER} is not a list")
    for path in paths:
        container, key = _slot(message, path)
        payload = await read_payload()
        try:
            container[key] = payload.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FrameError(f"failed to decode code-mode IPC frame: {exc}") from None
    return message


def _response_body(message: dict[str, Any]) -> tuple[list[Any], dict[str, Any]] | None:
    """The path to a runtime response's body inside ``message``, and the body."""
    result = message.get("result")
    if result.__class__ is not dict or result.get("status") != "ok":
        return None
    value = result.get("value")
    path: list[Any] = ["result", "value"]
    kind = message.get("type")
    if kind == "operation/response":
        if value.__class__ is not dict or value.get("type") != "wait/completed":
            return None
        outcome = value.get("outcome")
        if outcome.__class__ is not dict or len(outcome) != 1:
            return None
        ((tag, value),) = outcome.items()
        path += ["outcome", tag]
    elif kind != "execute/initialResponse":
        return None
    if value.__class__ is not dict or len(value) != 1:
        return None
    ((tag, body),) = value.items()
    if body.__class__ is not dict:
        return None
    return [*path, tag], body


def _replaced(container: dict[str, Any], path: list[Any], value: Any) -> dict[str, Any]:
    """A copy of ``container`` with ``value`` at ``path``, each object on the way copied."""
    key = path[0]
    inner = value if len(path) == 1 else _replaced(container[key], path[1:], value)
    return {**container, key: inner}


def _slot(message: dict[str, Any], path: Any) -> tuple[Any, Any]:
    """The container and key that ``path`` names, which must hold ``null``."""
    problem = FrameError(f"failed to decode code-mode IPC frame: bad {RAW_MEMBER} path {path!r}")
    if path.__class__ is not list or not path:
        raise problem
    container: Any = message
    for step in path[:-1]:
        container = _child(container, step, problem)
    key = path[-1]
    _child(container, key, problem)
    if container[key] is not None:
        raise problem
    return container, key


def _child(container: Any, step: Any, problem: Exception) -> Any:
    if container.__class__ is dict and step.__class__ is str and step in container:
        return container[step]
    if container.__class__ is list and step.__class__ is int and 0 <= step < len(container):
        return container[step]
    raise problem


__all__ = ["MIN_RAW_CHARS", "RAW_MEMBER", "RAW_TEXT_CAPABILITY", "frames", "put_back", "take_out"]
