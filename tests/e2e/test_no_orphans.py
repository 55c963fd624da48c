"""No orphans after the kernel process is killed with SIGKILL.

A real kernel (``jupyter_client``, the kernelspec installed by ``tests/conftest.py``) runs in a
temp folder whose ``codemode.toml`` names ``mcp-server-time`` (PyPI) and
``@modelcontextprotocol/server-everything`` (npm). A cell calls both and then waits on a
background ``exec_command`` (``sleep 300``) after yielding. The kernel gets SIGKILL - no
shutdown code runs - and every process it had started (runtime host, launchers, MCP servers,
the shell and its ``sleep``) must disappear: the MCP servers and the command through
:mod:`codemode.tools.launcher`, the runtime host through EOF on its stdin.
"""

from __future__ import annotations

import os
import signal
import time

import psutil
import pytest
from dependencies import require
from jupyter_client.manager import KernelManager

pytestmark = pytest.mark.timeout(180)

DEADLINE_S = 30.0
"""Upper bound for each wait below; the test ends as soon as the condition holds."""


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _cmdline(proc: psutil.Process) -> str:
    try:
        return " ".join(proc.cmdline())
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return ""


def _reply(kc, msg_id: str) -> dict:
    while True:
        msg = kc.get_shell_msg(timeout=DEADLINE_S * 2)
        if msg["parent_header"].get("msg_id") == msg_id:
            return msg


def test_sigkill_of_the_kernel_leaves_no_process_behind(npm_tools, tmp_path):
    everything = npm_tools / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    require(everything.exists(), "server-everything is not installed in .npm-tools")
    (tmp_path / "codemode.toml").write_text(
        "[mcp_servers.time]\n"
        'command = "mcp-server-time"\n'
        'args = ["--local-timezone", "UTC"]\n'
        "startup_timeout_sec = 30\n"
        "\n"
        "[mcp_servers.everything]\n"
        'command = "node"\n'
        f'args = ["{everything}", "stdio"]\n'
        "startup_timeout_sec = 30\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "CODEMODE_CONFIG"}
    km = KernelManager(kernel_name="codemode")
    km.start_kernel(cwd=str(tmp_path), env=env)
    kc = km.client()
    started: list[psutil.Process] = []
    try:
        kc.start_channels()
        kc.wait_for_ready(timeout=DEADLINE_S * 2)
        kernel = psutil.Process(km.provisioner.pid)
        assert "codemode.kernel" in _cmdline(kernel)
        msg_id = kc.execute(
            '// @exec: {"yield_time_ms": 1000}\n'
            'const now = await tools.mcp__time__get_current_time({timezone: "UTC"});\n'
            'const echo = await tools.mcp__everything__echo({message: "both servers"});\n'
            "text(now.isError, echo.content[0].text);\n"
            'await tools.exec_command({cmd: "sleep 300"});\n'
            'text("never reached");\n'
        )
        reply = _reply(kc, msg_id)
        assert reply["content"]["status"] == "ok", reply["content"]
        assert reply["metadata"]["codemode"]["status"] == "running"

        deadline = time.monotonic() + DEADLINE_S
        while True:
            started = [p for p in kernel.children(recursive=True) if _alive(p)]
            lines = [_cmdline(p) for p in started]
            if any(line.startswith("sleep 300") for line in lines):
                break
            assert time.monotonic() < deadline, f"the background command never started; children: {lines}"
            time.sleep(0.05)
        joined = "\n".join(lines)
        assert "mcp-server-time" in joined and "server-everything" in joined
        assert "codemode.runtime" in joined

        kernel.send_signal(signal.SIGKILL)
        kernel.wait(DEADLINE_S)
    finally:
        kc.stop_channels()
        if km.has_kernel:
            km.shutdown_kernel(now=True)

    deadline = time.monotonic() + DEADLINE_S
    while True:
        survivors = [(p.pid, _cmdline(p)) for p in started if _alive(p)]
        if not survivors:
            break
        assert time.monotonic() < deadline, f"processes outlived the SIGKILLed kernel: {survivors}"
        time.sleep(0.05)
