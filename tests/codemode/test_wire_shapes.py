"""Each client message has one shape: its TypedDict (what the client builds, what mypy checks,
:mod:`codemode.wire.client_messages`) and the serde-style spec the host decodes it with
(:mod:`codemode.runtime.validate`, Codex's ``ClientToHost``) name the same fields, required
and optional alike, and admit ``null`` in the same ones; the host's decoder returns the
TypedDict (:data:`codemode.wire.messages.ClientMessage`) without a second check.

The host's decoder decodes what the client builds, every message; the client's decoder of host
messages keeps fields it does not know (newer Codex hosts add some, such as
``code_mode_host_duration_ns``) and refuses an unknown type with Codex's text.
"""

from __future__ import annotations

import re
import typing

import pytest

from codemode.host import incoming
from codemode.runtime import validate
from codemode.wire import messages
from codemode.wire.serde import Optional, Seq, Struct, Tagged
from codemode.wire.typeddict import TypedDict

pytestmark = pytest.mark.unit

HOST_REQUEST = validate.HOST_REQUEST
CLIENT_TO_HOST = validate.CLIENT_TO_HOST


def _struct(tagged: Tagged, variant: str) -> Struct:
    struct = tagged.variants[variant]
    assert struct is not None
    return struct


def _tagged(struct: Struct, name: str) -> Tagged:
    """The enum a field holds."""
    (field,) = [f for f in struct.members if f.name == name]
    assert isinstance(field.type, Tagged)
    return field.type


def _member(struct: Struct, name: str) -> Struct:
    """The struct a field holds (through Option and Vec)."""
    (field,) = [f for f in struct.members if f.name == name]
    kind = field.type
    while isinstance(kind, (Optional, Seq)):
        kind = kind.inner if isinstance(kind, Optional) else kind.item
    assert isinstance(kind, Struct)
    return kind


DELEGATE_RESULT = _tagged(_struct(CLIENT_TO_HOST, "delegate/response"), "result")

# (TypedDict, the spec's struct, the tag the enclosing enum adds to it, or None)
PAIRS: list[tuple[type[TypedDict], Struct, str | None]] = [
    (messages.Hello, _struct(CLIENT_TO_HOST, "connection/hello"), "type"),
    (messages.OperationRequest, _struct(CLIENT_TO_HOST, "operation/request"), "type"),
    (messages.OperationControl, _struct(CLIENT_TO_HOST, "operation/yield"), "type"),
    (messages.OperationControl, _struct(CLIENT_TO_HOST, "operation/cancel"), "type"),
    (messages.DelegateResponse, _struct(CLIENT_TO_HOST, "delegate/response"), "type"),
    (messages.StoredValues, _struct(CLIENT_TO_HOST, "session/storedValues"), "type"),
    (messages.OpenBody, _struct(HOST_REQUEST, "session/open"), "method"),
    (messages.CellExecutionLimits, _member(_struct(HOST_REQUEST, "session/open"), "cellExecutionLimits"), None),
    (messages.ExecuteBody, _struct(HOST_REQUEST, "session/execute"), "method"),
    (messages.ExecuteRequest, _member(_struct(HOST_REQUEST, "session/execute"), "request"), None),
    (
        messages.ToolDefinition,
        _member(_member(_struct(HOST_REQUEST, "session/execute"), "request"), "enabled_tools"),
        None,
    ),
    (
        messages.ToolName,
        _member(_member(_member(_struct(HOST_REQUEST, "session/execute"), "request"), "enabled_tools"), "tool_name"),
        None,
    ),
    (messages.WaitBody, _struct(HOST_REQUEST, "session/wait"), "method"),
    (messages.WaitRequest, _member(_struct(HOST_REQUEST, "session/wait"), "request"), None),
    (messages.TerminateBody, _struct(HOST_REQUEST, "session/terminate"), "method"),
    (messages.ShutdownBody, _struct(HOST_REQUEST, "session/shutdown"), "method"),
    (messages.BindingsBody, _struct(HOST_REQUEST, "session/bindings"), "method"),
    (messages.DelegateOk, _struct(DELEGATE_RESULT, "ok"), "status"),
    (messages.ErrorResult, _struct(DELEGATE_RESULT, "error"), "status"),
    (messages.ToolResultValue, _struct(_tagged(_struct(DELEGATE_RESULT, "ok"), "value"), "tool/result"), "type"),
]


def _shape(typed: type[TypedDict]) -> dict[str, tuple[bool, bool]]:
    """``{field: (required, admits None)}`` of a message type, read from its annotations."""
    shape = {}
    for name, annotation in typed.__annotations__.items():
        text = str(annotation)
        shape[name] = (not text.startswith("NotRequired["), "None" in text)
    return shape


def _spec_shape(struct: Struct, tag: str | None) -> dict[str, tuple[bool, bool]]:
    shape = {} if tag is None else {tag: (True, False)}
    for field in struct.members:
        shape[field.name] = (field.missing == "required", isinstance(field.type, Optional))
    return shape


