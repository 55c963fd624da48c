"""Bad lines from a stdio MCP server (``codemode.tools.stdio_lines``): a line with lone-surrogate
escapes is repaired (U+FFFD) and delivered; a line that cannot be read fails the call it answers
at once, naming the problem and quoting the line, while the server's other calls go on; a line
that answers nothing is logged. Lone surrogates in our arguments reach the server as U+FFFD.

Servers: ``servers/cm_raw_server.py`` (``bad(kind)`` writes each kind of line; ``hold()`` is
answered only at ``release()``, so a held call shows the order of events) and
``servers/cm_node_cut_server.cjs`` (the TypeScript SDK cutting an emoji in half).
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import sys
from pathlib import Path

import mcp_types
import pytest
from dependencies import require

from codemode.cancellation import CancellationToken
from codemode.config import parse_config
from codemode.dispatch import ToolCallRuntime
from codemode.tools import stdio_transport
from codemode.tools.registry import ToolRegistry
from codemode.tools.stdio_lines import UNREADABLE_LINE, LineReader, encode_message

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]
SERVERS = Path(__file__).resolve().parent / "servers"
NODE_MODULES = REPO / ".npm-tools" / "node_modules"
TOOL_TIMEOUT_S = 300
"""Far longer than any test may run: a call that waited for it would hang the test."""
GUARD_S = 30
"""Guard against the hang this file pins, not a speed check."""

X80 = "x" * 80


def unreadable(problem: str, start: str) -> str:
    return f"MCP server `raw` answered the call to `bad` with a line that cannot be read: {problem}; the line starts with `{start}…`."


BAD = {
    "not_json": unreadable(
        "it is not JSON (Extra data at column 163)", '{"result":{"content":[{"type":"text","text":"' + "x" * 35
    ),
    "not_utf8": unreadable(
        "it is not valid UTF-8 (byte 0xe9 at offset 48)",
        '{"result":{"content":[{"type":"text","text":"caf\ufffd ' + "x" * 30,
    ),
    "not_jsonrpc": unreadable(
        "it is not a JSON-RPC message (a request, notification, result or error)",
        '{"jsonrpc":"2.0","outcome":{"detail":"' + "x" * 42,
    ),
}


def text_result(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": False}


@pytest.fixture
async def raw():
    config = parse_config(
        {
            "mcp_servers": {
                "raw": {
                    "command": sys.executable,
                    "args": [str(SERVERS / "cm_raw_server.py")],
                    "tool_timeout_sec": TOOL_TIMEOUT_S,
                }
            }
        }
    )
    registry = await ToolRegistry.create(config)
    await registry.ready_tools()
    assert registry.errors == []
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def call(dispatcher, name, args, namespace="mcp__raw__", runtime_tool_call_id="tool-1"):
    wire = {"name": name, "namespace": namespace}
    return await dispatcher.handle_tool_call("1", runtime_tool_call_id, wire, "function", args, CancellationToken())


async def with_a_held_call(dispatcher, name, args):
    """Call ``name`` while a ``hold`` call of the same server waits; return its result after
    checking that the held call was still unanswered then, and that it succeeds afterwards."""
    held = asyncio.ensure_future(call(dispatcher, "hold", {}, runtime_tool_call_id="tool-held"))
    result = await asyncio.wait_for(call(dispatcher, name, args), GUARD_S)
    assert not held.done()  # nothing else was answered: the bad line itself ended the call
    released = await call(dispatcher, "release", {}, runtime_tool_call_id="tool-release")
    assert released.value == text_result("released")
    assert (await held).value == text_result("held")
    return result


@pytest.mark.parametrize("kind", sorted(BAD))
async def test_an_unreadable_answer_fails_its_call_at_once(raw, kind):
    result = await with_a_held_call(raw, "bad", {"kind": kind})
    assert (result.outcome, result.error) == ("failed", BAD[kind])
    assert (await call(raw, "echo", {"text": "next"})).value == text_result("next")


@pytest.mark.parametrize(
    "kind, text, logged",
    [
        (  # repaired and delivered
            "surrogate",
            "cut \ufffd, \ufffd too",
            "an MCP server wrote 2 lone surrogate(s) (half of a character, as Node writes a cut emoji); "
            "each was replaced by U+FFFD",
        ),
        (  # a line for no request: logged, and the real answer that follows is delivered
            "noise",
            "after noise",
            "an MCP server wrote a line that cannot be read and answers no request: it is not JSON (Expecting "
            f"value at column 1); the line starts with `server log: started {'x' * 60}…`",
        ),
    ],
)
async def test_a_repaired_line_or_a_line_for_no_request_leaves_the_call_answered(raw, caplog, kind, text, logged):
    caplog.set_level(logging.WARNING, logger="codemode.tools.stdio_lines")
    result = await with_a_held_call(raw, "bad", {"kind": kind})
    # The repaired line has no isError, and none is added (as Codex passes a result on).
    expected = {"content": [{"type": "text", "text": text}]} if kind == "surrogate" else text_result(text)
    assert result.value == expected
    assert [r.getMessage() for r in caplog.records] == [logged]


async def test_lone_surrogates_in_arguments_reach_the_server_as_replacement_characters(raw):
    result = await call(raw, "echo", {"text": "a\ud800b\udfff"})
    assert result.value == text_result("a\ufffdb\ufffd")
    assert (await call(raw, "echo", {"text": "next"})).value == text_result("next")


async def test_a_request_that_cannot_be_written_fails_its_call_and_the_connection_stays(raw, monkeypatch):
    real = stdio_transport.encode_message

    def encode(message):
        if "refuse me" in str(getattr(message, "params", "")):
            raise TypeError("not serializable on purpose")
        return real(message)

    monkeypatch.setattr(stdio_transport, "encode_message", encode)
    result = await call(raw, "echo", {"text": "refuse me"})
    assert (result.outcome, result.error) == (
        "failed",
        "the call to MCP tool `echo` could not be sent to MCP server `raw`: TypeError: not serializable on purpose.",
    )
    assert (await call(raw, "echo", {"text": "next"})).value == text_result("next")
    assert raw.registry.mcp_clients["raw"].restarts == 0


async def test_a_node_server_cutting_an_emoji_in_half():
    require(shutil.which("node") is not None, "node is not installed")
    require((NODE_MODULES / "@modelcontextprotocol" / "sdk").is_dir(), "the MCP TypeScript SDK is not in .npm-tools")
    server = {
        "command": shutil.which("node"),
        "args": [str(SERVERS / "cm_node_cut_server.cjs")],
        "env": {"NODE_PATH": str(NODE_MODULES)},
        "tool_timeout_sec": TOOL_TIMEOUT_S,
    }
    registry = await ToolRegistry.create(parse_config({"mcp_servers": {"node": server}}))
    try:
        await registry.ready_tools()
        assert registry.errors == []
        dispatcher = ToolCallRuntime(registry)
        cut, whole = await asyncio.wait_for(
            asyncio.gather(
                call(dispatcher, "cut", {"text": "a😀b", "length": 2}, namespace="mcp__node__"),
                call(
                    dispatcher,
                    "cut",
                    {"text": "😀é😀", "length": 5},
                    namespace="mcp__node__",
                    runtime_tool_call_id="tool-2",
                ),
            ),
            GUARD_S,
        )
        # The TypeScript SDK sends no isError for a success, and none is added (as in Codex).
        assert cut.value == {"content": [{"type": "text", "text": "a\ufffd"}]}
        assert whole.value == {"content": [{"type": "text", "text": "😀é😀"}]}
    finally:
        await registry.aclose()


# -- the reader and writer on their own ------------------------------------------------------
def request(request_id, method="tools/call"):
    return mcp_types.JSONRPCRequest(jsonrpc="2.0", id=request_id, method=method, params={})


@pytest.mark.unit
def test_an_id_found_twice_among_awaited_requests_fails_nothing():
    reader = LineReader()
    reader.sent(request(1))
    reader.sent(request(2))
    line = b'{"result":{"items":[{"id":2}]},"id":1,'
    assert isinstance(reader.read(line), ValueError)
    assert sorted(reader.awaiting) == [1, 2]


@pytest.mark.unit
def test_cancelled_requests_are_no_longer_awaited_and_answers_end_the_wait():
    reader = LineReader()
    reader.sent(request(7))
    reader.sent(request("s"))
    cancel = mcp_types.JSONRPCNotification(jsonrpc="2.0", method="notifications/cancelled", params={"requestId": 7})
    reader.sent(cancel)
    assert reader.awaiting == ["s"]
    assert isinstance(reader.read(b'{"oops": "id":7}'), ValueError)  # 7 is no longer awaited
    answer = reader.read(b'{"jsonrpc":"2.0","id":"s","outcome":1}')
    assert answer.message.model_dump(exclude_none=True) == {
        "jsonrpc": "2.0",
        "id": "s",
        "error": {
            "code": mcp_types.PARSE_ERROR,
            "message": "it is not a JSON-RPC message (a request, notification, result or error); "
            'the line starts with `{"jsonrpc":"2.0","id":"s","outcome":1}`',
            "data": UNREADABLE_LINE,
        },
    }
    assert reader.awaiting == []


@pytest.mark.unit
def test_a_malformed_request_of_the_server_answers_nothing():
    reader = LineReader()
    reader.sent(request(3))
    assert isinstance(reader.read(b'{"jsonrpc":"2.0","id":3,"method":5}'), ValueError)
    assert reader.awaiting == [3]


@pytest.mark.unit
def test_the_writer_replaces_lone_surrogates_keys_included():
    message = mcp_types.JSONRPCRequest(
        jsonrpc="2.0", id=1, method="tools/call", params={"arguments": {"k\udc00": "v\ud83d", "ok": "😀"}}
    )
    line = encode_message(message)
    assert (
        line
        == (
            '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{"k\ufffd":"v\ufffd","ok":"😀"}}}\n'
        ).encode()
    )
    plain = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=2, method="ping")
    assert encode_message(plain) == b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
