"""``tool_timeout_sec`` of an MCP call against ``server-everything``: a call that runs past it is
stopped with a sentence naming it; time a person takes to answer the server's elicitation does not
count (Codex's "pause timer for elicitations")."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import pytest_asyncio
from dependencies import require

from codemode.cancellation import CancellationToken
from codemode.config import parse_config
from codemode.dispatch.dispatcher import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]

REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / ".npm-tools" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
TIMEOUT_S = 2
"""The servers' ``tool_timeout_sec``; the person below answers after more than that."""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def dispatcher():
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")
    server = {"command": "node", "args": [str(EVERYTHING), "stdio"], "startup_timeout_sec": 30}
    registry = await ToolRegistry.create(
        parse_config({"mcp_servers": {"everything": {**server, "tool_timeout_sec": TIMEOUT_S}}})
    )
    await registry.ready_tools()
    runtime = ToolCallRuntime(registry)

    async def slow_person(cell_id: str, prompt: str) -> str:
        await asyncio.sleep(TIMEOUT_S + 1)  # the answer comes after the tool's time would be up
        return "n"

    runtime.asker = slow_person
    yield runtime
    await registry.aclose()


async def call(dispatcher: ToolCallRuntime, name: str, args: dict):
    return await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": name, "namespace": "mcp__everything__"}, "function", args, CancellationToken()
    )


async def test_a_call_past_its_timeout_is_stopped_naming_it(dispatcher):
    result = await call(dispatcher, "trigger_long_running_operation", {"duration": 30, "steps": 30})
    assert (result.outcome, result.error) == (
        "failed",
        f"MCP tool `trigger-long-running-operation` did not answer within {TIMEOUT_S} s (tool_timeout_sec).",
    )


async def test_time_spent_asking_a_person_does_not_count(dispatcher):
    result = await call(dispatcher, "trigger_elicitation_request", {})
    assert result.outcome == "completed", result.error
    assert result.value["content"][0]["text"] == "❌ User declined to provide the requested information."
