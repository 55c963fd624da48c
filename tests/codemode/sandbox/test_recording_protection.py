"""The replay recording (``[recording]``, ``CODEMODE_RECORDING_PATH``) is out of cells' reach for
writing: a later ``replay`` run answers tool calls from it, so a cell that could write it could
forge those answers. ``write_file``, ``apply_patch`` and sandboxed commands are refused alike,
whether the recording is being recorded or only named (mode ``off``) and exists. A missing
recording is not protected: the sandbox would mask it with an empty file in the folder of every
command."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sandbox_helpers import call, require_bwrap, run

from codemode.cancellation import CancellationToken
from codemode.config import Config, SandboxSettings
from codemode.config.recording import RecordingSettings

BASH = shutil.which("bash")


def refusal(tool: str, path: Path) -> str:
    return (
        f"{tool}: {str(path)!r} cannot be written: {str(path)!r} stays read-only for cells (as in Codex: what runs "
        "by itself later, git hooks, the config file, the kernel's own code, must not be something a cell wrote)."
    )


async def patch(dispatcher, text: str):
    return await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": "apply_patch", "namespace": None}, "freeform", text, CancellationToken()
    )


def recording_config(ws: Path, mode: str) -> Config:
    return Config(
        sandbox=SandboxSettings(exclude_slash_tmp=True),
        recording=RecordingSettings(mode=mode, path=ws / "run.recording.jsonl"),
    )


@pytest.mark.unit
async def test_the_file_tools_cannot_write_the_recording_being_recorded(dispatchers, ws):
    dispatcher = await dispatchers.make_from(recording_config(ws, "record"))
    recording = ws / "run.recording.jsonl"
    before = recording.read_bytes()
    written = await call(dispatcher, "write_file", {"path": "run.recording.jsonl", "content": '{"forged": 1}\n'})
    assert (written.outcome, written.error) == ("failed", refusal("write_file", recording))
    patched = await patch(dispatcher, "*** Begin Patch\n*** Add File: run.recording.jsonl\n+{}\n*** End Patch\n")
    assert (patched.outcome, patched.error) == ("failed", refusal("apply_patch", recording))
    deleted = await patch(dispatcher, "*** Begin Patch\n*** Delete File: run.recording.jsonl\n*** End Patch\n")
    assert (deleted.outcome, deleted.error) == ("failed", refusal("apply_patch", recording))
    assert recording.read_bytes() == before


@pytest.mark.unit
async def test_an_earlier_recording_named_by_the_environment_cannot_be_changed(dispatchers, ws, monkeypatch):
    """Recording off, the environment naming an existing recording (an earlier run's): still
    read-only, and a patch touching it writes nothing at all."""
    monkeypatch.setenv("CODEMODE_RECORDING_PATH", "earlier.jsonl")
    earlier = ws / "earlier.jsonl"
    earlier.write_text('{"recorded": 1}\n')
    dispatcher = await dispatchers.make_from(Config(sandbox=SandboxSettings(exclude_slash_tmp=True)))
    written = await call(dispatcher, "write_file", {"path": "earlier.jsonl", "content": "{}\n"})
    assert (written.outcome, written.error) == ("failed", refusal("write_file", earlier))
    text = '*** Begin Patch\n*** Add File: notes.md\n+a\n*** Update File: earlier.jsonl\n@@\n-{"recorded": 1}\n+{}\n*** End Patch'
    patched = await patch(dispatcher, text)
    assert (patched.outcome, patched.error) == ("failed", refusal("apply_patch", earlier))
    assert sorted(p.name for p in ws.iterdir()) == ["earlier.jsonl"]
    assert earlier.read_text() == '{"recorded": 1}\n'


@pytest.mark.unit
async def test_a_missing_recording_is_not_masked(dispatchers, ws):
    """Recording off and no file: nothing is protected, so no command finds an empty file
    standing in for it (a mask would show in every listing of the folder)."""
    dispatcher = await dispatchers.make_from(Config(sandbox=SandboxSettings(exclude_slash_tmp=True)))
    assert dispatchers.registries[0].sandbox.policy.masked() == [ws / "codemode.toml"]
    written = await call(dispatcher, "write_file", {"path": "codemode.recording.jsonl", "content": "{}\n"})
    assert written.outcome == "completed"


async def test_commands_cannot_write_the_recording(dispatchers, ws, monkeypatch):
    require_bwrap()
    dispatcher = await dispatchers.make_from(recording_config(ws, "record"))
    recording = ws / "run.recording.jsonl"
    before = recording.read_bytes()
    result = await run(
        dispatcher, "echo '{}' >> run.recording.jsonl; echo appended=$?; mv run.recording.jsonl x; echo mv=$?"
    )
    assert result["output"] == (
        f"{BASH}: line 1: run.recording.jsonl: Read-only file system\nappended=1\n"
        "mv: cannot move 'run.recording.jsonl' to 'x': Device or resource busy\nmv=1\n"
    )
    assert recording.read_bytes() == before
