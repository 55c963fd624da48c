"""Codex's MCP resource tools (:mod:`codemode.tools.mcp_resources`) against ``server-everything``:
the text Codex CLI 0.171.0 gave a code-mode cell (``s12_other_nested_tools``), the other shapes,
and the errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import pytest_asyncio
from dependencies import require

from codemode.cancellation import CancellationToken
from codemode.config import parse_config
from codemode.dispatch.dispatcher import ToolCallRuntime
from codemode.replay.rollout import read_session
from codemode.tools.registry import ToolRegistry

pytestmark = [pytest.mark.timeout(120), pytest.mark.asyncio(loop_scope="module")]

REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / ".npm-tools" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
S12 = REPO / "tests" / "replay" / "sessions" / "s12_other_nested_tools.jsonl"
FEATURES = "demo://resource/static/document/features.md"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def everything_twice():
    """Two server-everything servers, named so that the second configured sorts first (started
    once for the module, in the module's event loop)."""
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")
    server = {"command": "node", "args": [str(EVERYTHING), "stdio"], "startup_timeout_sec": 30}
    registry = await ToolRegistry.create(parse_config({"mcp_servers": {"everything": server, "alpha": server}}))
    await registry.ready_tools()
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def call(dispatcher: ToolCallRuntime, name: str, args: dict) -> tuple[str, object]:
    result = await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": name, "namespace": None}, "function", args, CancellationToken()
    )
    return result.outcome, result.value if result.outcome == "completed" else result.error


def recorded_listing() -> str:
    """The text of ``list_mcp_resources({server: "everything"})`` in Codex's session file."""
    for nested in read_session(S12).nested_tool_calls:
        if nested.item.get("tool") == "list_mcp_resources":
            return nested.item["result"]["content"][0]["text"]
    raise AssertionError("s12 holds no list_mcp_resources call")


async def test_listing_one_server_gives_codexs_text(everything_twice):
    outcome, text = await call(everything_twice, "list_mcp_resources", {"server": "everything"})
    assert (outcome, text) == ("completed", recorded_listing())


async def test_listing_every_server_sorts_servers_and_omits_server(everything_twice):
    _, text = await call(everything_twice, "list_mcp_resources", {})
    listed = json.loads(text)
    assert list(listed) == ["resources"]
    one = json.loads(recorded_listing())["resources"]
    assert listed["resources"] == [{**r, "server": "alpha"} for r in one] + one
    _, text = await call(everything_twice, "list_mcp_resource_templates", {"server": " everything "})
    assert text == (
        '{"server":"everything","resourceTemplates":[{"server":"everything",'
        '"uriTemplate":"demo://resource/dynamic/text/{resourceId}","name":"Dynamic Text Resource",'
        '"description":"Plaintext dynamic resource fabricated from the {resourceId} variable, which must be an '
        'integer.","mimeType":"text/plain"},{"server":"everything",'
        '"uriTemplate":"demo://resource/dynamic/blob/{resourceId}","name":"Dynamic Blob Resource",'
        '"description":"Binary (base64) dynamic resource fabricated from the {resourceId} variable, which must be '
        'an integer.","mimeType":"application/octet-stream"}]}'
    )
    _, text = await call(everything_twice, "list_mcp_resource_templates", {})
    assert [t["server"] for t in json.loads(text)["resourceTemplates"]] == [
        "alpha",
        "alpha",
        "everything",
        "everything",
    ]


async def test_reading_a_resource_gives_server_uri_and_contents(everything_twice):
    _, text = await call(everything_twice, "read_mcp_resource", {"server": "everything", "uri": FEATURES})
    read = json.loads(text)
    assert list(read) == ["server", "uri", "contents"] and read["uri"] == FEATURES
    assert [list(c) for c in read["contents"]] == [["uri", "mimeType", "text"]]
    assert read["contents"][0]["text"].startswith("# Everything Server - Features\n")


@pytest.mark.parametrize(
    ("name", "args", "error"),
    [
        ("list_mcp_resources", {"cursor": "x"}, "cursor can only be used when a server is specified"),
        ("list_mcp_resource_templates", {"cursor": "x"}, "cursor can only be used when a server is specified"),
        ("list_mcp_resources", {"server": "nope"}, "resources/list failed: unknown MCP server 'nope'"),
        ("read_mcp_resource", {"server": " ", "uri": FEATURES}, "server must be provided"),
        ("read_mcp_resource", {"server": "everything", "uri": ""}, "uri must be provided"),
        (
            "read_mcp_resource",
            {"server": "everything", "uri": "demo://nope"},
            "resources/read failed: resources/read failed for `everything` (demo://nope): "
            "MCP error -32602: Resource demo://nope not found",
        ),
    ],
)
async def test_errors_are_codexs(everything_twice, name, args, error):
    assert await call(everything_twice, name, args) == ("failed", error)


async def test_the_tools_come_only_with_an_mcp_server():
    registry = await ToolRegistry.create(parse_config({}))
    try:
        assert registry.get("list_mcp_resources") is None
    finally:
        await registry.aclose()
