"""What codemode's host accepts (normalised) and prints where Codex's host 0.171 prints its
decoding errors: ``Error: failed to read code-mode client hello`` for the first frame,
``... client message`` for later ones, a blank line, ``Caused by:`` and the cause indented;
``Error: duplicate code-mode request ID RequestId(1)`` and ``Error: received a second
code-mode client hello`` alone; exit status 1 (recorded from ``codex-code-mode-host``).
"""

from __future__ import annotations

import asyncio
import json

import pytest
from rt_client import frame_header, start_host
from serde_cases import delegate_text, execute_text, hello_text, open_text, request_text, tool_text

from codemode.runtime.validate import DecodeError, decode_client_frame
from codemode.wire.serde import rust_debug, unexpected

ACCEPTED = {
    "hello": (
        hello_text(),
        {"type": "connection/hello", "supportedVersions": [1], "requiredCapabilities": [], "optionalCapabilities": []},
    ),
    "hello as a sequence": (
        '["connection/hello",[1],[],[]]',
        {"type": "connection/hello", "supportedVersions": [1], "requiredCapabilities": [], "optionalCapabilities": []},
    ),
    "method by its index": (
        request_text({"method": 0, "sessionId": "s2"}),
        {"type": "operation/request", "id": 2, "request": {"method": "session/open", "sessionId": "s2"}},
    ),
    "open as a sequence": (
        request_text(["session/open", "s2", None]),
        {
            "type": "operation/request",
            "id": 2,
            "request": {"method": "session/open", "sessionId": "s2", "cellExecutionLimits": None},
        },
    ),
    "truncation as a map": (
        open_text(outputTruncation={"client": None}),
        {
            "type": "operation/request",
            "id": 2,
            "request": {"method": "session/open", "sessionId": "s2", "outputTruncation": "client"},
        },
    ),
    "stored values (codemode's)": (
        open_text(storedValues={"a": [1]}),
        {
            "type": "operation/request",
            "id": 2,
            "request": {"method": "session/open", "sessionId": "s2", "storedValues": {"a": [1]}},
        },
    ),
    "session/bindings (codemode's)": (
        request_text({"method": "session/bindings", "sessionId": "s1", "path": ["rows"], "timeoutMs": 50}),
        {
            "type": "operation/request",
            "id": 2,
            "request": {"method": "session/bindings", "sessionId": "s1", "path": ["rows"], "timeoutMs": 50},
        },
    ),
    "negative max output tokens (answered later)": (
        execute_text(max_output_tokens=-5, yield_time_ms=None),
        {
            "type": "operation/request",
            "id": 2,
            "request": {
                "method": "session/execute",
                "sessionId": "s1",
                "request": {
                    "tool_call_id": "c",
                    "enabled_tools": [],
                    "source": "text(1)",
                    "yield_time_ms": None,
                    "max_output_tokens": -5,
                },
            },
        },
    ),
    "delivered with a field (ignored)": (
        delegate_text({"status": "ok", "value": {"type": "notification/delivered", "x": 1}}),
        {
            "type": "delegate/response",
            "id": 999,
            "result": {"status": "ok", "value": {"type": "notification/delivered"}},
        },
    ),
    "status by its index": (
        delegate_text({"status": 0, "value": {"type": "tool/result", "result": 1}}),
        {
            "type": "delegate/response",
            "id": 999,
            "result": {"status": "ok", "value": {"type": "tool/result", "result": 1}},
        },
    ),
    "negative ids": ('{"type":"operation/yield","id":-1}', {"type": "operation/yield", "id": -1}),
}


@pytest.mark.unit
@pytest.mark.parametrize("payload,message", list(ACCEPTED.values()), ids=list(ACCEPTED))
def test_accepted_and_normalised(payload, message):
    assert decode_client_frame(payload.encode()) == message


@pytest.mark.unit
def test_codemode_extensions_stay_out_of_codex_texts():
    """``session/bindings`` and ``storedValues`` are accepted but named in no text, and take
    no index or place in a sequence: the texts stay Codex's."""
    with pytest.raises(DecodeError, match=r"^invalid value: integer `5`, expected variant index 0 <= i < 5$"):
        decode_client_frame(request_text({"method": 5}).encode())
    with pytest.raises(DecodeError, match=r"^invalid length 4, expected 3 elements in sequence$"):
        decode_client_frame(request_text(["session/open", "s2", None, None, {}]).encode())
    with pytest.raises(DecodeError, match=r"^invalid length 33, expected at most 32 property names$"):
        decode_client_frame(
            request_text({"method": "session/bindings", "sessionId": "s1", "path": ["a"] * 33}).encode()
        )
    with pytest.raises(DecodeError, match=r"^invalid value: integer `2001`, expected at most 2000$"):
        decode_client_frame(
            request_text({"method": "session/bindings", "sessionId": "s1", "path": [], "timeoutMs": 2001}).encode()
        )
    with pytest.raises(DecodeError, match=r"^invalid type: sequence, expected a map$"):
        decode_client_frame(open_text(storedValues=[]).encode())


@pytest.mark.unit
@pytest.mark.parametrize(
    "value,text",
    [
        (None, "null"),
        (True, "boolean `true`"),
        (5, "integer `5`"),
        (-(2**63), "integer `-9223372036854775808`"),
        (2**64 - 1, "integer `18446744073709551615`"),
        (2**64, "map"),
        (-(2**63) - 1, "map"),
        (1.5, "map"),
        ({}, "map"),
        ([], "sequence"),
        ("it's", 'string "it\'s"'),
    ],
)
def test_unexpected_describes_values_as_serde_json_with_arbitrary_precision(value, text):
    assert unexpected(value) == text