@pytest.mark.parametrize(("typed", "struct", "tag"), PAIRS, ids=[f"{p[0].__name__}-{p[1].expecting}" for p in PAIRS])
def test_each_client_message_has_one_shape(typed, struct, tag):
    assert _shape(typed) == _spec_shape(struct, tag)


def test_every_client_message_and_method_has_a_type():
    """Every variant the host decodes is paired with its TypedDict above."""
    paired = {id(struct) for _, struct, _ in PAIRS}
    for tagged in (CLIENT_TO_HOST, HOST_REQUEST):
        for name, struct in tagged.variants.items():
            assert struct is not None and id(struct) in paired, name


def test_a_field_missing_from_a_type_is_seen():
    """The comparison fails when a type and its spec disagree (a field renamed in one)."""

    class Renamed(TypedDict):
        type: str
        sessionId: str
        value: dict

    assert _shape(Renamed) != _spec_shape(_struct(CLIENT_TO_HOST, "session/storedValues"), "type")


BUILT = [
    messages.hello([1], ["codemode-raw-text-v1"]),
    messages.operation_request(
        1,
        messages.open_body(
            "s",
            limits={"maxYieldTimeMs": 5, "maxHeapSizeBytes": 6},
            output_truncation="server",
            stored_values={},
            cell_id_prefix="g2:",
        ),
    ),
    messages.operation_request(
        2,
        messages.execute_body(
            "s",
            messages.execute_request(
                "call-1",
                [
                    {
                        "name": "echo",
                        "tool_name": {"name": "echo", "namespace": None},
                        "description": "",
                        "kind": "function",
                        "input_schema": {"type": "object"},
                        "output_schema": None,
                    }
                ],
                "text(1)",
                10,
                None,
            ),
        ),
    ),
    messages.operation_request(3, messages.wait_body("s", "1", 10, 100)),
    messages.operation_request(4, messages.terminate_body("s", "1", 100)),
    messages.operation_request(5, messages.shutdown_body("s")),
    messages.operation_request(6, messages.bindings_body("s", ["rows"], 100)),
    messages.operation_yield(2),
    messages.operation_cancel(3),
    messages.delegate_response(1, messages.tool_result({"x": 1})),
    messages.delegate_response(2, messages.notification_delivered()),
    messages.delegate_response(3, messages.error("no")),
    messages.stored_values("s", {"k": [1]}),
]


@pytest.mark.parametrize("message", BUILT, ids=[str(m["type"]) for m in BUILT])
def test_the_host_decodes_what_the_client_builds(message):
    assert validate.decode_message(message) == message


HOST_BUILT = [
    messages.operation_response(1, messages.ok(messages.session_ready("s"))),
    messages.initial_response(2, messages.error("bad")),
    messages.tool_invoke(
        1,
        "s",
        {
            "cell_id": "1",
            "runtime_tool_call_id": "tool-1",
            "tool_name": {"name": "echo"},
            "tool_kind": "function",
            "input": {},
        },
    ),
    messages.notification_send(2, "s", "call-1", "1", "hi"),
    messages.delegate_cancel(1),
    messages.cell_closed("s", "1"),
    messages.stored_values("s", {"k": 1}),
    messages.host_exiting("why"),
]


@pytest.mark.parametrize("message", HOST_BUILT, ids=[str(m["type"]) for m in HOST_BUILT])
def test_the_client_keeps_fields_it_does_not_know(message):
    newer = {**message, "code_mode_host_duration_ns": 1234}
    assert incoming.decode(newer) == newer


@pytest.mark.parametrize(
    ("message", "text"),
    [
        ({"type": "host/mystery"}, "code-mode host sent an unknown message type 'host/mystery'"),
        ({"id": 1}, "code-mode host sent an unknown message type None"),
        ([1], "code-mode host sent an unknown message type None"),
        ({"type": "connection/ready"}, "code-mode host sent a second handshake response"),
        ({"type": "operation/response", "id": "1"}, "code-mode host answered unknown request ID '1'"),
        ({"type": "execute/initialResponse"}, "code-mode host sent an initial response for unknown request ID None"),
        ({"type": "delegate/cancel", "id": True}, "code-mode host sent a delegate cancel without an ID"),
        ({"type": "cell/closed", "sessionId": "s"}, "code-mode host sent an invalid cell/closed message"),
        (
            {"type": "session/storedValues", "sessionId": "s", "values": []},
            "code-mode host sent an invalid session/storedValues message",
        ),
        ({"type": "host/exiting"}, "code-mode host sent an invalid host/exiting notice"),
    ],
)
def test_the_client_names_what_is_wrong_with_a_host_message(message, text):
    with pytest.raises(incoming.Violation) as info:
        incoming.decode(message)
    assert str(info.value) == text


def _type_names(union: object) -> set[str]:
    """The ``type`` values of a union of message types, read from their annotations."""
    names: set[str] = set()
    for member in typing.get_args(union):
        names |= set(re.findall(r"'([^']+)'", member.__annotations__["type"]))
    return names


def test_every_message_type_is_built_and_decoded_above():
    """A message type added to either union is added to the cases above too."""
    assert _type_names(messages.ClientMessage) == {m["type"] for m in BUILT}
    assert _type_names(messages.HostMessage) == {m["type"] for m in HOST_BUILT}
