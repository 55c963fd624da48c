"""MCP client code paths: an error the server answers stays that call's error (its words do
not make the client think the connection was lost); and they contain what the SDK raises: ``SystemExit`` and
``KeyboardInterrupt`` from the SDK's ``call_tool`` (run in a task of the client's own, where
asyncio would re-raise them into the event loop) fail only that call, with a sentence naming
the tool and the exception; the server's next call works."""

from __future__ import annotations

import sys
from pathlib import Path

import mcp
import pytest

from codemode.cancellation import CancellationToken
from codemode.config import parse_config
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

pytestmark = pytest.mark.timeout(120)

RAW_SERVER = Path(__file__).resolve().parent / "servers" / "cm_raw_server.py"


@pytest.fixture
async def raw_dispatcher():
    config = parse_config({"mcp_servers": {"raw": {"command": sys.executable, "args": [str(RAW_SERVER)]}}})
    registry = await ToolRegistry.create(config)
    await registry.ready_tools()
    assert registry.errors == []
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def call(dispatcher, name, args):
    wire = {"name": name, "namespace": "mcp__raw__"}
    return await dispatcher.handle_tool_call("1", "tool-1", wire, "function", args, CancellationToken())


async def echo(dispatcher, text):
    return await call(dispatcher, "echo", {"text": text})


async def test_an_error_answer_mentioning_a_closed_connection_is_the_servers_answer(raw_dispatcher):
    result = await call(raw_dispatcher, "fail", {})
    assert (result.outcome, result.error) == (
        "failed",
        "MCP server `raw` rejected the call to `fail`: the database connection was closed",
    )
    assert (await echo(raw_dispatcher, "next")).value == {
        "content": [{"type": "text", "text": "next"}],
        "isError": False,
    }
    assert raw_dispatcher.registry.mcp_clients["raw"].restarts == 0


@pytest.mark.parametrize(
    "exc, text",
    [
        (KeyboardInterrupt("stop"), "the call to MCP tool `echo` failed: KeyboardInterrupt: stop"),
        (SystemExit(7), "the call to MCP tool `echo` failed: SystemExit: 7"),
    ],
)
async def test_the_sdk_raising_base_exceptions_fails_only_that_call(raw_dispatcher, monkeypatch, exc, text):
    async def call_tool(self, *args, **kwargs):
        raise exc

    monkeypatch.setattr(mcp.ClientSession, "call_tool", call_tool)
    result = await echo(raw_dispatcher, "lost")
    assert (result.outcome, result.error) == ("failed", text)
    monkeypatch.undo()
    after = await echo(raw_dispatcher, "next")
    assert after.value == {"content": [{"type": "text", "text": "next"}], "isError": False}
    assert raw_dispatcher.registry.mcp_clients["raw"].restarts == 0
