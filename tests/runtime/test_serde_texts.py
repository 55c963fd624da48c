"""Client frames Codex's host refuses, refused by the decoder with its texts (each recorded
from Codex 0.171's ``codex-code-mode-host --listen stdio``, the frame sent after a good hello
and session open; a hello's text is the same as the first frame).

The texts are serde's: ``unknown field``, ``missing field``, ``invalid type: <unexpected>,
expected <type>``, ``invalid value: ...``, ``unknown variant``, ``invalid length``, with
serde_json's position for errors at the top level, and a few of serde_json's syntax errors.
``test_serde_host.py`` pins what a host prints with them.
"""

from __future__ import annotations

import json

import pytest
from serde_cases import (
    GONE,
    VARIANTS,
    delegate_text,
    execute_text,
    hello_text,
    open_text,
    request_text,
    tool_text,
    wait_text,
)

from codemode.runtime.validate import DecodeError, decode_client_frame

pytestmark = pytest.mark.unit

_PREFIX = '{"type":"connection/hello","supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[],"x":'
"""A hello missing its end, whose member ``x`` (unknown to serde) the cases nest in: 107
characters, so the 127th ``[`` is at column 234."""
REFUSED = {
    # the hello (all refused by decoding, none answered connection/rejected)
    "hello extra field": (
        hello_text(extra=1),
        "unknown field `extra`, expected one of `supportedVersions`, `requiredCapabilities`, `optionalCapabilities`",
    ),
    "hello without requiredCapabilities": (
        hello_text(requiredCapabilities=GONE),
        "missing field `requiredCapabilities`",
    ),
    "hello without optionalCapabilities": (
        hello_text(optionalCapabilities=GONE),
        "missing field `optionalCapabilities`",
    ),
    "hello without versions": ('{"type":"connection/hello"}', "missing field `supportedVersions`"),
    "no versions": (hello_text(supportedVersions=[]), "at least one protocol version is required"),
    "versions a string": (hello_text(supportedVersions="1"), 'invalid type: string "1", expected a sequence'),
    "versions null": (hello_text(supportedVersions=None), "invalid type: null, expected a sequence"),
    "version -1": (hello_text(supportedVersions=[-1]), "invalid value: integer `-1`, expected a nonzero u32"),
    "version 0": (hello_text(supportedVersions=[0]), "invalid value: integer `0`, expected a nonzero u32"),
    "version 2**32": (
        hello_text(supportedVersions=[2**32]),
        "invalid value: integer `4294967296`, expected a nonzero u32",
    ),
    "version 2**64": (hello_text(supportedVersions=[2**64]), "invalid type: map, expected a nonzero u32"),
    "version 1.5": (hello_text(supportedVersions=[1.5]), "invalid type: map, expected a nonzero u32"),
    "version true": (hello_text(supportedVersions=[True]), "invalid type: boolean `true`, expected a nonzero u32"),
    "versions decoded before checked": (
        hello_text(supportedVersions=[1, 1, 0]),
        "invalid value: integer `0`, expected a nonzero u32",
    ),
    "duplicate version": (hello_text(supportedVersions=[2, 2]), "duplicate protocol version 2"),
    "capability 5": (hello_text(requiredCapabilities=[5]), "invalid type: integer `5`, expected a string"),
    "capabilities a map": (hello_text(requiredCapabilities={}), "invalid type: map, expected a sequence"),
    "empty capability": (hello_text(requiredCapabilities=[""]), "identifier must not be empty"),
    "duplicate capability": (
        hello_text(optionalCapabilities=["bounded-output-v1", "bounded-output-v1"]),
        "duplicate capability `bounded-output-v1`",
    ),
    "required and optional": (
        hello_text(requiredCapabilities=["a"], optionalCapabilities=["a"]),
        "capability `a` cannot be both required and optional",
    ),
    "hello fields in order": (
        '{"type":"connection/hello","requiredCapabilities":["a","a"],"optionalCapabilities":[5],"supportedVersions":[1]}',
        "duplicate capability `a`",
    ),
    "hello as a short sequence": (
        '["connection/hello"]',
        "invalid length 0, expected struct ClientHelloWire with 3 elements",
    ),
    # the top level, with serde_json's positions
    "null": ("null", "invalid type: null, expected internally tagged enum ClientToHost at line 1 column 4"),
    "a string": ('"x"', 'invalid type: string "x", expected internally tagged enum ClientToHost at line 1 column 3'),
    "-5": ("-5", "invalid type: integer `-5`, expected internally tagged enum ClientToHost at line 1 column 2"),
    "1.5 (a map to serde)": ("1.5", "missing field `type` at line 1 column 3"),
    "an array of the hello": (
        "[" + hello_text() + "]",
        "invalid type: map, expected variant identifier at line 1 column 1",
    ),
    "[5]": ("[5]", "invalid type: integer `5`, expected variant identifier at line 1 column 2"),
    "[]": ("[]", "missing field `type` at line 1 column 2"),
    "{}": ("{}", "missing field `type` at line 1 column 2"),
    "no type": (
        '{"supportedVersions":[1],"requiredCapabilities":[],"optionalCapabilities":[]}',
        "missing field `type` at line 1 column 77",
    ),
    "unknown type": ('{"type":"bogus"}', f"unknown variant `bogus`, expected one of {VARIANTS} at line 1 column 15"),
    "unknown type after a field": (
        '{"a":1,"type":"bogus"}',
        f"unknown variant `bogus`, expected one of {VARIANTS} at line 1 column 21",
    ),
    "unknown type on line 2": (
        '{\n  "type": "bogus"\n}',
        f"unknown variant `bogus`, expected one of {VARIANTS} at line 2 column 17",
    ),
    "type 5": ('{"type":5}', "invalid type: integer `5`, expected variant identifier at line 1 column 9"),
    "type 0 (no index at the top)": (
        '{"type":0}',
        "invalid type: integer `0`, expected variant identifier at line 1 column 9",
    ),
    "type 1.5": ('{"type":1.5}', "invalid type: number, expected variant identifier at line 1 column 11"),
    "type {}": ('{"type":{}}', "invalid type: map, expected variant identifier at line 1 column 8"),
    "type null": ('{"type":null}', "invalid type: null, expected variant identifier at line 1 column 12"),
    # JSON syntax, where serde_json's text maps plainly
    "empty payload": ("", "EOF while parsing a value at line 1 column 0"),
    "cut short": ('{"type":', "EOF while parsing a value at line 1 column 8"),
    "not json": ("not json", "expected ident at line 1 column 2"),
    "hello": ("hello", "expected value at line 1 column 1"),
    "no colon": ('{"a" 1}', "expected `:` at line 1 column 6"),
    "trailing characters": ('{"type":"operation/cancel","id":1} x', "trailing characters at line 1 column 36"),
    # operation/request
    "request extra field": (
        request_text({"method": "session/shutdown", "sessionId": "s1"}, x=1),
        "unknown field `x`, expected `id` or `request`",
    ),
    "request without body": ('{"type":"operation/request","id":2}', "missing field `request`"),
    "request id a string": (
        json.dumps(
            {"type": "operation/request", "id": "2", "request": {"method": "session/shutdown", "sessionId": "s1"}}
        ),
        'invalid type: string "2", expected i64',
    ),
    "request id 2**63": (
        json.dumps({"type": "operation/request", "id": 2**63, "request": {}}),
        "invalid value: integer `9223372036854775808`, expected i64",
    ),
    "request id 1.5": (
        json.dumps({"type": "operation/request", "id": 1.5, "request": {}}),
        "invalid type: map, expected i64",
    ),
    "request id escaped": (
        json.dumps({"type": "operation/request", "id": 'a"b\n\x01\u00e9\u200b', "request": {}}),
        'invalid type: string "a\\"b\\n\\u{1}é\\u{200b}", expected i64',
    ),
    "body 5": (request_text(5), "invalid type: integer `5`, expected internally tagged enum HostRequest"),
    "body {}": (request_text({}), "missing field `method`"),
    "method 5 (an index)": (
        request_text({"method": 5, "sessionId": "s1"}),
        "invalid value: integer `5`, expected variant index 0 <= i < 5",
    ),
    "method -1": (request_text({"method": -1}), "invalid type: integer `-1`, expected variant identifier"),
    "unknown method": (
        request_text({"method": "session/bogus", "sessionId": "s1"}),
        "unknown variant `session/bogus`, expected one of `session/open`, `session/execute`, `session/wait`, "
        "`session/terminate`, `session/shutdown`",
    ),
    "method as a short sequence": (
        request_text(["session/open"]),
        "invalid length 0, expected struct variant HostRequest::OpenSession with 3 elements",
    ),
    "method as a long sequence": (
        request_text(["session/open", "s2", None, None, 1]),
        "invalid length 4, expected 3 elements in sequence",
    ),
    "shutdown as a sequence": (
        request_text(["session/shutdown"]),
        "invalid length 0, expected struct variant HostRequest::ShutdownSession with 1 element",
    ),
    "cancel extra field": ('{"type":"operation/cancel","id":1,"x":1}', "unknown field `x`, expected `id`"),
    "yield id null": ('{"type":"operation/yield","id":null}', "invalid type: null, expected i64"),
    # session/open
    "open extra field": (
        open_text(bogus=1),
        "unknown field `bogus`, expected one of `sessionId`, `cellExecutionLimits`, `outputTruncation`",
    ),
    "open fields in order": (
        request_text({"method": "session/open", "x": 1, "sessionId": 5}),
        "unknown field `x`, expected one of `sessionId`, `cellExecutionLimits`, `outputTruncation`",
    ),
    "session id 5": (open_text(sessionId=5), "invalid type: integer `5`, expected a string"),
    "empty session id": (open_text(sessionId=""), "identifier must not be empty"),
    "limits 5": (
        open_text(cellExecutionLimits=5),
        "invalid type: integer `5`, expected struct WireSessionCellExecutionLimits",
    ),
    "limits extra field": (
        open_text(cellExecutionLimits={"x": 1}),
        "unknown field `x`, expected `maxYieldTimeMs` or `maxHeapSizeBytes`",
    ),
    "limit -1": (open_text(cellExecutionLimits={"maxYieldTimeMs": -1}), "invalid value: integer `-1`, expected u64"),
    "limit a string": (
        open_text(cellExecutionLimits={"maxYieldTimeMs": "x"}),
        'invalid type: string "x", expected u64',
    ),
    "truncation both": (open_text(outputTruncation="both"), "unknown variant `both`, expected `client` or `server`"),
    "truncation 5": (open_text(outputTruncation=5), "invalid type: integer `5`, expected string or map"),
    "truncation {}": (open_text(outputTruncation={}), "invalid value: map, expected map with a single key"),
    "truncation with a value": (open_text(outputTruncation={"client": 1}), "invalid type: integer `1`, expected unit"),
    # session/execute
    "execute extra field": (
        execute_text(bogus=1),
        "unknown field `bogus`, expected one of `catalog_revision`, `tool_call_id`, `enabled_tools`, `source`, "
        "`yield_time_ms`, `max_output_tokens`",
    ),
    "execute body extra field": (
        request_text({"method": "session/execute", "sessionId": "s1", "x": 1}),
        "unknown field `x`, expected `sessionId` or `request`",
    ),
    "execute request null": (
        request_text({"method": "session/execute", "sessionId": "s1", "request": None}),
        "invalid type: null, expected struct WireExecuteRequest",
    ),
    "execute request []": (
        request_text({"method": "session/execute", "sessionId": "s1", "request": []}),
        "invalid length 1, expected struct WireExecuteRequest with 6 elements",
    ),
    "execute without tools": (
        request_text({"method": "session/execute", "sessionId": "s1", "request": {"tool_call_id": "c", "source": ""}}),
        "missing field `enabled_tools`",
    ),
    "source 5": (execute_text(source=5), "invalid type: integer `5`, expected a string"),
    "tools null": (execute_text(enabled_tools=None), "invalid type: null, expected a sequence"),
    "tool 5": (execute_text(enabled_tools=[5]), "invalid type: integer `5`, expected struct WireToolDefinition"),
    "yield -1": (execute_text(yield_time_ms=-1), "invalid value: integer `-1`, expected u64"),
    "yield 1.5": (execute_text(yield_time_ms=1.5), "invalid type: map, expected u64"),
    "yield false": (execute_text(yield_time_ms=False), "invalid type: boolean `false`, expected u64"),
    "yield 2**64": (execute_text(yield_time_ms=2**64), "invalid type: map, expected u64"),
    "max output tokens a string": (execute_text(max_output_tokens="x"), 'invalid type: string "x", expected i32'),
    "max output tokens 2**63": (
        execute_text(max_output_tokens=2**63),
        "invalid value: integer `9223372036854775808`, expected i32",
    ),
    "catalog revision -1": (execute_text(catalog_revision=-1), "invalid value: integer `-1`, expected u64"),
    "tool without tool_name": (execute_text(enabled_tools=[{"name": "x"}]), "missing field `tool_name`"),
    "tool kind weird": (tool_text(kind="weird"), "unknown variant `weird`, expected `function` or `freeform`"),
    "tool kind null": (tool_text(kind=None), "invalid type: null, expected string or map"),
    "tool without description": (tool_text(description=GONE), "missing field `description`"),
    "tool extra field": (
        tool_text(x=1),
        "unknown field `x`, expected one of `name`, `tool_name`, `description`, `kind`, `input_schema`, `output_schema`",
    ),
    "tool name a string": (tool_text(tool_name="x"), 'invalid type: string "x", expected struct WireToolName'),
    "tool name extra field": (
        tool_text(tool_name={"name": "e", "z": 1}),
        "unknown field `z`, expected `name` or `namespace`",
    ),
    "namespace 5": (tool_text(tool_name={"name": "e", "namespace": 5}), "invalid type: integer `5`, expected a string"),
    "tool as a short sequence": (
        execute_text(enabled_tools=[["a", {"name": "a"}, "", "function"]]),
        "invalid length 4, expected struct WireToolDefinition with 6 elements",
    ),
    # session/wait and session/terminate
    "wait cell id 5": (wait_text({"cell_id": 5, "yield_time_ms": 10}), "invalid type: integer `5`, expected a string"),
    "wait without yield": (wait_text({"cell_id": "1"}), "missing field `yield_time_ms`"),
    "wait yield null": (wait_text({"cell_id": "1", "yield_time_ms": None}), "invalid type: null, expected u64"),
    "wait extra field": (
        wait_text({"cell_id": "1", "yield_time_ms": 10, "x": 1}),
        "unknown field `x`, expected `cell_id` or `yield_time_ms`",
    ),
    "wait body extra field": (
        wait_text(x=1),
        "unknown field `x`, expected one of `sessionId`, `request`, `maxOutputTokens`",
    ),
    "wait max output tokens -1": (wait_text(maxOutputTokens=-1), "invalid value: integer `-1`, expected usize"),
    "wait request null": (wait_text([]), "invalid length 0, expected struct WireWaitRequest with 2 elements"),
    "terminate extra field": (
        request_text({"method": "session/terminate", "sessionId": "s1", "cellId": "1", "x": 1}),
        "unknown field `x`, expected one of `sessionId`, `cellId`, `maxOutputTokens`",
    ),
    "terminate cell id 5": (
        request_text({"method": "session/terminate", "sessionId": "s1", "cellId": 5}),
        "invalid type: integer `5`, expected a string",
    ),
    "shutdown extra field": (
        request_text({"method": "session/shutdown", "sessionId": "s1", "x": 1}),
        "unknown field `x`, expected `sessionId`",
    ),
    # delegate/response
    "delegate result 5": (delegate_text(5), "invalid type: integer `5`, expected internally tagged enum WireResult"),
    "delegate extra field": (
        delegate_text({"status": "error", "message": "m"}, x=1),
        "unknown field `x`, expected `id` or `result`",
    ),
    "delegate id a string": (
        '{"type":"delegate/response","id":"1","result":{"status":"error","message":"m"}}',
        'invalid type: string "1", expected i64',
    ),
    "delegate status bogus": (delegate_text({"status": "bogus"}), "unknown variant `bogus`, expected `ok` or `error`"),
    "delegate status 5": (
        delegate_text({"status": 5}),
        "invalid value: integer `5`, expected variant index 0 <= i < 2",
    ),
    "delegate status true": (
        delegate_text({"status": True}),
        "invalid type: boolean `true`, expected variant identifier",
    ),
    "delegate ok without value": (delegate_text({"status": "ok"}), "missing field `value`"),
    "delegate ok extra field": (
        delegate_text({"status": "ok", "value": {"type": "tool/result", "result": 1}, "x": 1}),
        "unknown field `x`, expected `value`",
    ),
    "delegate value 5": (
        delegate_text({"status": "ok", "value": 5}),
        "invalid type: integer `5`, expected internally tagged enum DelegateResponse",
    ),
    "delegate value bogus": (
        delegate_text({"status": "ok", "value": {"type": "bogus"}}),
        "unknown variant `bogus`, expected `tool/result` or `notification/delivered`",
    ),
    "tool result without result": (
        delegate_text({"status": "ok", "value": {"type": "tool/result"}}),
        "missing field `result`",
    ),
    "tool result extra field": (
        delegate_text({"status": "ok", "value": {"type": "tool/result", "result": 1, "x": 1}}),
        "unknown field `x`, expected `result`",
    ),
    "delegate error message 5": (
        delegate_text({"status": "error", "message": 5}),
        "invalid type: integer `5`, expected a string",
    ),
    "delegate ok as a sequence": (
        delegate_text(["ok"]),
        "invalid length 0, expected struct variant WireResult::Ok with 1 element",
    ),
    "delivered as a long sequence": (
        delegate_text({"status": "ok", "value": ["notification/delivered", 1, 2]}),
        "invalid length 2, expected 0 elements in sequence",
    ),
    # serde_json's recursion limit: the 128th array or object, counting the frame's own, at its
    # opening bracket; here for frames Python's parser cannot read either (deeper ones that it
    # can read are accepted: test_deep_frames_python_reads_are_accepted)
    "5000 arrays in a hello": (
        _PREFIX + "[" * 5000 + "]" * 5000 + "}",
        "recursion limit exceeded at line 1 column 234",
    ),
    "126 arrays in a hello": (
        _PREFIX + "[" * 126 + "]" * 126 + "}",
        "unknown field `x`, expected one of `supportedVersions`, `requiredCapabilities`, `optionalCapabilities`",
    ),
    "5000 objects on a second line": (
        '{\n  "a": ' + '{"b":' * 5000 + "1" + "}" * 5000 + "}",
        "recursion limit exceeded at line 2 column 638",
    ),
    "brackets in strings do not nest": (
        hello_text(x="[" * 200),
        "unknown field `x`, expected one of `supportedVersions`, `requiredCapabilities`, `optionalCapabilities`",
    ),
    "too deep before a syntax error": (
        _PREFIX + "[" * 130 + "}",
        "recursion limit exceeded at line 1 column 234",
    ),
}


@pytest.mark.parametrize("payload,text", list(REFUSED.values()), ids=list(REFUSED))
def test_refused_with_codex_text(payload, text):
    with pytest.raises(DecodeError) as caught:
        decode_client_frame(payload.encode())
    assert str(caught.value) == text


def test_deep_frames_python_reads_are_accepted():
    """A frame nesting 128 to several hundred levels is decoded (serde_json refuses it with its
    recursion limit): a tool's result may nest that deep, and a refused frame ends the
    connection with every cell on it."""
    deep: object = 1
    for _ in range(300):
        deep = [deep]
    message = decode_client_frame(
        delegate_text({"status": "ok", "value": {"type": "tool/result", "result": deep}}).encode()
    )
    result = message["result"]["value"]["result"]
    levels = 0
    while isinstance(result, list):
        result, levels = result[0], levels + 1
    assert (levels, result) == (300, 1)
