"""What the client sends: requests, their method bodies, controls, delegate answers."""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias

from codemode.wire.handshake import Hello
from codemode.wire.host_messages import DelegateResult, StoredValues
from codemode.wire.results import JsonValue
from codemode.wire.session_bindings import BindingsBody
from codemode.wire.typeddict import TypedDict

# -- client to host -----------------------------------------------------------------------------

MAX_EXECUTE_OUTPUT_TOKENS = 2**31 - 1
"""The largest ``max_output_tokens`` of an execute request: Codex's host decodes it as an
``i32`` and ends the connection on a larger one (``expected i32``)."""


OutputTruncation: TypeAlias = Literal["client", "server"]
"""Who truncates a cell's output: the client (Codex's default) or the host."""


class CellExecutionLimits(TypedDict):
    maxYieldTimeMs: NotRequired[int | None]
    maxHeapSizeBytes: NotRequired[int | None]


class OpenBody(TypedDict):
    method: Literal["session/open"]
    sessionId: str
    cellExecutionLimits: NotRequired[CellExecutionLimits | None]
    outputTruncation: NotRequired[OutputTruncation | None]
    storedValues: NotRequired[dict[str, JsonValue] | None]
    cellIdPrefix: NotRequired[str | None]


class ToolName(TypedDict):
    name: str
    namespace: NotRequired[str | None]


class ToolDefinition(TypedDict):
    name: str
    tool_name: ToolName
    description: str
    kind: Literal["function", "freeform"]
    input_schema: NotRequired[JsonValue | None]
    output_schema: NotRequired[JsonValue | None]


class ExecuteRequest(TypedDict):
    catalog_revision: NotRequired[int | None]
    tool_call_id: str
    enabled_tools: list[ToolDefinition] | list[dict[str, Any]]
    source: str
    yield_time_ms: NotRequired[int | None]
    max_output_tokens: NotRequired[int | None]


class ExecuteBody(TypedDict):
    method: Literal["session/execute"]
    sessionId: str
    request: ExecuteRequest


class WaitRequest(TypedDict):
    cell_id: str
    yield_time_ms: int


class WaitBody(TypedDict):
    method: Literal["session/wait"]
    sessionId: str
    request: WaitRequest
    maxOutputTokens: NotRequired[int | None]


class TerminateBody(TypedDict):
    method: Literal["session/terminate"]
    sessionId: str
    cellId: str
    maxOutputTokens: NotRequired[int | None]


class ShutdownBody(TypedDict):
    method: Literal["session/shutdown"]
    sessionId: str


RequestBody: TypeAlias = OpenBody | ExecuteBody | WaitBody | TerminateBody | ShutdownBody | BindingsBody


class OperationRequest(TypedDict):
    type: Literal["operation/request"]
    id: int
    request: RequestBody


class OperationControl(TypedDict):
    type: Literal["operation/yield", "operation/cancel"]
    id: int


class DelegateResponse(TypedDict):
    type: Literal["delegate/response"]
    id: int
    result: DelegateResult


ClientMessage: TypeAlias = Hello | OperationRequest | OperationControl | DelegateResponse | StoredValues
"""Every message the client sends, as the host's decoder returns it
(:func:`codemode.runtime.validate.decode_client_frame`); ``type`` tells them apart."""


def open_body(
    session_id: str,
    *,
    limits: CellExecutionLimits | None = None,
    output_truncation: OutputTruncation | None = None,
    stored_values: dict[str, JsonValue] | None = None,
    cell_id_prefix: str | None = None,
) -> OpenBody:
    """``session/open``; empty/``None`` options are left out (``storedValues`` and
    ``cellIdPrefix`` are codemode's extensions, which Codex's host rejects as unknown fields).
    ``storedValues`` present, even empty, makes the host report what cells store; codemode's
    client sends it empty and the values after it (:mod:`codemode.wire.stored_values`).
    ``cell_id_prefix``: what the client puts before the host's cell ids where it shows them
    (``g<generation>:`` after a host was replaced), so a text of the host naming another cell
    names it as the user knows it."""
    body: OpenBody = {"method": "session/open", "sessionId": session_id}
    if limits:
        body["cellExecutionLimits"] = limits
    if output_truncation is not None:
        body["outputTruncation"] = output_truncation
    if stored_values is not None:
        body["storedValues"] = stored_values
    if cell_id_prefix is not None:
        body["cellIdPrefix"] = cell_id_prefix
    return body


def execute_request(
    tool_call_id: str,
    enabled_tools: list[dict[str, Any]],
    source: str,
    yield_time_ms: int | None,
    max_output_tokens: int | None,
) -> ExecuteRequest:
    """The body of ``session/execute``; a ``max_output_tokens`` past
    :data:`MAX_EXECUTE_OUTPUT_TOKENS` (a pragma may ask up to 2**53 - 1) is sent as that
    largest value, which no output reaches."""
    if max_output_tokens is not None:
        max_output_tokens = min(max_output_tokens, MAX_EXECUTE_OUTPUT_TOKENS)
    return {
        "tool_call_id": tool_call_id,
        "enabled_tools": enabled_tools,
        "source": source,
        "yield_time_ms": yield_time_ms,
        "max_output_tokens": max_output_tokens,
    }


def execute_body(session_id: str, request: ExecuteRequest) -> ExecuteBody:
    return {"method": "session/execute", "sessionId": session_id, "request": request}


def wait_body(session_id: str, cell_id: str, yield_time_ms: int, max_output_tokens: int | None = None) -> WaitBody:
    body: WaitBody = {
        "method": "session/wait",
        "sessionId": session_id,
        "request": {"cell_id": cell_id, "yield_time_ms": yield_time_ms},
    }
    if max_output_tokens is not None:
        body["maxOutputTokens"] = max_output_tokens
    return body


def terminate_body(session_id: str, cell_id: str, max_output_tokens: int | None = None) -> TerminateBody:
    body: TerminateBody = {"method": "session/terminate", "sessionId": session_id, "cellId": cell_id}
    if max_output_tokens is not None:
        body["maxOutputTokens"] = max_output_tokens
    return body


def shutdown_body(session_id: str) -> ShutdownBody:
    return {"method": "session/shutdown", "sessionId": session_id}


def operation_request(request_id: int, body: RequestBody) -> OperationRequest:
    return {"type": "operation/request", "id": request_id, "request": body}


def operation_yield(request_id: int) -> OperationControl:
    """Ask the host to answer request ``request_id`` (an execute or a wait) with ``Yielded`` now."""
    return {"type": "operation/yield", "id": request_id}


def operation_cancel(request_id: int) -> OperationControl:
    """Withdraw request ``request_id`` (a wait is answered ``code-mode request cancelled``)."""
    return {"type": "operation/cancel", "id": request_id}


def delegate_response(delegate_id: int, result: DelegateResult) -> DelegateResponse:
    return {"type": "delegate/response", "id": delegate_id, "result": result}


__all__ = [
    "MAX_EXECUTE_OUTPUT_TOKENS",
    "CellExecutionLimits",
    "ClientMessage",
    "DelegateResponse",
    "ExecuteBody",
    "ExecuteRequest",
    "OpenBody",
    "OperationControl",
    "OperationRequest",
    "OutputTruncation",
    "RequestBody",
    "ShutdownBody",
    "TerminateBody",
    "ToolDefinition",
    "ToolName",
    "WaitBody",
    "WaitRequest",
    "delegate_response",
    "execute_body",
    "execute_request",
    "open_body",
    "operation_cancel",
    "operation_request",
    "operation_yield",
    "shutdown_body",
    "terminate_body",
    "wait_body",
]
