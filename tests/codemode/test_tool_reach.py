"""Which cells wait for MCP servers still starting (codemode.tools.reach, ToolRegistry.tools_for)."""

from __future__ import annotations

import asyncio

import pytest

from codemode.config import Config, McpServerConfig
from codemode.tools.reach import may_use_unlisted
from codemode.tools.registry import ToolRegistry

LISTED = {"echo", "exec_command", "mcp__time__get_current_time"}


@pytest.mark.unit
@pytest.mark.parametrize(
    "source",
    [
        'text("one")',
        "text(JSON.stringify(await tools.echo({a: 1})))",
        'await tools?.echo(1); await tools["exec_command"]({cmd: "ls"}); await tools [ \'echo\' ](2)',
        "await tools.mcp__time__get_current_time({})",
        "const toolsList = 1; my_tools.x; $tools; tools$",
    ],
)
def test_cells_that_name_only_listed_tools_do_not_wait(source):
    assert not may_use_unlisted(source, LISTED)


@pytest.mark.unit
@pytest.mark.parametrize(
    "source",
    [
        "await tools.mcp__everything__echo({})",
        "await tools.nope()",
        'await tools["mcp__" + name]()',
        "const t = tools; await t.mcp__x__y()",
        "Object.keys(tools)",
        "text(ALL_TOOLS.length)",
        'globalThis["to" + "ols"]',
        'eval("tools.x")',
        'Function("return tools")()',
        "\\u0074ools.x()",
        "tools /* a comment */ .echo(1)",
        'text("tools")',
    ],
)
def test_cells_that_may_reach_other_tools_wait(source):
    assert may_use_unlisted(source, LISTED)


async def test_only_a_cell_that_may_use_a_starting_servers_tools_waits_for_it(tmp_path):
    gate = tmp_path / "gate"
    server = McpServerConfig(name="slow", command="sh", args=["-c", f"while [ ! -e {gate} ]; do sleep 0.05; done"])
    server.startup_timeout_sec = 30
    registry = await ToolRegistry.create(Config(mcp_servers={"slow": server}))
    try:
        names = [tool.js_name for tool in await registry.tools_for('text(await tools.echo("x"))')]
        assert "echo" in names and not registry.mcp_clients["slow"].settled
        waiting = asyncio.ensure_future(registry.tools_for("await tools.mcp__slow__x()"))
        await asyncio.sleep(0)
        assert not waiting.done()
        gate.touch()
        assert [tool.js_name for tool in await waiting] == names  # the server exits: no tools
        assert registry.mcp_clients["slow"].settled
    finally:
        await registry.aclose()
