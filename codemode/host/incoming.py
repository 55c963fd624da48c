"""Checks of what the host sends, producing the typed forms of :mod:`codemode.wire.messages`.

:func:`decode` types a whole message; each ``parse_*`` function types a part of one (an
answer's result, read against the request it answers). Each returns what it was given, typed, or raises
:class:`Violation` with the text the connection then fails with (Codex's texts where Codex
has one, e.g. ``code-mode host answered unknown request ID 99``). Pure functions: no I/O.
"""

from __future__ import annotations

from typing import assert_never, cast

from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire.messages import (
    CellClosed,
    DelegateCancel,
    DelegateRequest,
    ExecutionStarted,
    HostExiting,
    HostMessage,
    InitialResponse,
    MessageError,
    OperationResponse,
    StoredValues,
    WireResult,
)


class Violation(MessageError):
    """The host broke the protocol; the connection fails with ``str(e)``."""


def is_id(value: object) -> bool:
    """True for a wire id: an integer that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def decode(message: object) -> HostMessage:
    """A host message read after the handshake, typed as the message it is, or
    :class:`Violation` naming what is wrong: a second handshake answer, an unknown ``type``, or
    a message of a known type without the fields the client reads (the texts of Codex's
    client, ``code-mode host sent an invalid cell/closed message``).

    Fields the client does not read are kept and never refused: newer Codex hosts add some
    (``code_mode_host_duration_ns``). An answer's ``result`` is checked later, against the
    request it answers (:func:`parse_result`, :func:`parse_initial`): what is valid there, and
    the text of a refusal, depend on that request."""
    kind = message.get("type") if isinstance(message, dict) else None
    match kind:
        case "operation/response":
            if not is_id(message_id := _field(message, "id")):
                raise Violation(f"code-mode host answered unknown request ID {message_id!r}")
            return cast(OperationResponse, message)
        case "execute/initialResponse":
            if not is_id(message_id := _field(message, "id")):
                raise Violation(f"code-mode host sent an initial response for unknown request ID {message_id!r}")
            return cast(InitialResponse, message)
        case "delegate/request":
            if not is_id(_field(message, "id")):
                raise Violation("code-mode host sent a delegate request without an ID")
            return _delegate_request(cast(dict[str, object], message))
        case "delegate/cancel":
            if not is_id(_field(message, "id")):
                raise Violation("code-mode host sent a delegate cancel without an ID")
            return cast(DelegateCancel, message)
        case "cell/closed":
            if not _strings(message, "sessionId", "cellId"):
                raise Violation("code-mode host sent an invalid cell/closed message")
            return cast(CellClosed, message)
        case "session/storedValues":
            if not _strings(message, "sessionId") or not isinstance(_field(message, "values"), dict):
                raise Violation("code-mode host sent an invalid session/storedValues message")
            return cast(StoredValues, message)
        case "host/exiting":
            if not _strings(message, "reason"):
                raise Violation("code-mode host sent an invalid host/exiting notice")
            return cast(HostExiting, message)
        case "connection/ready" | "connection/rejected":
            raise Violation("code-mode host sent a second handshake response")
        case _:
            raise Violation(f"code-mode host sent an unknown message type {kind!r}")


def _field(message: object, name: str) -> object:
    return cast(dict[str, object], message).get(name)


def _strings(message: object, *names: str) -> bool:
    return all(isinstance(_field(message, name), str) for name in names)


def _delegate_request(message: dict[str, object]) -> DelegateRequest:
    """A ``delegate/request`` whose id was checked: its session id and its request (a
    ``tool/invoke`` naming its cell, or a ``notification/send``) checked too."""
    invalid = Violation("code-mode host sent an invalid delegate request")
    request = message.get("request")
    if not isinstance(request, dict) or not isinstance(message.get("sessionId"), str):
        raise invalid
    match request.get("type"):
        case "tool/invoke":
            invocation = request.get("invocation")
            if not isinstance(invocation, dict) or not isinstance(invocation.get("cell_id"), str):
                raise invalid
        case "notification/send":
            if not _strings(request, "callId", "cellId", "text"):
                raise invalid
        case other:
            raise Violation(f"code-mode host sent an unknown delegate request type {other!r}")
    return cast(DelegateRequest, message)


def delegate_cell(request: DelegateRequest) -> str:
    """The host cell id a delegate request is for."""
    body = request["request"]
    match body["type"]:
        case "tool/invoke":
            return body["invocation"]["cell_id"]
        case "notification/send":
            return body["cellId"]
        case unknown:
            assert_never(unknown)


def parse_result(result: object, what: str) -> WireResult:
    """``{"status": "ok", "value": …}`` or ``{"status": "error", "message": str}``; anything
    else is ``code-mode host returned an invalid <what> response``."""
    if isinstance(result, dict):
        status = result.get("status")
        if status == "ok" and "value" in result:
            return cast(WireResult, result)
        if status == "error" and isinstance(result.get("message"), str):
            return cast(WireResult, result)
    raise Violation(f"code-mode host returned an invalid {what} response")


def parse_execution_started(value: object) -> ExecutionStarted:
    if (
        not isinstance(value, dict)
        or value.get("type") != "execution/started"
        or not isinstance(value.get("cellId"), str)
    ):
        raise Violation("code-mode host returned an invalid execute response")
    return cast(ExecutionStarted, value)


def parse_wait_completed(value: object, what: str) -> WaitOutcome:
    """The outcome of a ``wait/completed`` answer to a wait or terminate (``what``)."""
    if not isinstance(value, dict) or value.get("type") != "wait/completed":
        raise Violation(f"code-mode host returned an invalid {what} response")
    try:
        return WaitOutcome.from_wire(value.get("outcome"))
    except MessageError as exc:
        raise Violation(f"code-mode host returned an invalid {what} response: {exc}") from None


def parse_initial(result: object) -> RuntimeResponse | str:
    """An ``execute/initialResponse`` result: the response, or the host's error message."""
    checked = parse_result(result, "initial")
    if checked["status"] == "error":
        return checked["message"]
    try:
        return RuntimeResponse.from_wire(checked["value"])
    except MessageError as exc:
        raise Violation(f"code-mode host returned an invalid initial response: {exc}") from None
