"""Malformed but correctly signed requests get a reply of their type, over jupyter_client.

Every shell and control request type the kernel handles is sent through the client's own
``Session`` (so it is signed) with wrong field types, missing fields, extra fields and a
content that is not an object: each gets ``<name>_reply``, an error reply names the field and
the type it must have, and the kernel answers the next request.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernel_driver import execute, shell_reply, wait_for_iopub

from codemode.kernel.request_checks import SCHEMAS, check_content, json_type

pytestmark = pytest.mark.timeout(300)

TIMEOUT_S = 30


def _send(kc: Any, channel: str, msg_type: str, content: Any, metadata: Any = None) -> dict[str, Any]:
    """Send a signed ``msg_type`` request with ``content`` on ``channel`` (``shell`` or
    ``control``) and return its reply. Content that is not a dict is sent pre-packed."""
    packed = content if isinstance(content, dict) else kc.session.pack(content)
    msg = kc.session.msg(msg_type, content=packed)
    if metadata is not None:
        msg["metadata"] = metadata
    if channel == "shell":
        kc.shell_channel.send(msg)
        get = kc.get_shell_msg
    else:
        kc.control_channel.send(msg)
        get = kc.get_control_msg
    while True:
        reply = get(timeout=TIMEOUT_S)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return reply


def _assert_alive(kc: Any) -> None:
    assert execute(kc, 'text("still here")').stdout == "still here\n"


@pytest.mark.parametrize(
    ("channel", "msg_type", "content", "evalue"),
    [
        (
            "shell",
            "execute_request",
            {"code": 5, "silent": False},
            "The execute_request's field 'code' must be a string, but it is an integer (5). "
            "Correct it and send the request again.",
        ),
        (
            "shell",
            "complete_request",
            {"code": "tools.", "cursor_pos": "6"},
            "The complete_request's field 'cursor_pos' must be an integer >= 0 or null, but it is a string ('6'). "
            "Correct it and send the request again.",
        ),
        (
            "shell",
            "is_complete_request",
            {"code": None},
            "The is_complete_request's field 'code' must be a string, but it is null. "
            "Correct it and send the request again.",
        ),
        (
            "shell",
            "inspect_request",
            {"code": "tools.echo"},
            "The inspect_request has no field 'cursor_pos'; it must be an integer >= 0 or null. "
            "Add the field and send the request again.",
        ),
        (
            "shell",
            "history_request",
            {"hist_access_type": "tail", "n": "10"},
            "The history_request's field 'n' must be an integer or null, but it is a string ('10'). "
            "Correct it and send the request again.",
        ),
        (
            "shell",
            "comm_info_request",
            {"target_name": 7},
            "The comm_info_request's field 'target_name' must be a string or null, but it is an integer (7). "
            "Correct it and send the request again.",
        ),
        (
            "control",
            "shutdown_request",
            {"restart": "yes"},
            "The shutdown_request's field 'restart' must be a boolean, but it is a string ('yes'). "
            "Correct it and send the request again.",
        ),
        (
            "control",
            "shutdown_request",
            {},
            "The shutdown_request has no field 'restart'; it must be a boolean. Add the field and send the request again.",
        ),
        (
            "shell",
            "kernel_info_request",
            [1, 2],
            "The kernel_info_request's content must be a JSON object, but it is an array. "
            "Send the fields the Jupyter messaging specification defines for this request.",
        ),
        (
            "control",
            "interrupt_request",
            "now",
            "The interrupt_request's content must be a JSON object, but it is a string. "
            "Send the fields the Jupyter messaging specification defines for this request.",
        ),
    ],
)
def test_malformed_request_gets_an_error_reply_naming_the_field(kernel, channel, msg_type, content, evalue):
    reply = _send(kernel.kc, channel, msg_type, content)
    assert reply["msg_type"] == msg_type.replace("_request", "_reply")
    expected = {
        "status": "error",
        "ename": "InvalidRequest",
        "evalue": evalue,
        "traceback": [f"InvalidRequest: {evalue}"],
    }
    if msg_type == "execute_request":
        expected["execution_count"] = reply["content"]["execution_count"]
    assert reply["content"] == expected
    _assert_alive(kernel.kc)


def test_malformed_execute_runs_nothing_and_its_reply_says_so(kernel):
    # The reply keeps the last cell's execution count and carries metadata.codemode with no cell,
    # like every execute_reply; the next cell is counted as if the malformed one never came.
    before = execute(kernel.kc, 'text("counted")').reply["content"]["execution_count"]
    reply = _send(kernel.kc, "shell", "execute_request", {"code": ["text(1)"]})
    assert reply["content"]["execution_count"] == before
    assert reply["metadata"]["codemode"] == {"cell_id": None, "status": None, "wall_time_ms": 0, "tool_calls": []}
    after = execute(kernel.kc, 'text("counted")').reply["content"]["execution_count"]
    assert after == before + 1


def test_execute_request_with_metadata_that_is_not_an_object(kernel):
    reply = _send(kernel.kc, "shell", "execute_request", {"code": 'text("x")'}, metadata=[1])
    assert reply["msg_type"] == "execute_reply"
    assert reply["content"]["evalue"] == (
        "The execute_request's metadata must be a JSON object, but it is an array. Send an object (it may be empty)."
    )
    _assert_alive(kernel.kc)


@pytest.mark.parametrize(
    ("channel", "msg_type", "content"),
    [
        ("shell", "execute_request", {"code": 'text("extra")', "future_field": {"a": 1}}),
        ("shell", "complete_request", {"code": "tools.ec", "cursor_pos": 8, "extra": True}),
        ("shell", "inspect_request", {"code": "tools.echo", "cursor_pos": 10, "detail_level": 1, "x": None}),
        ("shell", "is_complete_request", {"code": "foo()", "x": 1}),
        ("shell", "history_request", {"hist_access_type": "tail", "n": 3, "output": False, "raw": True, "x": 1}),
        ("shell", "kernel_info_request", {"x": 1}),
        ("shell", "comm_info_request", {"x": 1}),
        ("control", "kernel_info_request", {}),
    ],
)
def test_extra_fields_are_ignored(kernel, channel, msg_type, content):
    reply = _send(kernel.kc, channel, msg_type, content)
    assert reply["msg_type"] == msg_type.replace("_request", "_reply")
    assert reply["content"]["status"] == ("complete" if msg_type == "is_complete_request" else "ok"), reply["content"]


_WRONG_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
_VALID = {
    "execute_request": {"code": "1"},
    "complete_request": {"code": "x", "cursor_pos": 1},
    "inspect_request": {"code": "x", "cursor_pos": 1},
    "is_complete_request": {"code": "x"},
}
_CHECKED = [(t, f) for t, schema in SCHEMAS.items() for f in schema.get("properties", {}) if t != "shutdown_request"]


@st.composite
def _bad_request(draw: st.DrawFn) -> tuple[str, str, Any]:
    """A request type, the field made invalid, and a content valid in every other field."""
    msg_type, field = draw(st.sampled_from(_CHECKED))
    content = dict(_VALID.get(msg_type, {}))
    value = draw(_WRONG_VALUES.filter(lambda v: check_content(msg_type, {**content, field: v}) is not None))
    content[field] = value
    extra = draw(st.dictionaries(st.sampled_from(["zz_extra", "future"]), _WRONG_VALUES, max_size=1))
    return msg_type, field, {**content, **extra}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(request=_bad_request())
def test_any_wrong_field_type_gets_an_error_reply_naming_it(kernel, request):
    msg_type, field, content = request
    reply = _send(kernel.kc, "shell", msg_type, content)
    assert reply["msg_type"] == msg_type.replace("_request", "_reply")
    assert reply["content"]["status"] == "error"
    assert reply["content"]["ename"] == "InvalidRequest"
    evalue = reply["content"]["evalue"]
    assert f"field '{field}'" in evalue
    value = content[field]
    if isinstance(value, list) and value and SCHEMAS[msg_type]["properties"][field].get("type") == "array":
        # A list where a list belongs: the reply names the first item that is wrong.
        assert f"(at {field}/0) must be a string, but it is {json_type(value[0])}" in evalue
    else:
        assert f"but it is {json_type(value)}" in evalue


def test_the_kernel_answers_after_the_generated_requests(kernel):
    _assert_alive(kernel.kc)
    reply = _send(kernel.kc, "control", "kernel_info_request", {})
    assert reply["content"]["implementation"] == "codemode"


def _send_raw(kc: Any, channel: str, msg_type: str, content: bytes) -> dict[str, Any]:
    """Send a signed ``msg_type`` whose content frame is ``content`` as it is (not packed)."""
    msg = kc.session.msg(msg_type, content={})
    msg["content"] = content
    (kc.shell_channel if channel == "shell" else kc.control_channel).send(msg)
    get = kc.get_shell_msg if channel == "shell" else kc.get_control_msg
    while True:
        reply = get(timeout=TIMEOUT_S)
        if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
            return reply


@pytest.mark.parametrize(
    ("channel", "msg_type"),
    [("shell", "execute_request"), ("control", "kernel_info_request"), ("control", "shutdown_request")],
)
def test_a_request_whose_content_is_not_json_gets_an_error_reply(kernel, channel, msg_type):
    reply = _send_raw(kernel.kc, channel, msg_type, b'{"code": "text(1)"')
    assert reply["msg_type"] == msg_type.replace("_request", "_reply")
    assert reply["content"]["ename"] == "InvalidRequest"
    assert reply["content"]["evalue"].startswith(f"The {msg_type}'s content is not valid JSON (")
    _assert_alive(kernel.kc)


def test_a_malformed_execute_requests_reply_says_no_cell_ran(kernel):
    reply = _send_raw(kernel.kc, "shell", "execute_request", b'{"code": "text(1)"')
    assert reply["msg_type"] == "execute_reply"
    assert reply["content"]["ename"] == "InvalidRequest"
    assert reply["content"]["evalue"].startswith("The execute_request's content is not valid JSON (")
    assert reply["content"]["evalue"].endswith("); send a JSON object.")
    assert reply["metadata"]["codemode"]["cell_id"] is None
    _assert_alive(kernel.kc)


def test_a_request_type_the_shell_does_not_handle_gets_an_error_reply(kernel):
    reply = _send_raw(kernel.kc, "shell", "usage_request", b"{}")
    assert reply["msg_type"] == "usage_reply"
    assert reply["content"] == {
        "status": "error",
        "ename": "InvalidRequest",
        "evalue": "The kernel does not handle usage_request on the shell channel; see the Jupyter messaging "
        "specification for the requests of each channel.",
        "traceback": [
            "InvalidRequest: The kernel does not handle usage_request on the shell channel; see the Jupyter "
            "messaging specification for the requests of each channel."
        ],
    }
    _assert_alive(kernel.kc)


def test_a_debug_request_is_answered_without_a_debugger(kernel):
    reply = _send(kernel.kc, "control", "debug_request", {"type": "request", "seq": 7, "command": "initialize"})
    assert reply["msg_type"] == "debug_reply"
    assert reply["content"] == {
        "type": "response",
        "request_seq": 7,
        "success": False,
        "command": "initialize",
        "message": "The codemode kernel has no debugger.",
    }
    _assert_alive(kernel.kc)


def _statuses(kc: Any, msg_id: str) -> list[str]:
    """The execution states IOPub shows for request ``msg_id``, up to its idle."""
    return [m["content"]["execution_state"] for m in _until_idle(kc, msg_id) if m["msg_type"] == "status"]


def test_an_execute_request_on_control_is_refused_and_runs_nothing(kernel):
    """ipykernel's control channel takes an execute_request; here it ran (its store() took
    effect) and was never answered. It is refused, with busy and idle, and runs nothing."""
    kc = kernel.kc
    msg = kc.session.msg("execute_request", content={"code": 'store("on_control", 1); text("ran")', "silent": False})
    kc.control_channel.send(msg)
    reply = kc.get_control_msg(timeout=TIMEOUT_S)
    assert reply["parent_header"]["msg_id"] == msg["header"]["msg_id"]
    assert reply["msg_type"] == "execute_reply"
    evalue = (
        "The kernel runs cells from the shell channel only: its cells share one code-mode session and run one "
        "at a time, in the order the shell channel receives them. Send the execute_request on the shell channel."
    )
    assert reply["content"]["ename"] == "InvalidRequest"
    assert reply["content"]["evalue"] == evalue
    assert reply["metadata"]["codemode"]["cell_id"] is None
    assert _statuses(kc, msg["header"]["msg_id"]) == ["busy", "idle"]
    assert execute(kc, 'text(String(load("on_control")))').stdout == "undefined\n"


@pytest.mark.parametrize(
    ("msg_type", "content"),
    [("create_subshell_request", {}), ("list_subshell_request", {}), ("delete_subshell_request", {"subshell_id": "x"})],
)
def test_subshell_requests_are_refused(kernel, msg_type, content):
    """ipykernel 7 creates subshells (JEP 91) whenever it has a shell channel thread, although
    kernel_info lists none here; a cell sent to one that awaited a tool never replied."""
    kc = kernel.kc
    msg = kc.session.msg(msg_type, content=content)
    kc.control_channel.send(msg)
    reply = kc.get_control_msg(timeout=TIMEOUT_S)
    assert reply["parent_header"]["msg_id"] == msg["header"]["msg_id"]
    assert reply["msg_type"] == msg_type.replace("_request", "_reply")
    evalue = (
        "The kernel has no subshells (its kernel_info lists no 'kernel subshells'): its cells share one "
        "code-mode session and run one at a time, in the order the shell channel receives them. Send "
        "requests on the shell channel without a subshell_id."
    )
    assert reply["content"] == {
        "status": "error",
        "ename": "InvalidRequest",
        "evalue": evalue,
        "traceback": [f"InvalidRequest: {evalue}"],
    }
    assert _statuses(kc, msg["header"]["msg_id"]) == ["busy", "idle"]
    assert "kernel subshells" not in _send(kc, "shell", "kernel_info_request", {})["content"]["supported_features"]


def test_an_execute_request_for_a_subshell_gets_an_error_reply(kernel):
    kc = kernel.kc
    msg = kc.session.msg("execute_request", content={"code": 'text("ran")', "silent": False})
    msg["header"]["subshell_id"] = "made-up"
    kc.shell_channel.send(msg)
    reply = shell_reply(kc, msg["header"]["msg_id"])
    assert reply["content"]["status"] == "error"
    assert (reply["content"]["ename"], reply["content"]["evalue"]) == (
        "UnknownSubshellError",
        "Unknown subshell_id 'made-up'",
    )
    _assert_alive(kc)


@pytest.mark.parametrize("target", ["jupyter.widget", "no-such-target"])
def test_a_comm_open_is_closed_at_once(kernel, target):
    """Messaging spec, "Opening a Comm": an unknown target_name gets a comm_close at once."""
    kc = kernel.kc
    msg = kc.session.msg("comm_open", content={"comm_id": f"c-{target}", "target_name": target, "data": {"x": 1}})
    kc.shell_channel.send(msg)
    seen = _until_idle(kc, msg["header"]["msg_id"])
    assert [(m["msg_type"], m["content"]) for m in seen if m["msg_type"] != "status"] == [
        ("comm_close", {"comm_id": f"c-{target}", "data": {}})
    ]
    for msg_type in ("comm_msg", "comm_close"):  # the closed comm: logged, nothing published
        later = kc.session.msg(msg_type, content={"comm_id": f"c-{target}", "data": {}})
        kc.shell_channel.send(later)
        assert [m["msg_type"] for m in _until_idle(kc, later["header"]["msg_id"])] == ["status", "status"]
    _assert_alive(kc)


def _until_idle(kc: Any, msg_id: str) -> list[dict[str, Any]]:
    return wait_for_iopub(kc, msg_id, lambda m: m["msg_type"] == "status" and m["content"]["execution_state"] == "idle")
