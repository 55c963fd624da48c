"""``exec_command`` sessions and ``write_stdin``, as Codex's unified exec runs them: s12's
exchange (``tests/replay/sessions/s12_other_nested_tools.jsonl``), commands outliving their
``yield_time_ms``, the sandbox kept, the cap, and the end of every session at kernel shutdown."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import psutil
import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config, SandboxSettings
from codemode.dispatch import ToolCallRuntime
from codemode.tools import exec_sessions
from codemode.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from dependencies import require  # noqa: E402


@pytest.fixture
async def registry(tmp_path, monkeypatch):
    """Built-ins whose only writable folder is the working one (``tmp_path``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TMPDIR", raising=False)
    made = await ToolRegistry.create(Config(sandbox=SandboxSettings(approval_policy="never", exclude_slash_tmp=True)))
    yield made
    await made.aclose()


async def call(registry, name, args):
    result = await ToolCallRuntime(registry).handle_tool_call(
        "1", "tool-1", {"name": name, "namespace": None}, "function", args, CancellationToken()
    )
    return result.value if result.outcome == "completed" else result.error


def without_noise(result: dict) -> dict:
    """The result without its random chunk_id and its wall time (both checked for shape)."""
    assert len(result.pop("chunk_id")) == 6 and isinstance(result.pop("wall_time_seconds"), float)
    return result


async def test_s12_a_terminal_session_read_then_written(registry):
    started = await call(
        registry, "exec_command", {"cmd": "read line; echo got:$line", "tty": True, "yield_time_ms": 500}
    )
    assert list(started) == ["chunk_id", "wall_time_seconds", "session_id", "original_token_count", "output"]
    session_id = started["session_id"]
    assert 1_000 <= session_id < 100_000
    assert without_noise(started) == {"session_id": session_id, "original_token_count": 0, "output": ""}
    written = await call(registry, "write_stdin", {"session_id": session_id, "chars": "hello\n", "yield_time_ms": 1000})
    assert list(written) == ["chunk_id", "wall_time_seconds", "exit_code", "original_token_count", "output"]
    assert without_noise(written) == {"exit_code": 0, "original_token_count": 5, "output": "hello\r\ngot:hello\r\n"}
    # Once its end was reported, the session is gone, as s12's write_stdin to 999999 shows.
    assert await call(registry, "write_stdin", {"session_id": session_id, "chars": "x"}) == (
        f"write_stdin failed: Unknown process id {session_id}"
    )
    assert len(registry.exec_sessions) == 0


async def test_a_command_without_terminal_outlives_its_yield(registry):
    script = "echo one; sleep 0.6; echo two; sleep 0.6; echo three"
    started = await call(registry, "exec_command", {"cmd": script, "yield_time_ms": 300})
    session_id = started["session_id"]
    assert without_noise(started) == {"session_id": session_id, "original_token_count": 1, "output": "one\n"}
    assert await call(registry, "write_stdin", {"session_id": session_id, "chars": "x"}) == (
        "write_stdin failed: stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"
    )
    # An empty write_stdin polls (5 s at least) and returns at the command's end, with the
    # output since the last call only.
    polled = await call(registry, "write_stdin", {"session_id": session_id})
    assert without_noise(polled) == {"exit_code": 0, "original_token_count": 3, "output": "two\nthree\n"}


async def test_a_short_command_ends_within_its_yield(registry):
    done = await call(registry, "exec_command", {"cmd": "echo to-stderr >&2; exit 3"})
    # s03's shape: exit_code, no session_id.
    assert without_noise(done) == {"exit_code": 3, "original_token_count": 3, "output": "to-stderr\n"}


async def test_a_session_keeps_its_sandbox(registry, tmp_path):
    require(os.path.exists("/usr/bin/bwrap"), "bubblewrap is not installed")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    started = await call(
        registry,
        "exec_command",
        {"cmd": f"read x; echo $x > {outside}/f; echo status=$?", "tty": True, "yield_time_ms": 250},
    )
    written = await call(
        registry, "write_stdin", {"session_id": started["session_id"], "chars": "hi\n", "yield_time_ms": 2000}
    )
    assert written["output"].endswith(f"{outside}/f: Read-only file system\r\nstatus=1\r\n")
    assert not (outside / "f").exists()


async def test_closing_the_registry_kills_every_session(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    registry = await ToolRegistry.create(Config(sandbox=SandboxSettings(approval_policy="never")))
    started = [
        await call(registry, "exec_command", {"cmd": "sleep 600", "yield_time_ms": 250, "tty": tty})
        for tty in (False, True)
    ]
    groups = [registry.exec_sessions.get(s["session_id"]).process.pid for s in started]
    members = [p for p in psutil.process_iter() if p.pid in groups or _in_group(p, groups)]
    assert len(members) >= 2
    await registry.aclose()
    gone, alive = psutil.wait_procs(members, timeout=10)
    assert alive == []


def _in_group(process: psutil.Process, groups: list[int]) -> bool:
    try:
        return os.getpgid(process.pid) in groups
    except (ProcessLookupError, PermissionError):
        return False


async def test_the_least_recently_used_session_goes_when_full(registry, monkeypatch):
    monkeypatch.setattr(exec_sessions, "MAX_PROCESSES", 3)
    monkeypatch.setattr(exec_sessions, "KEPT_RECENT", 1)
    ids = [
        (await call(registry, "exec_command", {"cmd": "sleep 600", "yield_time_ms": 250}))["session_id"]
        for _ in range(3)
    ]
    first = registry.exec_sessions.get(ids[0]).process
    fourth = await call(registry, "exec_command", {"cmd": "sleep 600", "yield_time_ms": 250})
    assert len(registry.exec_sessions) == 3
    assert (
        await call(registry, "write_stdin", {"session_id": ids[0]})
        == f"write_stdin failed: Unknown process id {ids[0]}"
    )
    assert first.returncode is not None
    assert {ids[1], ids[2], fourth["session_id"]} == {p.session_id for p in registry.exec_sessions._processes.values()}
