"""MCP tools through the kernel: progress in the status display, no server left after shutdown."""

from __future__ import annotations

import re
import time

import psutil
import pytest
from dependencies import require
from kernel_driver import EVERYTHING, display_update, execute, start_kernel, stop_kernel


@pytest.fixture(autouse=True)
def _needs_everything() -> None:
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")


def test_progress_shows_in_status_display_and_server_stops_at_shutdown(codemode_kernelspec, tmp_path):
    (tmp_path / "codemode.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "node"\nargs = ["{EVERYTHING}", "stdio"]\nstartup_timeout_sec = 30\n'
    )
    kernel = start_kernel(tmp_path)
    servers: list[psutil.Process] = []
    try:
        run = execute(
            kernel.kc,
            '// @exec: {"yield_time_ms": 200}\n'
            "await tools.mcp__everything__trigger_long_running_operation({duration: 2, steps: 4});\n"
            'text("long done")',
            timeout=60,
        )
        assert run.content["status"] == "ok", run.content
        assert run.codemode["status"] == "running"
        parent_id = run.reply["parent_header"]["msg_id"]
        cell_id = run.codemode["cell_id"]
        update = display_update(kernel.kc, parent_id, "Tool calls in flight: mcp__")[-1]["data"]
        while "/4" not in update["text/plain"]:  # progress reports follow the call's start
            update = display_update(kernel.kc, parent_id, "Tool calls in flight: mcp__")[-1]["data"]
        match = re.fullmatch(
            rf"Cell {cell_id} is running \(\d+\.\d s\)\.\n"
            r"Tool calls in flight: mcp__everything__trigger_long_running_operation \((tool-\d+)\): ([1-4])/4\.\n"
            rf"Run %wait {cell_id} to see its output, or interrupt the kernel / run %terminate {cell_id} to stop it\.",
            update["text/plain"],
        )
        assert match, update["text/plain"]
        call_id, step = match.groups()
        assert f'<progress value="{step}" max="4"></progress>' in update["text/html"]
        servers = [
            p
            for p in psutil.Process(kernel.km.provisioner.pid).children(recursive=True)
            if "server-everything" in " ".join(p.cmdline())
        ]
        assert servers
        waited = execute(kernel.kc, "%wait --yield-time-ms 20000", timeout=60)
        assert waited.stdout == "long done\n"
        assert [c["runtime_tool_call_id"] for c in waited.codemode["tool_calls"]] == [call_id]
    finally:
        stop_kernel(kernel)
    deadline = time.monotonic() + 10
    while any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in servers):
        assert time.monotonic() < deadline, "the MCP server outlived the kernel"
        time.sleep(0.1)


def test_tools_as_the_first_cell_lists_mcp_tools_and_start_problems(codemode_kernelspec, tmp_path):
    # %tools waits for the MCP servers to start (each within its startup_timeout_sec), so the
    # first cell of a kernel already lists their tools, and a server that could not start is
    # named under the configuration problems.
    (tmp_path / "codemode.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "node"\nargs = ["{EVERYTHING}", "stdio"]\nstartup_timeout_sec = 30\n'
        '[mcp_servers.broken]\ncommand = "node"\nargs = ["-e", "process.exit(3)"]\nstartup_timeout_sec = 30\n'
    )
    kernel = start_kernel(tmp_path)
    try:
        run = execute(kernel.kc, "%tools", timeout=60)
        listing = run.stdout
        assert "\nmcp__everything__echo: " in "\n" + listing, listing
        problems = listing.split("Configuration problems:\n", 1)[1]
        assert "broken" in problems, listing
        # The reply carries the same problems, for scripts such as `replay --run`, which warns.
        assert run.codemode["problems"][0].startswith("MCP server `broken` failed to start: "), run.codemode
        assert "\n".join(f"  {p}" for p in run.codemode["problems"]) in listing
        # The reply lists the names a program may use (JavaScript and code-mode names, one name
        # for these tools), for scripts such as `replay --run`; the resource tools come with MCP.
        names = run.codemode["tool_names"]
        assert names == sorted(names)
        assert {"mcp__everything__get_sum", "list_mcp_resources", "exec_command"} <= set(names)
        filtered = execute(kernel.kc, "%tools get_tiny", timeout=60).codemode["tool_names"]
        assert filtered == ["mcp__everything__get_tiny_image"]
    finally:
        stop_kernel(kernel)
