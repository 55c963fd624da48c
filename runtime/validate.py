"""Schema checks for client requests, with serde-like messages.

Codex's host sets ``deny_unknown_fields`` everywhere and ends the connection when a
frame does not match its schema (as recorded from Codex 0.171's host:
``failed to decode code-mode IPC frame: identifier must not be empty``,
``unknown field `cellId`, expected `sessionId` or `request` ``). :func:`validate_request`
raises :class:`~codemode.runtime.errors.FatalConnectionError` with such a text.

``session/open`` also accepts ``storedValues`` (the codemode protocol extension: an
object of JSON values seeding the session store; Codex's host would reject it), and
``session/bindings`` is codemode's (:mod:`codemode.messages.bindings`).
"""

from __future__ import annotations

import json
from typing import Any

from codemode.messages.bindings import MAX_BINDINGS_TIMEOUT_MS, MAX_PATH_LENGTH

from .errors import FatalConnectionError

_PREFIX = "failed to decode code-mode IPC frame: "

_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # method: (required, optional)
    "session/open": (("sessionId",), ("cellExecutionLimits", "outputTruncation", "storedValues")),
    "session/execute": (("sessionId", "request"), ()),
    "session/wait": (("sessionId", "request"), ("maxOutputTokens",)),
    "session/terminate": (("sessionId", "cellId"), ("maxOutputTokens",)),
    "session/shutdown": (("sessionId",), ()),
    "session/bindings": (("sessionId", "path"), ("timeoutMs",)),
}
_EXECUTE = (("tool_call_id", "enabled_tools", "source"), ("yield_time_ms", "max_output_tokens", "catalog_revision"))
_WAIT = (("cell_id", "yield_time_ms"), ())
_LIMITS = ((), ("maxYieldTimeMs", "maxHeapSizeBytes"))


def _fatal(message: str) -> Exception:
    return FatalConnectionError(_PREFIX + message)


def _expected(names: tuple[str, ...]) -> str:
    quoted = [f"`{n}`" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} or {quoted[1]}"
    return "one of " + ", ".join(quoted)


def _check_fields(obj: Any, spec: tuple[tuple[str, ...], tuple[str, ...]], ignore: tuple[str, ...] = ()) -> None:
    required, optional = spec
    if not isinstance(obj, dict):
        raise _fatal(f"invalid type: expected struct with fields {_expected(required + optional)}")
    allowed = required + optional
    for key in obj:
        if key in ignore:
            continue
        if key not in allowed:
            raise _fatal(f"unknown field `{key}`, expected {_expected(allowed)}")
    for key in required:
        if key not in obj:
            raise _fatal(f"missing field `{key}`")


def _uint(value: Any, name: str, nullable: bool = True) -> None:
    if value is None and nullable:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _fatal(f"invalid value for `{name}`: expected u64")


def _identifier(value: Any) -> None:
    if not isinstance(value, str):
        raise _fatal("invalid type: expected a string identifier")
    if not value:
        raise _fatal("identifier must not be empty")


def validate_request(request: Any) -> None:
    """Check one ``operation/request`` body; raises ``FatalConnectionError`` when invalid."""
    if not isinstance(request, dict) or not isinstance(request.get("method"), str):
        raise _fatal("missing field `method`")
    method = request["method"]
    spec = _FIELDS.get(method)
    if spec is None:
        raise _fatal(f"unknown variant `{method}`, expected {_expected(tuple(_FIELDS))}")
    _check_fields(request, spec, ignore=("method",))
    _identifier(request["sessionId"])
    if method == "session/open":
        limits = request.get("cellExecutionLimits")
        if limits is not None:
            _check_fields(limits, _LIMITS)
            _uint(limits.get("maxYieldTimeMs"), "maxYieldTimeMs")
            _uint(limits.get("maxHeapSizeBytes"), "maxHeapSizeBytes")
        truncation = request.get("outputTruncation")
        if truncation is not None and truncation not in ("client", "server"):
            raise _fatal(f"unknown variant `{truncation}`, expected `client` or `server`")
        stored = request.get("storedValues")
        if stored is not None and not isinstance(stored, dict):
            raise _fatal("invalid type: `storedValues` must be an object")
    elif method == "session/execute":
        body = request["request"]
        _check_fields(body, _EXECUTE)
        if not isinstance(body["source"], str):
            raise _fatal("invalid type: `source` must be a string")
        if not isinstance(body["enabled_tools"], list):
            raise _fatal("invalid type: `enabled_tools` must be a sequence")
        _uint(body.get("yield_time_ms"), "yield_time_ms")
        _uint(body.get("max_output_tokens"), "max_output_tokens")
    elif method == "session/wait":
        body = request["request"]
        _check_fields(body, _WAIT)
        _uint(body["yield_time_ms"], "yield_time_ms", nullable=False)
        _uint(request.get("maxOutputTokens"), "maxOutputTokens")
    elif method == "session/terminate":
        _uint(request.get("maxOutputTokens"), "maxOutputTokens")
    elif method == "session/bindings":
        path = request["path"]
        if not isinstance(path, list) or not all(isinstance(p, str) for p in path) or len(path) > MAX_PATH_LENGTH:
            raise _fatal(f"invalid type: `path` must be a sequence of at most {MAX_PATH_LENGTH} strings")
        _uint(request.get("timeoutMs"), "timeoutMs")
        if (request.get("timeoutMs") or 0) > MAX_BINDINGS_TIMEOUT_MS:
            raise _fatal(f"invalid value for `timeoutMs`: at most {MAX_BINDINGS_TIMEOUT_MS}")


def validate_delegate_response(message: dict[str, Any]) -> None:
    """Schema of ``delegate/response`` (fatal when violated, like Codex's serde decoding)."""
    delegate_id = message.get("id")
    if not isinstance(delegate_id, int) or isinstance(delegate_id, bool):
        raise _fatal("invalid type: expected u64 `id`")
    result = message.get("result")
    if not isinstance(result, dict):
        raise _fatal("missing field `result`")
    status = result.get("status")
    if status == "error":
        if not isinstance(result.get("message"), str):
            raise _fatal(
                f"invalid type: {type(result.get('message')).__name__} "
                f"`{json.dumps(result.get('message'))}`, expected a string"
            )
    elif status == "ok":
        if not isinstance(result.get("value"), dict):
            raise _fatal("missing field `value`")
    else:
        raise _fatal(f"unknown variant `{status}`, expected `ok` or `error`")


def hello_problem(versions: Any, required: Any, optional: Any) -> str | None:
    """Codex's hello validation texts (``connection/rejected`` ``invalidHello`` messages), or None when the hello is valid."""
    if not isinstance(versions, list) or not versions:
        return "at least one protocol version is required"
    seen: set[Any] = set()
    for version in versions:
        if version in seen:
            return f"duplicate protocol version {version}"
        seen.add(version)
    for group in (required, optional):
        if not isinstance(group, list):
            return "capabilities must be a list of strings"
        names: set[str] = set()
        for capability in group:
            if not isinstance(capability, str) or not capability:
                return "capability names must be non-empty strings"
            if capability in names:
                return f"duplicate capability `{capability}`"
            names.add(capability)
    for capability in required:
        if capability in optional:
            return f"capability `{capability}` cannot be both required and optional"
    return None
