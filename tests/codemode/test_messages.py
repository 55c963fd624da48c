"""The typed messages (:mod:`codemode.wire.messages`): every constructor's wire form, the checks of
what the host sends, and the host's ability to import them without client code."""

from __future__ import annotations

import subprocess
import sys

import pytest

from codemode.host import incoming
from codemode.wire import messages
from codemode.wire.framing import decode_frames, encode_frame


def roundtrip(message: object) -> object:
    (decoded,), rest = decode_frames(encode_frame(message))
    assert rest == b""
    return decoded


@pytest.mark.unit
def test_constructors_write_the_wire_forms_of_codex_protocol():
    request = messages.execute_request("call-1", [], "text(1)", 100, None)
    assert roundtrip(messages.operation_request(2, messages.execute_body("session-1", request))) == {
        "type": "operation/request",
        "id": 2,
        "request": {
            "method": "session/execute",
            "sessionId": "session-1",
            "request": {
                "tool_call_id": "call-1",
                "enabled_tools": [],
                "source": "text(1)",
                "yield_time_ms": 100,
                "max_output_tokens": None,
            },
        },
    }
    assert messages.wait_body("s", "1", 50, 7) == {
        "method": "session/wait",
        "sessionId": "s",
        "request": {"cell_id": "1", "yield_time_ms": 50},
        "maxOutputTokens": 7,
    }
    assert messages.terminate_body("s", "1") == {"method": "session/terminate", "sessionId": "s", "cellId": "1"}
    assert messages.open_body("s", limits={"maxYieldTimeMs": 5}, stored_values={}) == {
        "method": "session/open",
        "sessionId": "s",
        "cellExecutionLimits": {"maxYieldTimeMs": 5},
        "storedValues": {},
    }
    assert messages.missing_cell("9") == {
        "MissingCell": {"Result": {"cell_id": "9", "content_items": [], "error_text": "exec cell 9 not found"}}
    }
    assert messages.tool_result([1]) == {"status": "ok", "value": {"type": "tool/result", "result": [1]}}
    assert messages.operation_yield(4) == {"type": "operation/yield", "id": 4}
    assert messages.host_exiting("why") == {"type": "host/exiting", "reason": "why"}


@pytest.mark.unit
def test_execute_output_budget_fits_codex_i32():
    """Codex's host decodes ``max_output_tokens`` as an ``i32`` (a larger one ends the
    connection); a larger budget, which a pragma may ask, is sent as the largest ``i32``."""
    assert messages.execute_request("c", [], "", None, 2**53 - 1)["max_output_tokens"] == 2**31 - 1
    assert messages.execute_request("c", [], "", None, 2**31 - 1)["max_output_tokens"] == 2**31 - 1
    assert messages.execute_request("c", [], "", None, 7)["max_output_tokens"] == 7
    assert messages.execute_request("c", [], "", None, None)["max_output_tokens"] is None


@pytest.mark.unit
@pytest.mark.parametrize(
    ("message", "text"),
    [
        ({"type": "delegate/request", "id": "x"}, "code-mode host sent a delegate request without an ID"),
        (
            {"type": "delegate/request", "id": 1, "sessionId": "s", "request": {"type": "tool/invoke"}},
            "code-mode host sent an invalid delegate request",
        ),
        (
            {"type": "delegate/request", "id": 1, "sessionId": "s", "request": {"type": "mystery"}},
            "code-mode host sent an unknown delegate request type 'mystery'",
        ),
    ],
)
def test_bad_delegate_requests_are_named(message, text):
    with pytest.raises(incoming.Violation) as info:
        incoming.decode(message)
    assert str(info.value) == text


@pytest.mark.unit
def test_results_of_another_shape_are_invalid_responses():
    for result in ({"status": "ok"}, {"status": "error", "message": 3}, {"status": "weird", "value": {}}, [1]):
        with pytest.raises(incoming.Violation, match="^code-mode host returned an invalid wait response$"):
            incoming.parse_result(result, "wait")


def test_the_host_imports_the_messages_without_client_code():
    probe = (
        "import sys, codemode.wire.framing, codemode.wire.messages;"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('mcp', 'jsonschema', 'pydantic')"
        " or m.startswith(('codemode.host', 'codemode.session', 'codemode.tools', 'codemode.dispatch'))];"
        "print(bad)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.unit
def test_message_types_cost_the_host_no_typeddict_at_run_time():
    """The message types are names for mypy only: at run time each is a plain ``dict`` subclass
    (codemode/wire/typeddict.py), as building typing's TypedDicts cost every host start
    about 2.5 ms; the constructors still return plain dicts."""
    kinds = {
        name: getattr(messages, name) for name in ("Hello", "Ready", "OpenBody", "CellExecutionLimits", "InputText")
    }
    assert {name: type(kind) for name, kind in kinds.items()} == dict.fromkeys(kinds, type)
    assert all(issubclass(kind, dict) for kind in kinds.values())
    assert type(messages.open_body("s")) is dict
