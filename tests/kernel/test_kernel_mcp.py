"""MCP tools through the kernel: progress in the status display, no server left after shutdown."""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest
from dependencies import require
from kernel_driver import execute, start_kernel, stop_kernel

EVERYTHING = (
    Path(__file__).resolve().parents[2]
    / ".npm-tools"
    / "node_modules"
    / "@modelcontextprotocol"
    / "server-everything"
    / "dist"
    / "index.js"
)


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
        html_seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            msg = kernel.kc.get_iopub_msg(timeout=30)
            if msg["parent_header"].get("msg_id") != parent_id or msg["msg_type"] != "update_display_data":
                continue
            html_seen.append(msg["content"]["data"]["text/html"])
            if "<progress" in html_seen[-1]:
                break
        assert any("<progress" in h for h in html_seen), html_seen
        servers = [
            p
            for p in psutil.Process(kernel.km.provisioner.pid).children(recursive=True)
            if "server-everything" in " ".join(p.cmdline())
        ]
        assert servers
        waited = execute(kernel.kc, "%wait --yield-time-ms 20000", timeout=60)
        assert waited.stdout == "long done\n"
    finally:
        stop_kernel(kernel)
    deadline = time.monotonic() + 10
    while any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in servers):
        assert time.monotonic() < deadline, "the MCP server outlived the kernel"
        time.sleep(0.1)
