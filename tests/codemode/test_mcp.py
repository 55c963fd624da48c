"""MCP servers as tool sources: ``mcp-server-time`` (PyPI, always) and
``@modelcontextprotocol/server-everything`` (npm, installed into ``.npm-tools`` by ``scripts/install-tools.sh``)."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

import psutil
import pytest
from dependencies import require
from polling import poll_until

from codemode.cancellation import CancellationToken
from codemode.config import parse_config
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent / "dispatch"))
from dispatch_helpers import assert_abort_elapsed  # noqa: E402

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]
EVERYTHING = REPO / ".npm-tools" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"


def server_processes(marker: str, with_launchers: bool = False) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = proc.info["cmdline"] or []
        if not with_launchers and any(part.endswith("launcher.py") for part in cmdline):
            continue  # the supervisor (codemode.tools.launcher), not the server itself
        if any(marker in part for part in cmdline) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


@pytest.fixture
async def time_tools(tmp_path):
    marker = "--local-timezone=UTC"
    config = parse_config(
        {
            "mcp_servers": {
                "time": {
                    "command": sys.executable,
                    "args": ["-m", "mcp_server_time", marker],
                    "cwd": str(tmp_path),
                }
            }
        }
    )
    registry = await ToolRegistry.create(config)
    yield registry, ToolCallRuntime(registry)
    await registry.aclose()


async def call(dispatcher, namespace, name, args, token=None, cell="1"):
    return await dispatcher.handle_tool_call(
        cell, "tool-1", {"name": name, "namespace": namespace}, "function", args, token or CancellationToken()
    )


async def test_time_server_tools_are_named_typed_and_callable(time_tools):
    registry, dispatcher = time_tools
    tools = await registry.ready_tools()
    names = [t.js_name for t in tools if t.origin == "mcp:time"]
    assert names == ["mcp__time__convert_time", "mcp__time__get_current_time"]
    convert = registry.get("mcp__time__convert_time")
    assert convert.namespace == "mcp__time__" and convert.raw_name == "mcp__time__convert_time"
    assert "): Promise<CallToolResult<{" in convert.declaration
    result = await call(
        dispatcher,
        "mcp__time__",
        "convert_time",
        {
            "source_timezone": "UTC",
            "time": "12:00",
            "target_timezone": "Asia/Tokyo",
        },
    )
    assert result.outcome == "completed"
    value = result.value
    assert set(value) == {"content", "structuredContent", "isError"}
    assert value["isError"] is False and value["content"][0]["type"] == "text"
    assert value["structuredContent"]["target"]["datetime"].endswith("T21:00:00+09:00")
    assert value["structuredContent"]["time_difference"] == "+9.0h"


async def test_tool_error_resolves_with_is_error(time_tools):
    registry, dispatcher = time_tools
    await registry.ready_tools()
    result = await call(dispatcher, "mcp__time__", "get_current_time", {"timezone": "Nowhere/Nothing"})
    assert result.outcome == "completed" and result.success is False
    assert result.value["isError"] is True and "Nowhere/Nothing" in result.value["content"][0]["text"]


async def test_arguments_are_validated_before_the_call(time_tools):
    registry, dispatcher = time_tools
    await registry.ready_tools()
    result = await call(dispatcher, "mcp__time__", "get_current_time", {})
    assert (result.outcome, result.error) == (
        "failed",
        'tool `mcp__time__get_current_time` received invalid arguments at the top level: "timezone" is a '
        "required property (schema rule `required`).",
    )


async def test_crashed_server_is_restarted_on_the_next_call_and_stopped_on_close(tmp_path):
    config = parse_config(
        {
            "mcp_servers": {
                "time": {
                    "command": sys.executable,
                    "args": ["-m", "mcp_server_time", "--local-timezone=UTC"],
                    "cwd": str(tmp_path),
                }
            }
        }
    )
    registry = await ToolRegistry.create(config)
    dispatcher = ToolCallRuntime(registry)
    try:
        await registry.ready_tools()
        procs = [p for p in server_processes("mcp_server_time") if p.cwd() == str(tmp_path)]
        assert len(procs) == 1
        procs[0].kill()
        procs[0].wait(5)
        args = {"timezone": "UTC"}
        first = await call(dispatcher, "mcp__time__", "get_current_time", args)
        if first.outcome == "failed":
            assert first.error == (
                "MCP server `time` stopped during the call to `get_current_time` (Connection closed); "
                "it is restarted on the next call."
            )
            first = await call(dispatcher, "mcp__time__", "get_current_time", args)
        assert first.outcome == "completed" and first.value["isError"] is False
        assert registry.mcp_clients["time"].restarts == 1
    finally:
        await registry.aclose()
    # aclose returns once the launcher is gone, and the launcher waits for the server.
    assert [p for p in server_processes("mcp_server_time", with_launchers=True) if p.cwd() == str(tmp_path)] == []


@pytest.mark.unit
async def test_server_that_cannot_start_is_reported_once(tmp_path):
    config = parse_config({"mcp_servers": {"broken": {"command": str(tmp_path / "missing-server")}}})
    registry = await ToolRegistry.create(config)
    try:
        tools = await registry.ready_tools()
        assert all(t.origin == "builtin" for t in tools)
        assert registry.errors == [
            f"MCP server `broken` failed to start: the command `{tmp_path / 'missing-server'}` does not exist "
            "or is not executable."
        ]
    finally:
        await registry.aclose()


def processes_in(cwd: Path) -> list[psutil.Process]:
    """Live processes (servers and their launchers) whose working directory is ``cwd``."""
    found = []
    for proc in psutil.process_iter(["cwd", "status"]):
        if proc.info["cwd"] == str(cwd) and proc.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(proc)
    return found


def silent_server(tmp_path: Path, startup_timeout_sec: float):
    # A "server" that never answers MCP's initialize: `sleep`.
    return parse_config(
        {
            "mcp_servers": {
                "slow": {
                    "command": "sleep",
                    "args": ["300"],
                    "cwd": str(tmp_path),
                    "startup_timeout_sec": startup_timeout_sec,
                }
            }
        }
    )


async def test_server_that_misses_its_startup_timeout_is_stopped_at_the_timeout(tmp_path):
    registry = await ToolRegistry.create(silent_server(tmp_path, 0.5))
    try:
        tools = await registry.ready_tools()
        assert all(t.origin == "builtin" for t in tools)
        assert registry.errors == [
            "MCP server `slow` did not start within 0.5 s (startup_timeout_sec) and was stopped; "
            "its tools are unavailable."
        ]
        # Stopped by the time-out itself, before anyone closes the registry: in a task of the
        # client's, which nothing reports the end of, hence polled.
        await poll_until(lambda: processes_in(tmp_path) == [], "the server stopped at its time-out")
    finally:
        await registry.aclose()
    assert processes_in(tmp_path) == []


async def test_close_stops_a_server_that_is_still_starting(tmp_path):
    registry = await ToolRegistry.create(silent_server(tmp_path, 600))
    # The client starts its server in the background and reports nothing until it answers
    # (never, here): the process is polled for.
    await poll_until(lambda: any(p.name() == "sleep" for p in processes_in(tmp_path)), "the server started")
    await registry.aclose()
    # aclose returns once the process is gone: nothing left, without waiting further.
    assert processes_in(tmp_path) == []
    assert await registry.ready_tools() == registry.tools


@pytest.fixture
def needs_everything() -> None:
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")


@pytest.mark.usefixtures("needs_everything")
async def test_everything_progress_then_cancel_mid_way():
    config = parse_config({"mcp_servers": {"everything": {"command": "node", "args": [str(EVERYTHING), "stdio"]}}})
    registry = await ToolRegistry.create(config)
    dispatcher = ToolCallRuntime(registry)
    events = []
    dispatcher.add_listener(events.append)
    try:
        await registry.ready_tools()
        assert registry.get("mcp__everything__trigger_long_running_operation") is not None
        total = await call(dispatcher, "mcp__everything__", "get_sum", {"a": 2, "b": 40})
        assert total.value["content"][0]["text"] == "The sum of 2 and 40 is 42."
        token = CancellationToken()
        progressed = asyncio.Event()
        seen_started: list[float] = []

        def watch(event):
            if event.cell_id == "2" and event.kind == "started":
                seen_started.append(time.monotonic())  # after the call's clock started
            if event.cell_id == "2" and event.kind == "progress":
                progressed.set()

        dispatcher.add_listener(watch)
        before = time.monotonic()
        task = asyncio.ensure_future(
            call(
                dispatcher,
                "mcp__everything__",
                "trigger_long_running_operation",
                {"duration": 10, "steps": 10},
                token,
                cell="2",
            )
        )
        await asyncio.wait_for(progressed.wait(), 30)  # the first step takes 1 s
        cancelled_at = time.monotonic()
        token.cancel()
        result = await asyncio.wait_for(task, 5)
        assert result.outcome == "aborted"
        assert_abort_elapsed(
            result.error, shell=False, at_least=cancelled_at - seen_started[0], at_most=time.monotonic() - before
        )
        progress = [e for e in events if e.kind == "progress" and e.cell_id == "2"]
        assert progress[0].progress == 1 and progress[0].total == 10
        again = await call(dispatcher, "mcp__everything__", "echo", {"message": "still here"})
        assert again.value["content"] == [{"type": "text", "text": "Echo: still here"}]
    finally:
        await registry.aclose()


@pytest.mark.usefixtures("needs_everything")
async def test_everything_image_block_is_passed_through():
    config = parse_config({"mcp_servers": {"everything": {"command": "node", "args": [str(EVERYTHING), "stdio"]}}})
    registry = await ToolRegistry.create(config)
    dispatcher = ToolCallRuntime(registry)
    try:
        await registry.ready_tools()
        result = await call(dispatcher, "mcp__everything__", "get_tiny_image", {})
        images = [c for c in result.value["content"] if c["type"] == "image"]
        assert images and images[0]["mimeType"] == "image/png" and images[0]["data"]
    finally:
        await registry.aclose()


async def test_bare_command_name_is_found_beside_the_kernels_python(tmp_path, monkeypatch):
    # A venv that is not activated: its bin folder is not on PATH, yet the console script
    # `mcp-server-time` installed there must start (the README's config example).
    bin_dir = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != bin_dir))
    config = parse_config({"mcp_servers": {"time": {"command": "mcp-server-time", "cwd": str(tmp_path)}}})
    registry = await ToolRegistry.create(config)
    try:
        tools = {tool.js_name for tool in await registry.ready_tools()}
        assert "mcp__time__convert_time" in tools
        assert registry.errors == []
    finally:
        await registry.aclose()


async def test_convert_time_output_resolves_its_defs(time_tools):
    # mcp-server-time's convert_time outputSchema is pydantic-made: source/target are
    # `$ref: #/$defs/TimeResult`; the declaration shows their shape, not `unknown`.
    registry, _ = time_tools
    await registry.ready_tools()
    declaration = registry.get("mcp__time__convert_time").declaration
    assert "source: unknown" not in declaration
    assert "source: { datetime: string; day_of_week: string; is_dst: boolean; timezone: string; };" in declaration
