"""codemode.tools.called and codemode.replay.needs: the tools a program names, and those a
registry lacks, read before it runs.

The programs are the real ones of Codex session files (tests/replay/sessions/, written by Codex
CLI 0.171.0), read against codemode's built-in tools.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.replay.needs import CellNeeds, missing_tools_by_cell
from codemode.replay.rollout import read_session
from codemode.tools.base import Tool
from codemode.tools.called import ToolUses, code_only, missing_tools, tool_uses
from codemode.tools.registry import ToolRegistry

pytestmark = pytest.mark.unit

SESSIONS = Path(__file__).resolve().parents[1] / "replay" / "sessions"


def program(name: str, call_id: str) -> str:
    for line in (SESSIONS / name).read_text(encoding="utf-8").splitlines():
        payload = json.loads(line).get("payload", {})
        if payload.get("type") == "custom_tool_call" and payload.get("call_id") == call_id:
            return payload["input"]
    raise AssertionError(f"{call_id} not in {name}")


@pytest.fixture
async def builtins():
    registry = await ToolRegistry.create()
    yield registry.tools
    await registry.aclose()


@pytest.mark.parametrize(
    ("name", "call_id", "expected"),
    [
        (
            "s12_other_nested_tools.jsonl",
            "call_exec_1",
            ToolUses(("clock__curr_time", "get_goal"), ()),
        ),
        (
            "s12_other_nested_tools.jsonl",
            "call_exec_2",
            ToolUses(("list_mcp_resources", "mcp__everything__get_sum"), ()),
        ),
        ("s03_error.jsonl", "call_exec_3", ToolUses(("no_such_tool",), ())),
        ("s06_image.jsonl", "call_exec_2", ToolUses(("mcp__everything__get_tiny_image",), ())),
        # apply_patch, write_stdin and view_image are built-ins.
        ("s07_long_session.jsonl", "call_exec_4", ToolUses((), ())),
        # ALL_TOOLS can pick any tool; "shell-ish tools: " in a string names none.
        ("s07_long_session.jsonl", "call_exec_3", ToolUses((), ("line 2: ALL_TOOLS",))),
        ("s06_image.jsonl", "call_exec_1", ToolUses((), ())),
    ],
)
async def test_missing_tools_of_real_programs(builtins, name, call_id, expected):
    assert missing_tools(program(name, call_id), builtins) == expected


async def test_a_tool_is_found_by_either_name(builtins):
    """``mcp__everything__get_sum`` (JS) and ``mcp__everything__get-sum`` (code mode) name one tool."""
    tool = Tool(name="get-sum", namespace="mcp__everything__", description="", handler=None)  # type: ignore[arg-type]
    source = 'await tools.mcp__everything__get_sum({a: 1}); await tools["mcp__everything__get-sum"]({a: 2});'
    assert missing_tools(source, builtins) == ToolUses(("mcp__everything__get_sum", "mcp__everything__get-sum"), ())
    assert missing_tools(source, [*builtins, tool]) == ToolUses((), ())


def test_every_static_form_is_read():
    source = (
        "const {exec_command, write_stdin: w, 'apply_patch': p, view_image = null} = await tools;\n"
        "tools?.a(); tools . b; tools['c'](); tools[\"d\"]; const f = tools.e;\n"
        "text(`${tools.f({})} and ${`${tools.g}`}`);\n"
    )
    assert tool_uses(source) == ToolUses(
        ("exec_command", "write_stdin", "apply_patch", "view_image", "a", "b", "c", "d", "e", "f", "g"), ()
    )


def test_what_static_reading_cannot_name_is_listed_with_its_line():
    source = (
        "const name = 'x';\n"
        "await tools[name]();\n"
        "helper(tools);\n"
        "const {a, ...rest} = tools;\n"
        "ALL_TOOLS.map(t => t.name);\n"
        "globalThis.tools; eval('1'); new Function('');\n"
        "\\u0074ools.x();\n"
    )
    assert tool_uses(source) == ToolUses(
        ("a",),
        (
            "line 2: tools used as a value",
            "line 3: tools used as a value",
            "line 4: a destructuring of tools with a part that names no tool",
            "line 5: ALL_TOOLS",
            "line 6: globalThis",
            "line 6: tools used as a value",
            "line 6: eval",
            "line 6: Function",
            "line 7: a \\u escape",
        ),
    )


def test_comments_and_strings_name_nothing():
    source = "// tools.a()\n/* tools.b() */ text(\"tools.c()\"); text('tools'); text(`tools.d ${1}`);\n"
    assert tool_uses(source) == ToolUses((), ())
    assert code_only('x("a\\"b") // c\n') == 'x("    ")     \n'


async def test_the_cells_of_a_session_that_need_missing_tools(builtins):
    """s12 read as a session: both cells need tools codemode's built-ins lack; s07: the cells
    that call the MCP server, and the one that reads ALL_TOOLS."""
    s12 = missing_tools_by_cell(read_session(SESSIONS / "s12_other_nested_tools.jsonl"), builtins)
    assert s12 == [
        CellNeeds("call_exec_1", 14, ("clock__curr_time", "get_goal"), ()),
        CellNeeds("call_exec_2", 19, ("list_mcp_resources", "mcp__everything__get_sum"), ()),
    ]
    s07 = missing_tools_by_cell(read_session(SESSIONS / "s07_long_session.jsonl"), builtins)
    assert [(n.call_id, n.missing, n.unread) for n in s07] == [
        ("call_exec_3", (), ("line 2: ALL_TOOLS",)),
        ("call_exec_5", ("mcp__everything__get_sum",), ()),
        ("call_exec_15", ("mcp__everything__get_tiny_image",), ()),
    ]
    assert s07[0].line == 18
