"""The client's frames decoded as Codex's host decodes them, with its texts.

Codex's host decodes every client frame with serde into its ``ClientToHost`` enum and ends
the connection when a frame does not match (texts recorded from Codex 0.171's host:
``missing field `tool_name```, ``unknown field `x`, expected `id` or `request```,
``invalid type: string "2", expected i64``, ``at least one protocol version is required``,
``unknown variant `bogus`, expected one of ... at line 1 column 16``).
:func:`decode_client_frame` parses a payload and decodes it with the schema below, built
from :mod:`codemode.wire.serde` (structs in Codex's field order, its type names), and
raises :class:`~codemode.wire.serde.DecodeError` with serde's text: an error in the
top-level tag, or a top-level value that is no message at all, ends with serde_json's
position (``at line L column C``, C counted in bytes).

codemode's protocol extensions are accepted by name but left out of every text (serde's
"expected" lists, variant indexes, a struct's elements), so the texts stay Codex's:
``storedValues`` in ``session/open`` (JSON values seeding the session store), ``cellIdPrefix``
there (what the client puts before the host's cell ids where it shows them), the
``session/storedValues`` message (more values for an open session's store, one a frame:
:mod:`codemode.wire.stored_values`) and the ``session/bindings`` request
(:mod:`codemode.wire.session_bindings`).

JSON syntax errors get serde_json's text where it is plain (``EOF while parsing a value``,
``expected value``, ``expected ident``, ``expected `:```, ``trailing characters``); others
keep Python's wording, and a payload that is not UTF-8 Python's decoder's. serde_json reads
a frame as it decodes it, so an error in the tag comes before a syntax error later in the
frame; here the whole frame is parsed first. A key repeated in an object is not refused
(serde: ``duplicate field `sessionId```): Python's parser keeps the last. A frame that nests
arrays and objects 128 deep is accepted while Python's parser can read it (serde_json refuses
it; refusing would end the connection over a deep tool result); one it cannot read (near a
thousand levels), or with a syntax error after such nesting, gets serde_json's ``recursion limit
exceeded at line L column C`` (:mod:`~codemode.runtime.nesting`).
"""

from __future__ import annotations

import json
import re
from typing import Any, cast

from codemode.runtime import nesting
from codemode.wire.messages import ClientMessage
from codemode.wire.serde import (
    U64_MAX,
    AnyValue,
    DecodeError,
    Field,
    Integer,
    JsonMap,
    Optional,
    Seq,
    Struct,
    Tagged,
    Text,
    UnitEnum,
    invalid_type,
    is_integer,
)
from codemode.wire.session_bindings import MAX_BINDINGS_TIMEOUT_MS, MAX_PATH_LENGTH

U64 = Integer("u64", 0, U64_MAX)
USIZE = Integer("usize", 0, U64_MAX)
I64 = Integer("i64", -(2**63), 2**63 - 1)
I32 = Integer("i32", -(2**31), 2**31 - 1)
STRING = Text()
IDENTIFIER = Text(empty="identifier must not be empty")
ANY = AnyValue()


def _versions(versions: list[int]) -> None:
    if not versions:
        raise DecodeError("at least one protocol version is required")
    _no_duplicates(versions, "duplicate protocol version {}")


def _capabilities(names: list[str]) -> None:
    _no_duplicates(names, "duplicate capability `{}`")


def _no_duplicates(items: list[Any], text: str) -> None:
    seen: set[Any] = set()
    for item in items:
        if item in seen:
            raise DecodeError(text.format(item))
        seen.add(item)


def _hello(hello: dict[str, Any]) -> None:
    for capability in hello["requiredCapabilities"]:
        if capability in hello["optionalCapabilities"]:
            raise DecodeError(f"capability `{capability}` cannot be both required and optional")


def _path(path: list[str]) -> None:
    if len(path) > MAX_PATH_LENGTH:
        raise DecodeError(f"invalid length {len(path)}, expected at most {MAX_PATH_LENGTH} property names")


