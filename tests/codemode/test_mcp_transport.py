"""MCP stdio transport and start-up problems:

- the linear-time line reader (``codemode.tools.stdio_transport``) gives exactly the messages
  of the stream whatever the chunking, and a 20 MB result arrives intact through a real server
  while another cell's tool calls keep answering;
- a tool with an invalid definition is skipped with a sentence; its server's others load;
- a server that crashes at start-up is reported with its last stderr lines.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode.cancellation import CancellationToken
from codemode.config import parse_config
from codemode.dispatch import ToolCallRuntime
from codemode.tools.mcp_stdio import STDERR_TAIL_LINES
from codemode.tools.registry import ToolRegistry
from codemode.tools.stdio_transport import LineSplitter, pump_messages

pytestmark = pytest.mark.timeout(120)

SERVERS = Path(__file__).resolve().parent / "servers"
RAW_SERVER = SERVERS / "cm_raw_server.py"
CRASH_SERVER = SERVERS / "cm_crash_server.py"
sys.path.insert(0, str(SERVERS))
from cm_raw_server import pattern_text  # noqa: E402

# -- the reader, on random chunkings ---------------------------------------------------
texts = st.one_of(
    st.text(max_size=40),
    st.text(alphabet='é€😀"\\\n\x00a', max_size=40),
    st.builds(lambda s, n: s * n, st.text(alphabet="xé😀\n", min_size=1, max_size=3), st.integers(10_000, 120_000)),
)
messages = st.lists(
    st.one_of(
        st.builds(
            lambda i, t: {"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": t}]}},
            st.integers(0, 2**31),
            texts,
        ),
        st.builds(
            lambda t: {"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": t}},
            texts,
        ),
    ),
    max_size=6,
)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in zip(points, points[1:], strict=False)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
def pumped(chunks: list[bytes]) -> list:
    """What :func:`pump_messages` delivers for a stream arriving as ``chunks``."""
    got: list = []

    async def run() -> None:
        feed = iter(chunks)

        async def receive() -> bytes:
            try:
                return next(feed)
            except StopIteration:
                raise anyio.EndOfStream from None

        async def send(item) -> None:
            got.append(item)

        await pump_messages(receive, send)

    anyio.run(run)
    return got


@pytest.mark.unit
@given(messages, st.lists(st.integers(0, 2**40), max_size=40), st.booleans())
def test_any_chunking_of_a_stream_gives_exactly_its_messages(msgs, cuts, compact):
    lines = [json.dumps(m, ensure_ascii=not compact, separators=(",", ":") if compact else None) for m in msgs]
    data = "".join(line + "\n" for line in lines).encode("utf-8")
    chunks = chunked(data, cuts)
    got = pumped(chunks)
    assert not [g for g in got if isinstance(g, Exception)]
    assert [g.message.model_dump(by_alias=True, mode="json", exclude_none=True) for g in got] == msgs


@pytest.mark.unit
@given(st.lists(st.binary(max_size=50), max_size=30))
def test_line_splitter_joins_pieces_into_the_lines_of_the_stream(chunks):
    splitter = LineSplitter()
    lines = [line for chunk in chunks for line in splitter.feed(chunk)]
    data = b"".join(chunks)
    assert lines == data.split(b"\n")[:-1]
    assert splitter.pending_bytes == len(data.split(b"\n")[-1])


@pytest.mark.unit
def test_a_line_that_answers_no_request_reaches_the_session_as_an_error_value():
    got = pumped([b'not json\n\n{"jsonrpc":"2.0","id":1,"result":{}}\n'])
    assert isinstance(got[0], ValueError) and len(got) == 2  # the blank line is skipped
    assert got[1].message.model_dump(by_alias=True, exclude_none=True) == {"jsonrpc": "2.0", "id": 1, "result": {}}


# -- real servers ------------------------------------------------------------------------
async def call(dispatcher, js_name, args, cell="1", runtime_tool_call_id="tool-1"):
    return await dispatcher.handle_tool_call(cell, runtime_tool_call_id, js_name, "function", args, CancellationToken())


async def test_a_20_mb_result_arrives_intact_while_another_cells_calls_keep_answering():
    registry = await ToolRegistry.create(
        parse_config(
            {
                "mcp_servers": {
                    "raw": {"command": sys.executable, "args": [str(RAW_SERVER)]},
                }
            }
        )
    )
    dispatcher = ToolCallRuntime(registry)
    try:
        await registry.ready_tools()
        assert registry.errors == []
        chars = 20_000_000
        big = asyncio.ensure_future(call(dispatcher, "mcp__raw__big", {"chars": chars}, cell="1"))
        answered = 0
        while not big.done():
            small = await call(
                dispatcher, "echo", {"value": answered}, cell="2", runtime_tool_call_id=f"tool-{answered + 2}"
            )
            assert small.outcome == "completed" and small.value == {"value": answered}
            answered += 1
        result = await big
        assert result.outcome == "completed", result.error
        text = result.value["content"][0]["text"]
        assert len(text) == chars and text == pattern_text(chars)
        assert answered > 0
        after = await call(dispatcher, "mcp__raw__echo", {"text": "still here é"})
        assert after.value["content"][0]["text"] == "still here é"
    finally:
        await registry.aclose()


async def test_a_tool_with_an_invalid_schema_is_skipped_and_the_others_load():
    registry = await ToolRegistry.create(
        parse_config(
            {
                "mcp_servers": {
                    "raw": {"command": sys.executable, "args": [str(RAW_SERVER), "--bad-tool"]},
                }
            }
        )
    )
    dispatcher = ToolCallRuntime(registry)
    try:
        tools = await registry.ready_tools()
        assert [t.js_name for t in tools if t.origin == "mcp:raw"] == [
            "mcp__raw__bad",
            "mcp__raw__big",
            "mcp__raw__echo",
            "mcp__raw__fail",
            "mcp__raw__hold",
            "mcp__raw__release",
        ]
        assert registry.errors == [
            "MCP server `raw`: tool `broken` was skipped: its inputSchema.required must be a list."
        ]
        echoed = await call(dispatcher, "mcp__raw__echo", {"text": "ok"})
        assert echoed.value == {"content": [{"type": "text", "text": "ok"}], "isError": False}
        assert registry.errors == [  # the session's re-listing does not repeat the sentence
            "MCP server `raw`: tool `broken` was skipped: its inputSchema.required must be a list."
        ]
    finally:
        await registry.aclose()


async def test_a_server_that_crashes_at_start_up_is_reported_with_its_last_stderr_lines():
    registry = await ToolRegistry.create(
        parse_config(
            {
                "mcp_servers": {
                    "bad": {"command": sys.executable, "args": [str(CRASH_SERVER)]},
                }
            }
        )
    )
    try:
        await registry.ready_tools()
        [error] = registry.errors
        head, _, tail = error.partition("\n")
        assert head == "MCP server `bad` failed to start: Connection closed. Its last output on stderr:"
        assert tail.endswith("RuntimeError: cm_crash_server cannot start: the setting CM_CRASH_TOKEN is missing")
        assert "Traceback (most recent call last):" in tail
        assert len(tail.splitlines()) == STDERR_TAIL_LINES  # bounded: the earliest lines are dropped
        assert "preparing step 0\n" not in tail and "preparing step 29" in tail
    finally:
        await registry.aclose()
