"""Recording and replaying nested tool calls through the Jupyter protocol.

A kernel records calls to a real MCP server (server-everything, stdio) and a Python tool that
answers with random numbers; a second kernel replays them from the recording with the server's
command made to leave a mark and fail, and the tool module deleted: the cells print exactly
what they printed live, no process is started for tools (the mark stays absent and the
kernel's only child is its runtime host), the kernel runs in a network namespace whose only
interface is down (``unshare -rn``: no connection can leave it), and a call the recording lacks fails alone with the
error naming the nearest recorded call.
"""

from __future__ import annotations

import json
import os
import shutil

import psutil
import pytest
from dependencies import require
from kernel_driver import EVERYTHING, execute, runtime_host, start_kernel, stop_kernel

PICKER = '''
import random

import codemode


@codemode.tool
def pick(n: int) -> list:
    """``n`` random numbers; fails for a negative ``n``."""
    print(f"picking {n}")
    if n < 0:
        raise ValueError(f"cannot pick {n} numbers")
    return [random.random() for _ in range(n)]
'''

CELLS = [
    'const echo = await tools.mcp__everything__echo({message: "hi"});\n'
    "const first = await tools.pick({n: 2});\n"
    "const second = await tools.pick({n: 2});\n"
    "text(JSON.stringify({echo, first, second}));",
    'try { await tools.pick({n: -1}); } catch (e) { text("error: " + String(e)); }\n'
    "text(JSON.stringify(await tools.pick({n: 1})));",
]


@pytest.fixture(autouse=True)
def _needs_everything() -> None:
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")
    require(shutil.which("unshare") is not None, "unshare (util-linux) is not installed")


def run_cells(folder, codes, env=None, offline=False):
    kernel = start_kernel(folder, env, offline=offline)
    try:
        outputs = []
        for code in codes:
            run = execute(kernel.kc, code, timeout=60)
            assert run.content["status"] == "ok", run.content
            outputs.append(run.stdout)
        tool_processes = [p for p in psutil.Process(kernel.km.provisioner.pid).children(recursive=True)]
        host = runtime_host(kernel)
        if offline:  # the kernel and its host are in a network namespace of their own
            ours = os.readlink("/proc/self/ns/net")
            assert os.readlink(f"/proc/{kernel.km.provisioner.pid}/ns/net") != ours
            assert os.readlink(f"/proc/{host.pid}/ns/net") != ours
        return outputs, tool_processes, host
    finally:
        stop_kernel(kernel)


def test_a_replay_gives_the_recorded_outputs_with_no_tool_process(codemode_kernelspec, tmp_path):
    (tmp_path / "picker.py").write_text(PICKER)
    server = f'[mcp_servers.everything]\ncommand = "node"\nargs = ["{EVERYTHING}", "stdio"]\nstartup_timeout_sec = 30\n'
    tools = '[python_tools]\nmodules = ["picker"]\n'
    (tmp_path / "codemode.toml").write_text(server + tools + '[recording]\nmode = "record"\n')
    live, _, _ = run_cells(tmp_path, [*CELLS, "%recording"])
    recording = tmp_path / "codemode.recording.jsonl"
    assert live[0].startswith("picking 2\npicking 2\n{")
    first = json.loads(live[0].splitlines()[-1])
    assert first["echo"]["content"] == [{"type": "text", "text": "Echo: hi"}]
    assert first["first"] != first["second"]
    assert live[1].startswith("picking -1\npicking 1\nerror: tool `pick` raised ValueError: cannot pick -1 numbers\n[")
    assert live[2] == f"Recording: record, to {recording}: 5 calls recorded.\n"

    mark = tmp_path / "server-started"
    (tmp_path / "picker.py").unlink()
    (tmp_path / "codemode.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "sh"\nargs = ["-c", "touch {mark}; exit 3"]\n'
        + tools
        + '[recording]\nmode = "record"\n'
    )
    # The environment wins over the file, as a CI job switches a notebook to replay.
    replayed, processes, host = run_cells(
        tmp_path,
        [*CELLS, "try { await tools.pick({n: 3}); } catch (e) { text(String(e)); }", "%recording"],
        {"CODEMODE_RECORDING": "replay"},
        offline=True,
    )
    assert replayed[:2] == live[:2]
    # {"n":2} (line 4) and {"n":1} (line 7) are equally near {"n":3}: the first recorded wins.
    assert replayed[2] == (
        f'replay: {recording} holds no answer for tools.pick({{"n":3}}); the nearest recorded call is '
        f'tools.pick({{"n":2}}) (line 4). Calls are not sent to live tools in replay mode.\n'
    )
    assert replayed[3] == (
        f"Recording: replay, from {recording}: 5 calls recorded, 5 answered, 1 refused (not recorded).\n"
    )
    assert not mark.exists()
    assert [p.pid for p in processes] == [host.pid]


def test_a_corrupt_recording_is_named_with_its_line_and_offers_no_tool(codemode_kernelspec, tmp_path):
    recording = tmp_path / "calls.jsonl"
    recording.write_text('{"codemode_recording":1}\n{"type":"call","seq":1}\n')
    (tmp_path / "codemode.toml").write_text('[recording]\nmode = "replay"\npath = "calls.jsonl"\n')
    listing, _, _ = run_cells(tmp_path, ["%tools"])
    problem = (
        f"{recording}: line 2: a call needs `tool`, the tool's code-mode name. "
        "Replay mode offers no tools until the recording is fixed."
    )
    assert listing[0] == f"No tools are enabled.\nConfiguration problems:\n  {problem}\n"