@pytest.mark.unit
def test_strings_are_shown_as_rust_debug_shows_them():
    assert (
        rust_debug("e\u0301\u00a0\t\0\x7f\x85\xad\U0001f600\u2028")
        == '"e\\u{301}\\u{a0}\\t\\0\\u{7f}\\u{85}\\u{ad}😀\\u{2028}"'
    )
    assert rust_debug("\\ \u200d\ue000") == '"\\\\ \\u{200d}\\u{e000}"'


# ---- what the host prints ------------------------------------------------------------------


def _frame(text: str) -> bytes:
    payload = text.encode()
    return frame_header(len(payload)) + payload


async def _run(data: bytes) -> tuple[int, str, list[dict]]:
    """Feed ``data`` to a new host, close its input; its status, stderr and frames."""
    host = await start_host()
    assert host.process.stdin is not None and host.process.stdout is not None
    host.send_raw(data)
    host.process.stdin.close()
    out = await asyncio.wait_for(host.process.stdout.read(), 20)
    status = await asyncio.wait_for(host.process.wait(), 20)
    stderr = (await host.process.stderr.read()).decode()
    frames, offset = [], 0
    while offset < len(out):
        length = int.from_bytes(out[offset : offset + 4], "little")
        frames.append(json.loads(out[offset + 4 : offset + 4 + length]))
        offset += 4 + length
    return status, stderr, frames


_GOOD = _frame(hello_text()) + _frame(request_text({"method": "session/open", "sessionId": "s1"}, id=1))
_CAUSE = "\n\nCaused by:\n    "


@pytest.mark.parametrize(
    "data,stderr",
    [
        (
            _frame(hello_text(extra=1)),
            "Error: failed to read code-mode client hello"
            + _CAUSE
            + "failed to decode code-mode IPC frame: "
            + "unknown field `extra`, expected one of `supportedVersions`, `requiredCapabilities`, `optionalCapabilities`"
            + "\n",
        ),
        (
            _frame("null"),
            "Error: failed to read code-mode client hello"
            + _CAUSE
            + "failed to decode code-mode IPC frame: "
            + "invalid type: null, expected internally tagged enum ClientToHost at line 1 column 4"
            + "\n",
        ),
        (frame_header(100) + b"{}", "Error: failed to read code-mode client hello" + _CAUSE + "early eof\n"),
        (
            _GOOD + _frame(tool_text(kind="weird")),
            "Error: failed to read code-mode client message"
            + _CAUSE
            + "failed to decode code-mode IPC frame: unknown variant `weird`, expected `function` or `freeform`\n",
        ),
        (
            _GOOD + _frame(open_text(outputTruncation="a\nb")),
            "Error: failed to read code-mode client message"
            + _CAUSE
            + "failed to decode code-mode IPC frame: unknown variant `a\n    b`, expected `client` or `server`\n",
        ),
        (_GOOD + frame_header(100), "Error: failed to read code-mode client message" + _CAUSE + "early eof\n"),
        (
            _GOOD + _frame(request_text({"method": "session/shutdown", "sessionId": "s1"}, id=1)),
            "Error: duplicate code-mode request ID RequestId(1)\n",
        ),
        (_GOOD + _frame(hello_text()), "Error: received a second code-mode client hello\n"),
        (
            _GOOD + _frame(hello_text(supportedVersions=[])),
            "Error: failed to read code-mode client message"
            + _CAUSE
            + "failed to decode code-mode IPC frame: at least one protocol version is required\n",
        ),
        (
            # deeper than Python's parser goes (it raised RecursionError: a traceback, status 1)
            _frame('{"type":"connection/hello","x":' + "[" * 100_000 + "]" * 100_000 + "}"),
            "Error: failed to read code-mode client hello"
            + _CAUSE
            + "failed to decode code-mode IPC frame: recursion limit exceeded at line 1 column 158\n",
        ),
    ],
    ids=[
        "hello field",
        "hello null",
        "hello cut",
        "message",
        "two-line cause",
        "message cut",
        "duplicate id",
        "second hello",
        "second hello invalid",
        "hello nested 100 000 deep",
    ],
)
async def test_host_prints_codex_error_and_exits_1(data, stderr):
    status, printed, _ = await _run(data)
    assert (status, printed) == (1, stderr)


async def test_hello_that_decodes_but_is_no_hello_is_rejected():
    """A first frame that decodes as another message is answered connection/rejected (status 0)."""
    status, stderr, frames = await _run(_frame('{"type":"operation/cancel","id":1}'))
    assert (status, stderr) == (0, "")
    assert frames == [
        {
            "type": "connection/rejected",
            "reason": {"type": "invalidHello", "message": "first message must be connection/hello"},
        }
    ]


async def test_negative_max_output_tokens_fails_only_thatexecute_text(host):
    """Codex decodes ``max_output_tokens`` as an ``i32`` and answers a negative one with an
    error; no cell starts and the next execute gets cell 1."""
    request = {"tool_call_id": "c", "enabled_tools": [], "source": "text(1)", "yield_time_ms": None}
    refused = await host.request(
        {"method": "session/execute", "sessionId": "s1", "request": {**request, "max_output_tokens": -5}}
    )
    assert refused == {
        "status": "error",
        "message": "invalid code-mode execute request: number too small to fit in target type",
    }
    cell_id, _ = await host.execute("text(1)", max_output_tokens=0)
    assert cell_id == "1"
