"""Real MCP servers started by the tests: ``mcp-server-git`` (PyPI),
``@modelcontextprotocol/server-filesystem`` and ``server-memory`` (npm), and a streamable HTTP
server built with the SDK's ``MCPServer`` (FastMCP) on loopback - tool calls, bearer token and
extra headers, progress and cancellation through it."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dependencies import require

from codemode.cancellation import CancellationToken
from codemode.config import parse_config
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent / "dispatch"))
from dispatch_helpers import assert_abort_elapsed  # noqa: E402

pytestmark = pytest.mark.timeout(120)

TEST_SERVER = Path(__file__).resolve().parent / "servers" / "cm_test_server.py"


async def call(dispatcher, js_name, args, token=None, cell="1"):
    return await dispatcher.handle_tool_call(cell, "tool-1", js_name, "function", args, token or CancellationToken())


async def open_registry(servers: dict) -> tuple[ToolRegistry, ToolCallRuntime]:
    registry = await ToolRegistry.create(parse_config({"mcp_servers": servers}))
    await registry.ready_tools()
    assert registry.errors == []
    return registry, ToolCallRuntime(registry)


def text_of(result) -> str:
    assert result.outcome == "completed", result.error
    return "\n".join(c["text"] for c in result.value["content"] if c["type"] == "text")


def npm_server(npm_tools: Path, package: str) -> Path:
    script = npm_tools / "@modelcontextprotocol" / package / "dist" / "index.js"
    require(script.exists(), f"{package} is not installed in .npm-tools")
    return script


# -- mcp-server-git ------------------------------------------------------------------
@pytest.fixture
def git_repo(tmp_path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "T",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "T",
        "GIT_COMMITTER_EMAIL": "t@example.org",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-q", "-m", "first commit"]):
        if args[0] == "add":
            (repo / "README.md").write_text("hello\n")
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    return repo


async def test_git_server_reads_status_and_log_of_a_temp_repo(git_repo):
    registry, dispatcher = await open_registry(
        {
            "git": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_git", "--repository", str(git_repo)],
            }
        }
    )
    try:
        (git_repo / "new.txt").write_text("untracked\n")
        status = text_of(await call(dispatcher, "mcp__git__git_status", {"repo_path": str(git_repo)}))
        assert "new.txt" in status
        log = text_of(await call(dispatcher, "mcp__git__git_log", {"repo_path": str(git_repo)}))
        assert "first commit" in log
        added = await call(dispatcher, "mcp__git__git_add", {"repo_path": str(git_repo), "files": ["new.txt"]})
        assert added.success is True
        staged = text_of(await call(dispatcher, "mcp__git__git_diff_staged", {"repo_path": str(git_repo)}))
        assert "+untracked" in staged
    finally:
        await registry.aclose()


# -- server-filesystem ---------------------------------------------------------------
async def test_filesystem_server_writes_reads_and_refuses_paths_outside_its_root(npm_tools, tmp_path):
    script = npm_server(npm_tools, "server-filesystem")
    root = (tmp_path / "root").resolve()
    root.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("not for you")
    registry, dispatcher = await open_registry({"fs": {"command": "node", "args": [str(script), str(root)]}})
    try:
        wrote = await call(dispatcher, "mcp__fs__write_file", {"path": str(root / "a.txt"), "content": "alpha\nbeta\n"})
        assert wrote.success is True
        assert (root / "a.txt").read_text() == "alpha\nbeta\n"
        read = await call(dispatcher, "mcp__fs__read_text_file", {"path": str(root / "a.txt")})
        assert "alpha\nbeta" in text_of(read)
        denied = await call(dispatcher, "mcp__fs__read_text_file", {"path": str(outside)})
        # A tool-level error resolves (it does not reject) with isError, as in Codex.
        assert denied.outcome == "completed" and denied.success is False
        assert denied.value["isError"] is True
        assert "not for you" not in json.dumps(denied.value)
    finally:
        await registry.aclose()


# -- server-memory -------------------------------------------------------------------
async def test_memory_server_creates_then_reads_entities(npm_tools, tmp_path):
    script = npm_server(npm_tools, "server-memory")
    memory_file = tmp_path / "memory.jsonl"
    registry, dispatcher = await open_registry(
        {
            "memory": {
                "command": "node",
                "args": [str(script)],
                "env": {"MEMORY_FILE_PATH": str(memory_file)},
            }
        }
    )
    try:
        created = await call(
            dispatcher,
            "mcp__memory__create_entities",
            {
                "entities": [
                    {"name": "codemode", "entityType": "project", "observations": ["runs JavaScript cells"]},
                ]
            },
        )
        assert created.success is True
        graph = await call(dispatcher, "mcp__memory__read_graph", {})
        entities = graph.value["structuredContent"]["entities"]
        assert [(e["name"], e["entityType"], e["observations"]) for e in entities] == [
            ("codemode", "project", ["runs JavaScript cells"])
        ]
        assert "codemode" in memory_file.read_text()
    finally:
        await registry.aclose()


# -- streamable HTTP (MCPServer / FastMCP on loopback) ---------------------------------
@pytest.fixture
def http_server():
    """The test server over streamable HTTP with bearer token ``s3cret``; yields its URL."""
    proc = subprocess.Popen(
        [sys.executable, str(TEST_SERVER), "http", "--token", "s3cret"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("PORT "), f"the HTTP test server did not start (said {line!r})"
        yield f"http://127.0.0.1:{int(line.split()[1])}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def test_http_server_with_bearer_token_and_headers(http_server, monkeypatch):
    monkeypatch.setenv("CM_TEST_TOKEN", "s3cret")
    registry, dispatcher = await open_registry(
        {
            "remote": {
                "url": http_server,
                "bearer_token_env_var": "CM_TEST_TOKEN",
                "http_headers": {"X-Codemode-Test": "from-config"},
            }
        }
    )
    try:
        assert text_of(await call(dispatcher, "mcp__remote__add", {"a": 2, "b": 40})) == "42"
        seen = await call(dispatcher, "mcp__remote__headers", {})
        assert seen.value["structuredContent"] == {"authorization": "Bearer s3cret", "x_codemode_test": "from-config"}
    finally:
        await registry.aclose()


async def test_http_server_without_the_token_fails_to_start_with_a_clear_error(http_server, monkeypatch):
    monkeypatch.delenv("CM_TEST_TOKEN", raising=False)
    registry = await ToolRegistry.create(
        parse_config(
            {
                "mcp_servers": {
                    "remote": {
                        "url": http_server,
                        "bearer_token_env_var": "CM_TEST_TOKEN",
                        "startup_timeout_sec": 20,
                    }
                }
            }
        )
    )
    try:
        tools = await registry.ready_tools()
        assert not [t for t in tools if t.origin == "mcp:remote"]
        assert registry.errors == [
            "MCP server `remote` failed to start: the environment variable CM_TEST_TOKEN "
            "(bearer_token_env_var) is not set."
        ]
    finally:
        await registry.aclose()


async def _progress_then_cancel(registry, dispatcher) -> None:
    events = []
    dispatcher.add_listener(events.append)
    token = CancellationToken()
    seen_started: list[float] = []
    dispatcher.add_listener(
        lambda e: e.kind == "started" and e.cell_id == "2" and seen_started.append(time.monotonic())
    )
    before = time.monotonic()
    task = asyncio.ensure_future(call(dispatcher, "mcp__t__slow", {"steps": 50, "step_ms": 200}, token, cell="2"))
    second_step = asyncio.Event()  # 200 ms after the first: an elapsed time of zero cannot pass
    dispatcher.add_listener(
        lambda e: e.kind == "progress" and e.cell_id == "2" and e.progress == 2 and second_step.set()
    )
    await asyncio.wait_for(second_step.wait(), 30)
    cancelled_at = time.monotonic()
    token.cancel()
    result = await asyncio.wait_for(task, 10)
    assert result.outcome == "aborted"
    assert_abort_elapsed(
        result.error, shell=False, at_least=cancelled_at - seen_started[0], at_most=time.monotonic() - before
    )
    first = [e for e in events if e.kind == "progress" and e.cell_id == "2"][0]
    assert (first.progress, first.total, first.message, first.tool) == (1, 50, "step 1 of 50", "mcp__t__slow")
    # The cancellation reached the server: its handler was cancelled (MCP's
    # notifications/cancelled on stdio; the request's stream closed on HTTP).
    for _ in range(100):
        count = await call(dispatcher, "mcp__t__cancellations", {})
        if count.value["structuredContent"]["result"] == 1:
            break
        await asyncio.sleep(0.05)
    assert count.value["structuredContent"]["result"] == 1
    done = await call(dispatcher, "mcp__t__slow", {"steps": 2, "step_ms": 1})
    assert text_of(done) == "done after 2 steps"


async def test_http_server_progress_and_cancellation(http_server, monkeypatch):
    monkeypatch.setenv("CM_TEST_TOKEN", "s3cret")
    registry, dispatcher = await open_registry({"t": {"url": http_server, "bearer_token_env_var": "CM_TEST_TOKEN"}})
    try:
        await _progress_then_cancel(registry, dispatcher)
    finally:
        await registry.aclose()


async def test_stdio_server_progress_and_cancellation():
    registry, dispatcher = await open_registry({"t": {"command": sys.executable, "args": [str(TEST_SERVER), "stdio"]}})
    try:
        await _progress_then_cancel(registry, dispatcher)
    finally:
        await registry.aclose()


async def test_namespace_description_comes_first_in_the_tool_description():
    # As in Codex, tools in a namespace get the namespace's description and a blank line in
    # front; for an MCP server that is its description and instructions.
    registry, _ = await open_registry({"t": {"command": sys.executable, "args": [str(TEST_SERVER), "stdio"]}})
    try:
        tool = registry.get("mcp__t__add")
        expected = (  # DESCRIPTION and INSTRUCTIONS of servers/cm_test_server.py
            "codemode test server\n\nTest server for codemode: arithmetic, headers and a slow, cancellable task."
        )
        assert tool.namespace_description == expected
        assert tool.augmented_description == (
            f"{expected}\n\nAdds two integers.\n\nexec tool declaration:\n```ts\n{tool.declaration}\n```"
        )
        assert tool.definition()["description"] == tool.augmented_description
    finally:
        await registry.aclose()


async def test_server_killed_mid_call_rejects_that_call_and_the_next_call_works(tmp_path):
    import psutil

    registry, dispatcher = await open_registry(
        {
            "t": {
                "command": sys.executable,
                "args": [str(TEST_SERVER), "stdio"],
                "cwd": str(tmp_path),
            }
        }
    )
    try:
        progressed = asyncio.Event()
        dispatcher.add_listener(lambda e: e.kind == "progress" and progressed.set())
        task = asyncio.ensure_future(call(dispatcher, "mcp__t__slow", {"steps": 100, "step_ms": 200}))
        await asyncio.wait_for(progressed.wait(), 30)
        servers = [
            p
            for p in psutil.Process().children(recursive=True)
            if str(TEST_SERVER) in p.cmdline() and not any(a.endswith("launcher.py") for a in p.cmdline())
        ]
        assert len(servers) == 1
        servers[0].kill()
        failed = await asyncio.wait_for(task, 30)
        assert failed.outcome == "failed"
        assert failed.error == (
            "MCP server `t` stopped during the call to `slow` (Connection closed); it is restarted on the next call."
        )
        assert text_of(await call(dispatcher, "mcp__t__add", {"a": 1, "b": 1})) == "2"
        assert registry.mcp_clients["t"].restarts == 1
    finally:
        await registry.aclose()
