"""Completion and inspection through a real kernel: JavaScript globals as cells have them,
calls found from inside their arguments, MCP tools of servers still starting."""

from __future__ import annotations

import json
from typing import Any

import pytest
from dependencies import require
from kernel_driver import EVERYTHING, execute, shell_reply, start_kernel, stop_kernel

from codemode.kernel.helpers import HELPER_NAMES
from codemode.kernel.js_globals import LISTING
from codemode.tools.builtins import builtin_tools


def _complete(kc: Any, code: str) -> dict[str, Any]:
    return shell_reply(kc, kc.complete(code, len(code)), timeout=90)["content"]


def _inspect(kc: Any, code: str, cursor: int) -> dict[str, Any]:
    return shell_reply(kc, kc.inspect(code, cursor), timeout=90)["content"]


def test_globals_and_members_complete_as_the_engine_defines_them(kernel):
    kc = kernel.kc
    reply = _complete(kc, "const n = Math.fl")
    assert reply["matches"] == ["floor"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (15, 17)
    assert _complete(kc, "JSON.str")["matches"] == ["stringify"]
    assert {"keys", "entries", "fromEntries", "assign"} <= set(_complete(kc, "Object.")["matches"])
    assert {"map", "filter", "flatMap", "toSorted"} <= set(_complete(kc, "Array.prototype.")["matches"])
    assert _complete(kc, "await Promise.al")["matches"] == ["all", "allSettled"]
    assert _complete(kc, "sto")["matches"] == ["store"]
    assert _complete(kc, "Ma")["matches"] == ["Map", "Math"]
    types = _complete(kc, "Math.PI")["metadata"]["_jupyter_types_experimental"]
    assert types == [{"start": 5, "end": 7, "text": "PI", "type": "instance", "signature": ""}]
    assert "echo" in _complete(kc, "tools.")["matches"]


BUILT_IN_TOOLS = sorted(tool.js_name for tool in builtin_tools())
"""The tools of a kernel with no ``codemode.toml``, as ``tools.`` completes them (their names are
pinned in ``tests/codemode/test_builtins.py``)."""


def test_a_string_key_after_tools_bracket_completes_tool_names(kernel):
    """``tools["`` and ``tools['`` complete the tool names as the string key being typed:
    the matches replace what was typed inside the quotes, from the quote to the cursor."""
    kc = kernel.kc
    assert _complete(kc, "tools.")["matches"] == BUILT_IN_TOOLS
    reply = _complete(kc, 'await tools["')
    assert reply["matches"] == BUILT_IN_TOOLS
    assert (reply["cursor_start"], reply["cursor_end"]) == (13, 13)
    reply = _complete(kc, "const r = await tools['ec")
    assert reply["matches"] == ["echo"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (23, 25)
    types = reply["metadata"]["_jupyter_types_experimental"]
    signature = "declare const tools: { echo(args: unknown): Promise<unknown>; };"
    assert types == [{"start": 23, "end": 25, "text": "echo", "type": "function", "signature": signature}]
    assert _complete(kc, 'tools[ "re')["matches"] == ["read_file"]
    # The cursor inside a key already closed: what is before the cursor is completed.
    code = 'await tools["ex"]({cmd: "ls"})'
    reply = shell_reply(kc, kc.complete(code, code.index('"]')), timeout=90)["content"]
    assert reply["matches"] == ["exec_command"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (13, 15)
    # After the closing quote the key is written: nothing to complete there.
    assert _complete(kc, 'tools["echo"]')["matches"] == []


def test_a_bare_word_completes_the_helpers_before_the_engines_globals(kernel):
    # Helpers in their table's order (kernel/helpers.py), then the engine's globals sorted.
    reply = _complete(kernel.kc, "const f = e")
    assert reply["matches"] == ["exit", "encodeURI", "encodeURIComponent", "escape", "eval"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (10, 11)


def test_magics_complete_their_names_and_then_their_words(kernel):
    """``%`` at a cell's start completes the magics' names (from the ``%``), the word after
    ``%tools`` the tool names, the one after ``%wait`` and ``%terminate`` the live cells' ids;
    a magic's third word completes nothing, and a ``%`` on a later line is JavaScript's."""
    kc = kernel.kc
    reply = _complete(kc, "%t")
    assert reply["matches"] == ["%terminate", "%tools"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (0, 2)
    reply = _complete(kc, "%tools ex")
    assert reply["matches"] == ["exec_command"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (7, 9)
    assert _complete(kc, "text(1)\n%wa")["matches"] == []
    live = execute(kc, '// @exec: {"yield_time_ms": 0}\nawait new Promise(() => {})')
    cell_id = live.codemode["cell_id"]
    try:
        assert live.codemode["status"] == "running"
        for magic in ("%wait ", "%terminate "):
            reply = _complete(kc, magic)
            assert reply["matches"] == [cell_id]
            assert (reply["cursor_start"], reply["cursor_end"]) == (len(magic), len(magic))
        reply = _complete(kc, f"%wait {cell_id}")
        assert reply["matches"] == [cell_id]
        assert (reply["cursor_start"], reply["cursor_end"]) == (6, 6 + len(cell_id))
        assert _complete(kc, f"%wait {cell_id} ")["matches"] == []
    finally:
        assert execute(kc, f"%terminate {cell_id}").codemode["status"] == "terminated"


@pytest.fixture(scope="module")
def v8_kernel(codemode_kernelspec, tmp_path_factory):
    """A kernel whose cells run in V8 (as a kernelspec installed with --engine v8 runs them)."""
    kernel = start_kernel(tmp_path_factory.mktemp("v8-cwd"), {"CODEMODE_ENGINE": "v8"})
    yield kernel
    stop_kernel(kernel)


@pytest.mark.parametrize("engine", ["quickjs", "v8"])
def test_completion_offers_exactly_what_a_cell_has(request, engine):
    # The same listing, run in a cell: the global object's names and each global's (and its
    # prototype's) members. Completion must offer these, no more and no fewer.
    kernel = request.getfixturevalue("kernel" if engine == "quickjs" else "v8_kernel")
    if engine == "v8":
        # Before any cell ran (the code-mode services are not built yet), the kernelspec's
        # engine decides: V8 has its own Intl.
        assert _complete(kernel.kc, "Intl.DateTimeF")["matches"] == ["DateTimeFormat"]
    cell = json.loads(execute(kernel.kc, "text(" + LISTING.strip() + ")").stdout)
    names = {name for name, _ in cell[""]}
    offered = set(_complete(kernel.kc, "globalThis.")["matches"])
    assert offered | HELPER_NAMES == names
    assert not offered & HELPER_NAMES
    # QuickJS's Intl is the runtime's own (V8's objects behind it), whose members the kernel does not list.
    unlisted = HELPER_NAMES | ({"Intl"} if engine == "quickjs" else set())
    engine_paths = [p for p in cell if p and p.split(".")[0] not in unlisted]
    assert {"Math", "JSON", "Array.prototype", "Promise", "Object"} <= set(engine_paths)
    for path in engine_paths:
        expected = sorted(cell[path], key=lambda m: (m[0].startswith("_"), m[0]))
        reply = _complete(kernel.kc, path + ".")
        got = [[t["text"], t["type"]] for t in reply["metadata"]["_jupyter_types_experimental"]]
        assert got == [list(m) for m in expected], path


def test_inspect_finds_a_tool_from_inside_its_arguments(kernel):
    code = 'await tools.echo({value: 1, note: "a (paren"})'
    reply = _inspect(kernel.kc, code, code.index("1,"))
    assert reply["found"], reply
    assert reply["data"]["text/plain"].startswith("tools.echo\n\n")
    assert "declare const tools" in reply["data"]["text/plain"]
    inner = "text(JSON.stringify(await tools.sleep({ms: 5})))"
    assert _inspect(kernel.kc, inner, inner.index("5"))["data"]["text/plain"].startswith("tools.sleep\n\n")
    # On JSON, inside text's arguments: text (JSON.stringify has no documentation here).
    outer = _inspect(kernel.kc, inner, inner.index("JSON") + 2)
    assert outer["data"]["text/plain"].startswith("text(value: unknown): void")
    assert _inspect(kernel.kc, "text(1); ", 9)["found"] is False


@pytest.fixture
def slow_server_kernel(codemode_kernelspec, tmp_path):
    """A kernel whose MCP server needs three seconds before it starts, and one whose server
    exits after a second."""
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")
    (tmp_path / "codemode.toml").write_text(
        "[mcp_servers.slow]\n"
        'command = "bash"\n'
        f'args = ["-c", "sleep 3; exec node {EVERYTHING} stdio"]\n'
        "startup_timeout_sec = 60\n"
        "[mcp_servers.broken]\n"
        'command = "bash"\n'
        'args = ["-c", "sleep 1; exit 3"]\n'
        "startup_timeout_sec = 60\n"
    )
    kernel = start_kernel(tmp_path)
    yield kernel
    stop_kernel(kernel)


def test_completion_of_tools_waits_for_servers_still_starting(slow_server_kernel):
    # The kernel's first request: the server is still starting (for three seconds more).
    reply = _complete(slow_server_kernel.kc, "await tools.mcp__slow__ec")
    assert reply["matches"] == ["mcp__slow__echo"]


def test_inspection_of_tools_waits_for_servers_still_starting(slow_server_kernel):
    code = 'await tools.mcp__slow__echo({message: "hi"})'
    reply = _inspect(slow_server_kernel.kc, code, code.index("hi"))
    assert reply["found"], reply
    assert reply["data"]["text/plain"].startswith("tools.mcp__slow__echo\n\n")


def test_tools_magic_waits_for_servers_still_starting_and_names_those_that_failed(slow_server_kernel):
    listing = execute(slow_server_kernel.kc, "%tools mcp__slow__ec", timeout=90).stdout
    assert listing.startswith("mcp__slow__echo: "), listing
    problems = listing.split("Configuration problems:\n", 1)[1]
    assert "broken" in problems, listing
