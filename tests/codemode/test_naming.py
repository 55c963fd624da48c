"""Tool naming: Codex's code-mode and MCP naming rules; observed host normalisation."""

import pytest

from codemode.wire.tool_names import (
    code_mode_name,
    is_identifier,
    mcp_tool_name,
    normalize_identifier,
    sanitize_api_name,
)

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "raw, js",
    [
        ("hidden-dynamic-tool", "hidden_dynamic_tool"),
        ("mcp__ologs__get_profile", "mcp__ologs__get_profile"),
        ("mcp__srv__get-thing", "mcp__srv__get_thing"),
        ("weird name!", "weird_name_"),
        ("ünïcode", "_n_code"),
        ("", "_"),
        ("1starts-with-digit", "_starts_with_digit"),
        ("$dollar_ok", "$dollar_ok"),
        ("dots.and.dashes-x", "dots_and_dashes_x"),
    ],
)
def test_normalize_identifier(raw, js):
    assert normalize_identifier(raw) == js


def test_is_identifier():
    assert is_identifier("a_b") and not is_identifier("a-b") and not is_identifier("")


@pytest.mark.parametrize(
    "namespace, name, raw",
    [
        (None, "echo", "echo"),
        ("mcp__rmcp__", "echo", "mcp__rmcp__echo"),
        ("editor", "apply_patch", "editor__apply_patch"),
        ("editor", "_private", "editor_private"),
    ],
)
def test_code_mode_name(namespace, name, raw):
    assert code_mode_name(name, namespace) == raw


def test_mcp_names_are_sanitised():
    assert sanitize_api_name("echo-tool") == "echo_tool"
    assert sanitize_api_name("") == "_"
    namespace, name = mcp_tool_name("my server", "echo-tool")
    assert (namespace, name) == ("mcp__my_server__", "echo_tool")
    assert normalize_identifier(code_mode_name(name, namespace)) == "mcp__my_server__echo_tool"


def test_long_mcp_names_are_cut_with_a_stable_hash():
    namespace, name = mcp_tool_name("srv", "t" * 100)
    raw = namespace + name
    assert len(raw) == 64
    assert raw == "".join(mcp_tool_name("srv", "t" * 100))
    assert raw != "".join(mcp_tool_name("srv", "t" * 99))
    namespace, name = mcp_tool_name("s" * 80, "tool")
    assert len(namespace + name) <= 64 and namespace.endswith("__")
