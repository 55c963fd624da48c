"""``replay --run`` starts each MCP server once per kernel: the check for missing tools, made before
any cell runs, asks the kernel rather than starting the servers a second time. The server counts
its own starts (``servers/start_counter.py``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from codemode.replay.command import main

HERE = Path(__file__).resolve().parent
COUNTER = HERE / "servers" / "start_counter.py"
SESSIONS = HERE / "sessions"

pytestmark = pytest.mark.timeout(300)


def counted_folder(tmp_path: Path) -> tuple[Path, Path]:
    """A run folder whose codemode.toml starts the start-counting server; and its count file."""
    starts = tmp_path / "starts.txt"
    (tmp_path / "codemode.toml").write_text(
        f"[mcp_servers.counter]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(COUNTER))}, {json.dumps(str(starts))}]\nstartup_timeout_sec = 30\n",
        encoding="utf-8",
    )
    return tmp_path, starts


def test_the_servers_start_once_and_missing_tools_are_still_known_first(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-home"))
    folder, starts = counted_folder(tmp_path)
    report = folder / "report.json"
    main([str(SESSIONS / "s03_error.jsonl"), "--run", "-o", str(folder / "run.ipynb"), "--report", str(report)])
    cells = json.loads(report.read_text(encoding="utf-8"))["cells"]
    assert [(c["call_id"], c["status"], c["missing_tools"]) for c in cells if c["status"] == "not_run"] == [
        ("call_exec_3", "not_run", ["no_such_tool"])
    ]
    assert len(starts.read_text(encoding="utf-8").splitlines()) == 1
