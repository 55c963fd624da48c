"""What the host sends: answers, initial responses, delegate requests and notices."""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias

from codemode.wire.handshake import Ready, Rejected
from codemode.wire.results import ErrorResult, JsonValue, WireResult, WireWaitOutcome
from codemode.wire.typeddict import TypedDict

# -- host to client -----------------------------------------------------------------------------


class SessionReady(TypedDict):
    type: Literal["session/ready"]
    sessionId: str


class ExecutionStarted(TypedDict):
    type: Literal["execution/started"]
    cellId: str


class WaitCompleted(TypedDict):
    type: Literal["wait/completed"]
    outcome: WireWaitOutcome


class SessionClosed(TypedDict):
    type: Literal["session/closed"]
    sessionId: str


class ToolResultValue(TypedDict):
    type: Literal["tool/result"]
    result: JsonValue


class NotificationDelivered(TypedDict):
    type: Literal["notification/delivered"]


class DelegateOk(TypedDict):
    status: Literal["ok"]
    value: ToolResultValue | NotificationDelivered


DelegateResult: TypeAlias = DelegateOk | ErrorResult
"""The ``result`` of the client's ``delegate/response`` (:func:`tool_result`,
:func:`notification_delivered` or :func:`~codemode.wire.results.error`): Codex's
``WireResult<DelegateResponse>``."""


def session_ready(session_id: str) -> SessionReady:
    return {"type": "session/ready", "sessionId": session_id}


def execution_started(cell_id: str) -> ExecutionStarted:
    return {"type": "execution/started", "cellId": cell_id}


def wait_completed(outcome: WireWaitOutcome) -> WaitCompleted:
    return {"type": "wait/completed", "outcome": outcome}


def session_closed(session_id: str) -> SessionClosed:
    return {"type": "session/closed", "sessionId": session_id}


def tool_result(value: JsonValue) -> DelegateOk:
    """The successful answer to a ``tool/invoke`` delegate request."""
    return {"status": "ok", "value": {"type": "tool/result", "result": value}}


def notification_delivered() -> DelegateOk:
    """The successful answer to a ``notification/send`` delegate request."""
    return {"status": "ok", "value": {"type": "notification/delivered"}}


class OperationResponse(TypedDict):
    type: Literal["operation/response"]
    id: int
    result: WireResult


class InitialResponse(TypedDict):
    type: Literal["execute/initialResponse"]
    id: int
    result: WireResult


class ToolInvocation(TypedDict):
    cell_id: str
    via_ended_cell: NotRequired[str]
    """The notebook realm's: the ended cell whose helper made the call (a function that cell
    declared, called by the code of some running cell); the call acts for ``cell_id``."""
    runtime_tool_call_id: str
    tool_name: dict[str, str | None]
    tool_kind: str
    input: JsonValue


class ToolInvoke(TypedDict):
    type: Literal["tool/invoke"]
    invocation: ToolInvocation


class NotificationSend(TypedDict):
    type: Literal["notification/send"]
    callId: str
    cellId: str
    text: str


class DelegateRequest(TypedDict):
    type: Literal["delegate/request"]
    id: int
    sessionId: str
    request: ToolInvoke | NotificationSend


class DelegateCancel(TypedDict):
    type: Literal["delegate/cancel"]
    id: int


class CellClosed(TypedDict):
    type: Literal["cell/closed"]
    sessionId: str
    cellId: str


class StoredValues(TypedDict):
    type: Literal["session/storedValues"]
    sessionId: str
    values: dict[str, JsonValue]


class HostExiting(TypedDict):
    type: Literal["host/exiting"]
    reason: str


def operation_response(request_id: int, result: WireResult) -> OperationResponse:
    return {"type": "operation/response", "id": request_id, "result": result}


def initial_response(request_id: int, result: WireResult) -> InitialResponse:
    return {"type": "execute/initialResponse", "id": request_id, "result": result}


def tool_invoke(delegate_id: int, session_id: str, invocation: ToolInvocation) -> DelegateRequest:
    return {
        "type": "delegate/request",
        "id": delegate_id,
        "sessionId": session_id,
        "request": {"type": "tool/invoke", "invocation": invocation},
    }


def notification_send(delegate_id: int, session_id: str, tool_call_id: str, cell_id: str, text: str) -> DelegateRequest:
    return {
        "type": "delegate/request",
        "id": delegate_id,
        "sessionId": session_id,
        "request": {"type": "notification/send", "callId": tool_call_id, "cellId": cell_id, "text": text},
    }


def delegate_cancel(delegate_id: int) -> DelegateCancel:
    return {"type": "delegate/cancel", "id": delegate_id}


def cell_closed(session_id: str, cell_id: str) -> CellClosed:
    return {"type": "cell/closed", "sessionId": session_id, "cellId": cell_id}


def stored_values(session_id: str, values: dict[str, JsonValue]) -> StoredValues:
    """codemode's extension: a cell of ``session_id`` committed these ``store()`` writes (host
    to client), or values the client kept for a new host's session (client to host, after
    ``session/open``). Both ends send one value a frame, written as text by
    :func:`codemode.wire.stored_values.message_text`, never more than the frame limit allows."""
    return {"type": "session/storedValues", "sessionId": session_id, "values": values}


def host_exiting(reason: str) -> HostExiting:
    """codemode's extension (capability ``codemode-host-exit-notice-v1``): the host exits on its
    own after the answer that follows; ``reason`` says why."""
    return {"type": "host/exiting", "reason": reason}


HostMessage: TypeAlias = (
    OperationResponse | InitialResponse | DelegateRequest | DelegateCancel | CellClosed | StoredValues | HostExiting
)
"""Every message the host sends after the handshake, as the client's decoder returns it
(:func:`codemode.host.incoming.decode`); ``type`` tells them apart."""

HostFrame: TypeAlias = HostMessage | Ready | Rejected
"""Every message the host writes, the handshake's answers included."""

__all__ = [
    "CellClosed",
    "DelegateCancel",
    "DelegateOk",
    "DelegateRequest",
    "DelegateResult",
    "ExecutionStarted",
    "HostExiting",
    "HostFrame",
    "HostMessage",
    "InitialResponse",
    "NotificationDelivered",
    "NotificationSend",
    "OperationResponse",
    "SessionClosed",
    "SessionReady",
    "StoredValues",
    "ToolInvocation",
    "ToolInvoke",
    "ToolResultValue",
    "WaitCompleted",
    "cell_closed",
    "delegate_cancel",
    "execution_started",
    "host_exiting",
    "initial_response",
    "notification_delivered",
    "notification_send",
    "operation_response",
    "session_closed",
    "session_ready",
    "stored_values",
    "tool_invoke",
    "tool_result",
    "wait_completed",
]
