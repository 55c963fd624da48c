"""Checks of what the host sends, producing the typed forms of :mod:`codemode.wire.messages`.

Each ``parse_*`` function returns the message (or part) it was given, typed, or raises
:class:`Violation` with the text the connection then fails with (Codex's texts where Codex
has one, e.g. ``code-mode host answered unknown request ID 99``). Pure functions: no I/O.
"""

from __future__ import annotations

from typing import Any, cast

from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire.messages import (
    CellClosed,
    DelegateRequest,
    ExecutionStarted,
    HostExiting,
    MessageError,
    NotificationSend,
    StoredValues,
    ToolInvoke,
    WireResult,
)

HOST_MESSAGE_TYPES = frozenset(
    {
        "operation/response",
        "execute/initialResponse",
        "delegate/request",
        "delegate/cancel",
        "cell/closed",
        "session/storedValues",
        "host/exiting",
    }
)


class Violation(MessageError):
    """The host broke the protocol; the connection fails with ``str(e)``."""


def is_id(value: Any) -> bool:
    """True for a wire id: an integer that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def message_type(message: dict[str, Any]) -> str:
    """The ``type`` of a host message after the handshake; raises :class:`Violation` for a
    second handshake answer or an unknown type."""
    kind = message.get("type")
    if kind in ("connection/ready", "connection/rejected"):
        raise Violation("code-mode host sent a second handshake response")
    if not isinstance(kind, str) or kind not in HOST_MESSAGE_TYPES:
        raise Violation(f"code-mode host sent an unknown message type {kind!r}")
    return kind


def parse_result(result: Any, what: str) -> WireResult:
    """``{"status": "ok", "value": …}`` or ``{"status": "error", "message": str}``; anything
    else is ``code-mode host returned an invalid <what> response``."""
    if isinstance(result, dict):
        status = result.get("status")
        if status == "ok" and "value" in result:
            return cast(WireResult, result)
        if status == "error" and isinstance(result.get("message"), str):
            return cast(WireResult, result)
    raise Violation(f"code-mode host returned an invalid {what} response")


def parse_execution_started(value: Any) -> ExecutionStarted:
    if (
        not isinstance(value, dict)
        or value.get("type") != "execution/started"
        or not isinstance(value.get("cellId"), str)
    ):
        raise Violation("code-mode host returned an invalid execute response")
    return cast(ExecutionStarted, value)


def parse_wait_completed(value: Any, what: str) -> WaitOutcome:
    """The outcome of a ``wait/completed`` answer to a wait or terminate (``what``)."""
    if not isinstance(value, dict) or value.get("type") != "wait/completed":
        raise Violation(f"code-mode host returned an invalid {what} response")
    try:
        return WaitOutcome.from_wire(value.get("outcome"))
    except MessageError as exc:
        raise Violation(f"code-mode host returned an invalid {what} response: {exc}") from None


def parse_initial(result: Any) -> RuntimeResponse | str:
    """An ``execute/initialResponse`` result: the response, or the host's error message."""
    checked = parse_result(result, "initial")
    if checked["status"] == "error":
        return checked["message"]
    try:
        return RuntimeResponse.from_wire(checked["value"])
    except MessageError as exc:
        raise Violation(f"code-mode host returned an invalid initial response: {exc}") from None


def delegate_id_of(message: dict[str, Any]) -> int:
    delegate_id = message.get("id")
    if not is_id(delegate_id):
        raise Violation("code-mode host sent a delegate request without an ID")
    return cast(int, delegate_id)


def parse_delegate_request(message: dict[str, Any]) -> tuple[DelegateRequest, str]:
    """A ``delegate/request`` (its id already checked) and the host cell id it is for."""
    invalid = Violation("code-mode host sent an invalid delegate request")
    request = message.get("request")
    if not isinstance(request, dict) or not isinstance(message.get("sessionId"), str):
        raise invalid
    kind = request.get("type")
    if kind == "tool/invoke":
        invocation = request.get("invocation")
        if not isinstance(invocation, dict) or not isinstance(invocation.get("cell_id"), str):
            raise invalid
        cell_id = cast(ToolInvoke, request)["invocation"]["cell_id"]
    elif kind == "notification/send":
        if not all(isinstance(request.get(key), str) for key in ("callId", "cellId", "text")):
            raise invalid
        cell_id = cast(NotificationSend, request)["cellId"]
    else:
        raise Violation(f"code-mode host sent an unknown delegate request type {kind!r}")
    return cast(DelegateRequest, message), cell_id


def parse_cell_closed(message: dict[str, Any]) -> CellClosed:
    if not isinstance(message.get("sessionId"), str) or not isinstance(message.get("cellId"), str):
        raise Violation("code-mode host sent an invalid cell/closed message")
    return cast(CellClosed, message)


def parse_stored_values(message: dict[str, Any]) -> StoredValues:
    if not isinstance(message.get("sessionId"), str) or not isinstance(message.get("values"), dict):
        raise Violation("code-mode host sent an invalid session/storedValues message")
    return cast(StoredValues, message)


def parse_host_exiting(message: dict[str, Any]) -> HostExiting:
    if not isinstance(message.get("reason"), str):
        raise Violation("code-mode host sent an invalid host/exiting notice")
    return cast(HostExiting, message)