HELLO = Struct(
    "struct ClientHelloWire",
    [
        Field("supportedVersions", Seq(Integer("a nonzero u32", 1, 2**32 - 1), _versions)),
        Field("requiredCapabilities", Seq(IDENTIFIER, _capabilities)),
        Field("optionalCapabilities", Seq(IDENTIFIER, _capabilities)),
    ],
    _hello,
)
_SESSION_ID = Field("sessionId", IDENTIFIER)
_LIMITS = Struct(
    "struct WireSessionCellExecutionLimits",
    [Field("maxYieldTimeMs", Optional(U64), "default"), Field("maxHeapSizeBytes", Optional(U64), "default")],
)
_TOOL = Struct(
    "struct WireToolDefinition",
    [
        Field("name", STRING),
        Field(
            "tool_name",
            Struct("struct WireToolName", [Field("name", STRING), Field("namespace", Optional(STRING), "option")]),
        ),
        Field("description", STRING),
        Field("kind", UnitEnum(["function", "freeform"])),
        Field("input_schema", Optional(ANY), "option"),
        Field("output_schema", Optional(ANY), "option"),
    ],
)
_EXECUTE = Struct(
    "struct WireExecuteRequest",
    [
        Field("catalog_revision", Optional(U64), "default"),
        Field("tool_call_id", STRING),
        Field("enabled_tools", Seq(_TOOL)),
        Field("source", STRING),
        Field("yield_time_ms", Optional(U64), "option"),
        Field("max_output_tokens", Optional(I32), "option"),
    ],
)
_OUTPUT_TOKENS = Field("maxOutputTokens", Optional(USIZE), "default")
HOST_REQUEST = Tagged(
    "HostRequest",
    "method",
    {
        "session/open": Struct(
            "struct variant HostRequest::OpenSession",
            [
                _SESSION_ID,
                Field("cellExecutionLimits", Optional(_LIMITS), "default"),
                Field("outputTruncation", Optional(UnitEnum(["client", "server"])), "default"),
                Field("storedValues", Optional(JsonMap()), "default", extension=True),
                Field("cellIdPrefix", Optional(STRING), "default", extension=True),
            ],
        ),
        "session/execute": Struct("struct variant HostRequest::Execute", [_SESSION_ID, Field("request", _EXECUTE)]),
        "session/wait": Struct(
            "struct variant HostRequest::Wait",
            [
                _SESSION_ID,
                Field(
                    "request", Struct("struct WireWaitRequest", [Field("cell_id", STRING), Field("yield_time_ms", U64)])
                ),
                _OUTPUT_TOKENS,
            ],
        ),
        "session/terminate": Struct(
            "struct variant HostRequest::Terminate", [_SESSION_ID, Field("cellId", STRING), _OUTPUT_TOKENS]
        ),
        "session/shutdown": Struct("struct variant HostRequest::ShutdownSession", [_SESSION_ID]),
    },
    {
        "session/bindings": Struct(
            "struct variant HostRequest::Bindings",
            [
                _SESSION_ID,
                Field("path", Seq(STRING, _path)),
                Field(
                    "timeoutMs",
                    Optional(Integer(f"at most {MAX_BINDINGS_TIMEOUT_MS}", 0, MAX_BINDINGS_TIMEOUT_MS)),
                    "default",
                ),
            ],
        ),
    },
)
_DELEGATE_VALUE = Tagged(
    "DelegateResponse",
    "type",
    {
        "tool/result": Struct("struct variant DelegateResponse::ToolResult", [Field("result", ANY)]),
        "notification/delivered": None,
    },
)
_WIRE_RESULT = Tagged(
    "WireResult",
    "status",
    {
        "ok": Struct("struct variant WireResult::Ok", [Field("value", _DELEGATE_VALUE)]),
        "error": Struct("struct variant WireResult::Err", [Field("message", STRING)]),
    },
)
CLIENT_TO_HOST = Tagged(
    "ClientToHost",
    "type",
    {
        "connection/hello": HELLO,
        "operation/request": Struct(
            "struct variant ClientToHost::Request", [Field("id", I64), Field("request", HOST_REQUEST)]
        ),
        "operation/cancel": Struct("struct variant ClientToHost::CancelRequest", [Field("id", I64)]),
        "operation/yield": Struct("struct variant ClientToHost::YieldRequest", [Field("id", I64)]),
        "delegate/response": Struct(
            "struct variant ClientToHost::DelegateResponse", [Field("id", I64), Field("result", _WIRE_RESULT)]
        ),
    },
    {
        "session/storedValues": Struct(
            "struct variant ClientToHost::StoredValues", [_SESSION_ID, Field("values", JsonMap())]
        ),
    },
)

_SPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def decode_client_frame(payload: bytes) -> ClientMessage:
    """One client frame's payload decoded into a ``ClientToHost`` message, normalised
    (:mod:`codemode.wire.serde`: a variant named by its index gets its name), typed as the
    message it is (:data:`~codemode.wire.messages.ClientMessage`; a field left out of the frame
    is left out of the message, one sent as ``null`` is ``None``). Raises :class:`DecodeError`
    with serde's text when the payload does not match."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DecodeError(str(exc)) from None
    start = _skip(text, 0)
    try:
        value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as exc:
        raise _too_deep(text, exc.pos) or DecodeError(_syntax(exc, text)) from None
    except RecursionError:
        raise _too_deep(text) or DecodeError("recursion limit exceeded") from None
    message = decode_message(value, text, start, end)
    rest = _skip(text, end)
    if rest < len(text):
        raise DecodeError(f"trailing characters at {_position(text, rest + 1)}")
    return message


def decode_message(value: Any, text: str | None = None, start: int = 0, end: int = 0) -> ClientMessage:
    """``value``, a parsed frame, decoded as a ``ClientToHost`` message. serde_json reads
    the top level itself (the rest from its buffer): with the frame's ``text`` (and the
    value's ``start`` and ``end`` in it), its errors end with their position."""
    top = CLIENT_TO_HOST
    number = isinstance(value, (int, float)) and not isinstance(value, bool) and not is_integer(value)
    if isinstance(value, dict) and top.tag in value or isinstance(value, list) and value:
        tag = value[top.tag] if isinstance(value, dict) else value[0]
        try:
            variant = top.variant(tag, buffered=False)
        except DecodeError as exc:
            if text is None:
                raise
            tag_start, tag_end = _tag_span(text, start, top.tag)
            raise _at(exc, text, tag_start if isinstance(tag, (dict, list)) else tag_end) from None
        if isinstance(value, dict):
            decoded = top.decode_variant(variant, {k: v for k, v in value.items() if k != top.tag})
        else:
            decoded = top.decode_variant(variant, value[1:])
        return cast(ClientMessage, decoded)  # CLIENT_TO_HOST has the shape of ClientMessage (test_wire_shapes.py)
    error = top.missing_tag() if isinstance(value, (dict, list)) or number else invalid_type(value, top.expecting)
    raise error if text is None else _at(error, text, end)


def _too_deep(text: str, end: int | None = None) -> DecodeError | None:
    """serde_json's recursion limit error for ``text`` (:mod:`~codemode.runtime.nesting`), when
    a container nests too deep before ``end``; None otherwise."""
    index = nesting.first_too_deep(text, end)
    return None if index is None else DecodeError(f"recursion limit exceeded at {_position(text, index + 1)}")


def _at(error: DecodeError, text: str, offset: int) -> DecodeError:
    return DecodeError(f"{error} at {_position(text, offset)}")


def _position(text: str, offset: int) -> str:
    """serde_json's position after reading ``text[:offset]``: ``line L column C`` (bytes)."""
    line_start = text.rfind("\n", 0, offset) + 1
    return f"line {text.count(chr(10), 0, line_start) + 1} column {len(text[line_start:offset].encode())}"


def _skip(text: str, index: int) -> int:
    match = _SPACE.match(text, index)
    assert match is not None
    return match.end()


def _tag_span(text: str, start: int, tag: str) -> tuple[int, int]:
    """Where the value of the first member ``tag`` of the object at ``start`` lies (or the
    first element of the array there), in a text that parsed."""
    index = _skip(text, start + 1)
    if text[start] == "[":
        return index, _DECODER.raw_decode(text, index)[1]
    while True:
        name, index = _DECODER.raw_decode(text, index)
        index = _skip(text, _skip(text, index) + 1)
        end = _DECODER.raw_decode(text, index)[1]
        if name == tag:
            return index, end
        index = _skip(text, _skip(text, end) + 1)


def _syntax(exc: json.JSONDecodeError, text: str) -> str:
    """serde_json's text for a JSON syntax error, where it maps plainly; else Python's."""
    pos = exc.pos
    if exc.msg == "Expecting ':' delimiter" and pos < len(text):
        return f"expected `:` at {_position(text, pos + 1)}"
    if exc.msg != "Expecting value":
        return str(exc)
    if pos >= len(text):
        return f"EOF while parsing a value at {_position(text, len(text))}"
    for literal in ("null", "true", "false"):
        if text[pos] == literal[0]:
            for offset, char in enumerate(literal):
                if pos + offset >= len(text):
                    return f"EOF while parsing a value at {_position(text, len(text))}"
                if text[pos + offset] != char:
                    return f"expected ident at {_position(text, pos + offset + 1)}"
    if text[pos] in "-0123456789]}":
        return str(exc)
    return f"expected value at {_position(text, pos + 1)}"


__all__ = ["CLIENT_TO_HOST", "DecodeError", "HELLO", "HOST_REQUEST", "decode_client_frame", "decode_message"]
