"""Results, content items, runtime responses and wait outcomes (both directions)."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, cast

from codemode.wire.typeddict import TypedDict

JsonValue: TypeAlias = Any
"""Any JSON value (tool inputs and results, stored values)."""


class MessageError(ValueError):
    """A message from the other side does not have the shape of the protocol; ``str(e)`` says
    which message and what was wrong (the connection that received it usually fails with it)."""


# -- results ------------------------------------------------------------------------------------


class OkResult(TypedDict):
    status: Literal["ok"]
    value: JsonValue


class ErrorResult(TypedDict):
    status: Literal["error"]
    message: str


WireResult: TypeAlias = OkResult | ErrorResult


def ok(value: JsonValue) -> OkResult:
    """A successful ``result`` object: ``{"status": "ok", "value": value}``."""
    return {"status": "ok", "value": value}


def error(message: str) -> ErrorResult:
    """A failed ``result`` object: ``{"status": "error", "message": message}``."""
    return {"status": "error", "message": message}


# -- content items and runtime responses --------------------------------------------------------


class InputText(TypedDict):
    type: Literal["input_text"]
    text: str


class InputImage(TypedDict):
    type: Literal["input_image"]
    image_url: str
    detail: NotRequired[str | None]


class InputAudio(TypedDict):
    type: Literal["input_audio"]
    audio_url: str


ContentItem: TypeAlias = dict[str, Any]
"""One content item as it travels: :class:`InputText`, :class:`InputImage` or
:class:`InputAudio` (kept as a plain dict: the host may add fields a client passes on)."""


def input_text(text: str) -> InputText:
    return {"type": "input_text", "text": text}


def input_image(image_url: str, detail: str | None = None) -> InputImage:
    return {"type": "input_image", "image_url": image_url, "detail": detail}


def input_audio(audio_url: str) -> InputAudio:
    return {"type": "input_audio", "audio_url": audio_url}


class ResponseBody(TypedDict):
    """The body of a runtime response; ``error_text`` only in ``Result``; the ``*_ns`` timing
    fields are informative."""

    cell_id: str
    content_items: list[ContentItem]
    error_text: NotRequired[str | None]
    code_mode_host_duration_ns: NotRequired[int]
    result_buffered_for_ns: NotRequired[int]


ResponseKind = Literal["Yielded", "Terminated", "Result"]
RESPONSE_KINDS: tuple[ResponseKind, ...] = ("Yielded", "Terminated", "Result")
WireRuntimeResponse: TypeAlias = dict[str, ResponseBody]
"""Externally tagged: exactly one key, ``Yielded``, ``Terminated`` or ``Result``."""
WireWaitOutcome: TypeAlias = dict[str, WireRuntimeResponse]
"""Externally tagged: exactly one key, ``LiveCell`` or ``MissingCell``."""


def _body(cell_id: str, items: list[ContentItem], timing: dict[str, int]) -> ResponseBody:
    body: ResponseBody = {"cell_id": cell_id, "content_items": items}
    body.update(timing)  # type: ignore[typeddict-item]
    return body


def yielded(cell_id: str, items: list[ContentItem], **timing: int) -> WireRuntimeResponse:
    """``{"Yielded": {...}}``: the cell is still running."""
    return {"Yielded": _body(cell_id, items, timing)}


def terminated(cell_id: str, items: list[ContentItem], **timing: int) -> WireRuntimeResponse:
    """``{"Terminated": {...}}``: the cell was stopped."""
    return {"Terminated": _body(cell_id, items, timing)}


def result(cell_id: str, items: list[ContentItem], error_text: str | None, **timing: int) -> WireRuntimeResponse:
    """``{"Result": {...}}``: the cell finished; ``error_text`` is set when it failed."""
    body = _body(cell_id, items, {})
    body["error_text"] = error_text
    body.update(timing)  # type: ignore[typeddict-item]
    return {"Result": body}


def live_cell(response: WireRuntimeResponse) -> WireWaitOutcome:
    return {"LiveCell": response}


def missing_cell(cell_id: str) -> WireWaitOutcome:
    """The answer for an id that names no live cell: ``MissingCell`` + ``Result`` with
    ``error_text`` ``exec cell <id> not found`` (Codex's text)."""
    return {"MissingCell": result(cell_id, [], f"exec cell {cell_id} not found")}


def parse_runtime_response(wire: Any) -> tuple[ResponseKind, ResponseBody]:
    """Check an externally tagged runtime response; returns its kind and body.

    Raises :class:`MessageError` (``invalid runtime response: …``) when ``wire`` is not exactly
    one known tag, or its body lacks a string ``cell_id``, has ``content_items`` that are not a
    list of objects with a string ``type``, or an ``error_text`` neither a string nor null.
    Unknown body fields (such as ``code_mode_host_duration_ns``) are kept.
    """
    if not isinstance(wire, dict) or len(wire) != 1:
        raise MessageError(f"invalid runtime response: {wire!r}")
    ((kind, body),) = wire.items()
    if kind not in RESPONSE_KINDS or not isinstance(body, dict):
        raise MessageError(f"invalid runtime response: {wire!r}")
    cell_id = body.get("cell_id")
    items = body.get("content_items", [])
    error_text = body.get("error_text")
    if not isinstance(cell_id, str):
        raise MessageError(f"invalid runtime response: cell_id must be a string, got {cell_id!r}")
    if not isinstance(items, list) or not all(
        isinstance(item, dict) and isinstance(item.get("type"), str) for item in items
    ):
        raise MessageError(f"invalid runtime response: bad content_items {items!r}")
    if error_text is not None and not isinstance(error_text, str):
        raise MessageError(f"invalid runtime response: error_text must be a string, got {error_text!r}")
    return cast(ResponseKind, kind), cast(ResponseBody, body)


def parse_wait_outcome(wire: Any) -> tuple[bool, tuple[ResponseKind, ResponseBody]]:
    """Check ``{"LiveCell": <response>}`` / ``{"MissingCell": <response>}``; returns whether the
    cell was live and the parsed response. Raises :class:`MessageError`."""
    if not isinstance(wire, dict) or len(wire) != 1:
        raise MessageError(f"invalid wait outcome: {wire!r}")
    ((tag, body),) = wire.items()
    if tag not in ("LiveCell", "MissingCell"):
        raise MessageError(f"invalid wait outcome: {wire!r}")
    return tag == "LiveCell", parse_runtime_response(body)


__all__ = [
    "ContentItem",
    "ErrorResult",
    "InputAudio",
    "InputImage",
    "InputText",
    "JsonValue",
    "MessageError",
    "OkResult",
    "RESPONSE_KINDS",
    "ResponseBody",
    "ResponseKind",
    "WireResult",
    "WireRuntimeResponse",
    "WireWaitOutcome",
    "error",
    "input_audio",
    "input_image",
    "input_text",
    "live_cell",
    "missing_cell",
    "ok",
    "parse_runtime_response",
    "parse_wait_outcome",
    "result",
    "terminated",
    "yielded",
]
