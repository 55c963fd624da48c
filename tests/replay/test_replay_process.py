"""``python -m codemode replay`` as a user runs it: a process, its exit status and streams."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat

SESSIONS = Path(__file__).resolve().parent / "sessions"


def replay(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CODEX_HOME": str(tmp_path / "no-codex-home")}
    command = [sys.executable, "-m", "codemode", "replay", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_command_converts_and_fails_with_status_and_message(tmp_path):
    out = tmp_path / "s07.ipynb"
    done = replay(tmp_path, str(SESSIONS / "s07_long_session.jsonl"), "-o", str(out))
    assert (done.returncode, done.stdout, done.stderr) == (0, f"wrote {out}\n", "")
    assert nbformat.read(out, 4).metadata["kernelspec"]["name"] == "codemode"
    not_a_session = tmp_path / "notes.jsonl"
    not_a_session.write_text("hello\n", encoding="utf-8")
    failed = replay(tmp_path, str(not_a_session), "-o", str(tmp_path / "notes.ipynb"))
    assert (failed.returncode, failed.stdout, failed.stderr) == (
        1,
        "",
        f"error: {not_a_session} is not a Codex session file: line 1 is not a JSON object "
        "(a session file holds one JSON object a line, a session_meta first).\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.jsonl", "s07.ipynb"]
