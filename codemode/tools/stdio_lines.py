"""The lines of an MCP stdio connection: splitting, reading, repairing, and writing them.

Reading (:class:`LineReader`): each line is first parsed as the MCP SDK parses it (its
``jsonrpc_message_adapter``, pydantic's JSON parser). When that fails:

- *repair*: if Python's ``json`` parser reads the line, its strings (keys included) have every
  lone surrogate replaced by U+FFFD and the result is validated again; when that passes, the
  repaired message is delivered (a warning says so). This is the case of the JSON escape of a
  lone surrogate (``"\\ud83d"``), which Node's ``JSON.stringify`` writes for an emoji cut in
  half and pydantic's parser rejects: the meaning is clear, only the broken character is lost.
- *fail the request at once*: otherwise the line cannot be read. When it answers a request of
  ours - the ``id`` of a JSON object without ``method``, or, for a line that is not JSON, the
  one request still awaiting an answer whose id appears as an ``"id"`` member in the text -
  a JSON-RPC error response for that id is delivered in its place (code ``PARSE_ERROR``,
  message naming the problem and quoting the start of the line, ``data``
  :data:`UNREADABLE_LINE`), so the call fails now instead of waiting for its
  ``tool_timeout_sec``. The server's other calls go on.
- *otherwise* the line is logged (warning) and handed on as the parse error, as the SDK does
  (its session logs and drops it).

Lines that are not valid UTF-8 are decoded with the connection's error handler (the SDK's
``encoding_error_handler``, ``strict`` by default: such a line cannot be read, and its call
fails as above).

Writing (:func:`encode_message`): a message becomes one UTF-8 line; lone surrogates in its
strings (a JS caller's arguments may hold them) become U+FFFD, since the MCP stdio transport
requires UTF-8 and the SDK's serializer refuses them.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

import mcp_types
import pydantic
import pydantic_core
from mcp.shared.message import SessionMessage

logger = logging.getLogger(__name__)

UNREADABLE_LINE = {"codemode": "unreadable line"}
"""The ``data`` of the error response that stands for an answer that could not be read."""

UNWRITABLE_REQUEST = {"codemode": "unwritable request"}
"""The ``data`` of the error response that stands for a request that could not be written."""

QUOTED_CHARS = 80
"""How many characters of an unreadable line its error quotes."""

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_ID_MEMBER = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


class LineSplitter:
    """Splits a byte stream into ``\\n``-terminated lines in time linear in its length.

    :meth:`feed` takes the next chunk (any split, even inside a multi-byte character: ``\\n``
    never occurs inside a UTF-8 sequence) and returns the lines it completes, without their
    ``\\n``. Bytes after the last ``\\n`` are kept as pieces and joined once, when the line
    ends. :attr:`pending_bytes` is the size of the unfinished line.
    """

    def __init__(self) -> None:
        self._pieces: list[bytes] = []
        self.pending_bytes = 0

    def feed(self, chunk: bytes) -> list[bytes]:
        """Add ``chunk``; return the lines completed by it (possibly none)."""
        if b"\n" not in chunk:
            if chunk:
                self._pieces.append(chunk)
                self.pending_bytes += len(chunk)
            return []
        parts = chunk.split(b"\n")
        if self._pieces:
            self._pieces.append(parts[0])
            parts[0] = b"".join(self._pieces)
            self._pieces = []
        rest = parts.pop()
        self.pending_bytes = len(rest)
        if rest:
            self._pieces.append(rest)
        return parts


def replace_lone_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` (JSON-like: dicts, lists, strings, scalars) with every lone surrogate in its
    strings, keys included, replaced by U+FFFD; and how many were replaced."""
    count = 0

    def fix(item: Any) -> Any:
        nonlocal count
        if isinstance(item, str):
            fixed, n = _LONE_SURROGATE.subn("\ufffd", item)
            count += n
            return fixed
        if isinstance(item, dict):
            return {fix(k): fix(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [fix(v) for v in item]
        return item

    return fix(value), count


def encode_message(message: Any) -> bytes:
    """One JSON-RPC message (an ``mcp_types`` model) as a UTF-8 line ending in ``\\n``, as the
    SDK writes it (aliases, unset fields left out); lone surrogates become U+FFFD."""
    try:
        text = message.model_dump_json(by_alias=True, exclude_unset=True)
    except pydantic_core.PydanticSerializationError:
        data, _ = replace_lone_surrogates(message.model_dump(by_alias=True, exclude_unset=True))
        return pydantic_core.to_json(data) + b"\n"
    return text.encode("utf-8") + b"\n"


def _request_key(request_id: Any) -> str | None:
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    return str(request_id)


class LineReader:
    """Reads the server's lines into what the SDK's session reads (see the module docstring).

    ``decode_errors`` is the UTF-8 error handler. Call :meth:`sent` with each message written
    to the server, so the reader knows which requests await an answer.
    """

    def __init__(self, decode_errors: str = "strict") -> None:
        self.decode_errors = decode_errors
        self._awaiting: dict[str, Any] = {}

    @property
    def awaiting(self) -> list[Any]:
        """Ids of our requests that have no answer yet."""
        return list(self._awaiting.values())

    def sent(self, message: Any) -> None:
        """Note a message written to the server (a request now awaits its answer; a
        cancellation ends the wait)."""
        if isinstance(message, mcp_types.JSONRPCRequest):
            key = _request_key(message.id)
            if key is not None:
                self._awaiting[key] = message.id
        elif isinstance(message, mcp_types.JSONRPCNotification) and message.method == "notifications/cancelled":
            params = message.params or {}
            key = _request_key(params.get("requestId"))
            if key is not None:
                self._awaiting.pop(key, None)

    def read(self, line: bytes) -> SessionMessage | Exception:
        """The message of one non-blank line: the SDK's parse, a repaired message, an error
        response standing for an unreadable answer, or the parse error."""
        try:
            data: bytes | str = line if self.decode_errors == "strict" else line.decode("utf-8", self.decode_errors)
            message = mcp_types.jsonrpc_message_adapter.validate_json(data, by_name=False)
        except ValueError as exc:
            return self._unreadable(line, exc)
        return self._deliver(message)

    def _deliver(self, message: Any) -> SessionMessage:
        if isinstance(message, (mcp_types.JSONRPCResponse, mcp_types.JSONRPCError)):
            key = _request_key(message.id)
            if key is not None:
                self._awaiting.pop(key, None)
        return SessionMessage(message)

    def _unreadable(self, line: bytes, parse_error: ValueError) -> SessionMessage | Exception:
        try:
            text = line.decode("utf-8", self.decode_errors)
            problem = None
        except UnicodeDecodeError as exc:
            text = line.decode("utf-8", "replace")
            problem = f"it is not valid UTF-8 (byte 0x{line[exc.start]:02x} at offset {exc.start})"
        bad_json: json.JSONDecodeError | None = None
        value: Any = None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            bad_json = exc
        except RecursionError:
            problem = problem or "it is nested too deeply to be read"
        if problem is None and bad_json is None:
            repaired, count = replace_lone_surrogates(value)
            try:
                message = mcp_types.jsonrpc_message_adapter.validate_python(repaired, by_name=False)
            except pydantic.ValidationError:
                problem = "it is not a JSON-RPC message (a request, notification, result or error)"
            else:
                if count:
                    logger.warning(
                        "an MCP server wrote %d lone surrogate(s) (half of a character, as Node writes a cut "
                        "emoji); each was replaced by U+FFFD",
                        count,
                    )
                return self._deliver(message)
        if problem is None and bad_json is not None:
            problem = f"it is not JSON ({bad_json.msg} at column {bad_json.colno})"
        request_id = self._answered_id(line, value)
        quote = text[:QUOTED_CHARS] + ("…" if len(text) > QUOTED_CHARS else "")
        detail = f"{problem or 'it cannot be read'}; the line starts with `{quote}`"
        if request_id is None:
            logger.warning("an MCP server wrote a line that cannot be read and answers no request: %s", detail)
            return parse_error
        logger.warning("an MCP server answered request %r with a line that cannot be read: %s", request_id, detail)
        error = mcp_types.ErrorData(code=mcp_types.PARSE_ERROR, message=detail, data=dict(UNREADABLE_LINE))
        return self._deliver(mcp_types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))

    def _answered_id(self, line: bytes, value: Any) -> Any:
        """The id of the request an unreadable line answers, or None when it cannot be told."""
        if isinstance(value, dict):
            if "method" in value:
                return None  # a request or notification of the server's, not an answer
            key = _request_key(value.get("id"))
            return None if key is None else self._awaiting.get(key, value["id"])
        found = set()
        for match in _ID_MEMBER.finditer(line):
            try:
                key = _request_key(json.loads(match.group(1)))
            except ValueError:
                continue
            if key in self._awaiting:
                found.add(key)
        return self._awaiting[found.pop()] if len(found) == 1 else None
