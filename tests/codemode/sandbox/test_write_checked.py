"""``write_checked`` (the ``write_file`` built-in): the resolved path is checked against the
policy before anything is created; refusals are sentences naming the path and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from codemode.config import SandboxSettings
from codemode.sandbox.files import WriteRefused, write_checked
from codemode.sandbox.policy import SandboxPolicy


def workspace_write(ws, **settings):
    """workspace-write with only ``ws`` writable (pytest's folders are under /tmp)."""
    return SandboxPolicy.from_settings(SandboxSettings(exclude_slash_tmp=True, **settings), ws, {})


def outside_message(path, ws):
    return (
        f"{str(path)!r} is outside the folders the sandbox lets cells write (writable: {ws}). "
        "Write inside the notebook's folder, or add the folder to [sandbox_workspace_write] "
        "writable_roots in codemode.toml."
    )


def test_writes_inside_the_workspace_creating_parents(ws):
    target = ws / "sub" / "deeper" / "f.txt"
    assert write_checked(workspace_write(ws), target, b"data") == target
    assert target.read_bytes() == b"data"


def test_overwrites_an_existing_file(ws):
    (ws / "f.txt").write_bytes(b"old contents")
    write_checked(workspace_write(ws), ws / "f.txt", b"new")
    assert (ws / "f.txt").read_bytes() == b"new"


def test_a_relative_path_is_relative_to_the_working_folder(ws, monkeypatch):
    monkeypatch.chdir(ws)
    assert write_checked(workspace_write(ws), Path("rel/f.txt"), b"x") == ws / "rel" / "f.txt"
    assert (ws / "rel" / "f.txt").read_bytes() == b"x"


def test_refuses_outside_and_creates_nothing(ws, outside):
    target = outside / "new" / "folders" / "f.txt"
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws), target, b"x")
    assert str(refused.value) == outside_message(target, ws)
    assert list(outside.iterdir()) == []


def test_the_message_lists_every_writable_root(ws, outside, tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    target = outside / "f.txt"
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws, writable_roots=[str(extra)]), target, b"x")
    assert str(refused.value) == outside_message(target, f"{ws}, {extra}")


def test_refuses_a_dotdot_escape_naming_the_resolved_path(ws, outside):
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws), ws / ".." / "outside" / "f.txt", b"x")
    assert str(refused.value) == outside_message(outside / "f.txt", ws)
    assert list(outside.iterdir()) == []


def test_refuses_through_a_symlinked_folder_inside_the_workspace(ws, outside):
    (ws / "link").symlink_to(outside)
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws), ws / "link" / "sub" / "f.txt", b"x")
    assert str(refused.value) == outside_message(outside / "sub" / "f.txt", ws)
    assert list(outside.iterdir()) == []


def test_refuses_through_a_symlinked_file_inside_the_workspace(ws, outside):
    (outside / "target.txt").write_bytes(b"keep")
    (ws / "f.txt").symlink_to(outside / "target.txt")
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws), ws / "f.txt", b"x")
    assert str(refused.value) == outside_message(outside / "target.txt", ws)
    assert (outside / "target.txt").read_bytes() == b"keep"


def test_a_dangling_symlink_to_outside_is_refused(ws, outside):
    (ws / "f.txt").symlink_to(outside / "not-yet.txt")
    with pytest.raises(WriteRefused):
        write_checked(workspace_write(ws), ws / "f.txt", b"x")
    assert list(outside.iterdir()) == []


def test_a_symlink_that_stays_inside_is_followed(ws):
    (ws / "real").mkdir()
    (ws / "link").symlink_to(ws / "real")
    assert write_checked(workspace_write(ws), ws / "link" / "f.txt", b"x") == ws / "real" / "f.txt"
    assert (ws / "real" / "f.txt").read_bytes() == b"x"


def test_refuses_into_an_existing_git(ws):
    (ws / ".git" / "hooks").mkdir(parents=True)
    target = ws / ".git" / "hooks" / "pre-commit"
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws), target, b"#!/bin/sh\n")
    assert str(refused.value) == (
        f"{str(target)!r} cannot be written: {str(ws / '.git')!r} stays read-only inside the workspace "
        "(as in Codex, so that a cell cannot plant git hooks or change its own settings)."
    )
    assert list((ws / ".git" / "hooks").iterdir()) == []


def test_refuses_into_the_git_directory_a_git_file_points_to(ws, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (ws / ".git").write_text("gitdir: ../real\n")
    policy = workspace_write(ws, writable_roots=[str(tmp_path)])
    with pytest.raises(WriteRefused) as refused:
        write_checked(policy, real / "config", b"x")
    assert str(refused.value) == (
        f"{str(real / 'config')!r} cannot be written: {str(real)!r} stays read-only inside the workspace "
        "(as in Codex, so that a cell cannot plant git hooks or change its own settings)."
    )
    assert not (real / "config").exists()


def test_refuses_into_a_git_that_is_a_symlink_to_a_folder_in_the_workspace(ws):
    # The command sandbox keeps the link's target read-only; write_file must agree.
    (ws / "gitdir" / "hooks").mkdir(parents=True)
    (ws / ".git").symlink_to(ws / "gitdir")
    with pytest.raises(WriteRefused):
        write_checked(workspace_write(ws), ws / ".git" / "hooks" / "pre-commit", b"#!/bin/sh\n")
    assert list((ws / "gitdir" / "hooks").iterdir()) == []


def test_refuses_into_existing_codex_and_agents(ws):
    for name in (".codex", ".agents"):
        (ws / name).mkdir()
        with pytest.raises(WriteRefused):
            write_checked(workspace_write(ws), ws / name / "config.toml", b"x")
        assert list((ws / name).iterdir()) == []


def test_read_only_refuses_everything(ws):
    policy = SandboxPolicy.from_settings(SandboxSettings(sandbox_mode="read-only"), ws, {})
    target = ws / "f.txt"
    with pytest.raises(WriteRefused) as refused:
        write_checked(policy, target, b"x")
    assert (
        str(refused.value) == f'{str(target)!r} cannot be written: sandbox_mode is "read-only", which allows no writes.'
    )
    assert list(ws.iterdir()) == []


def test_danger_full_access_writes_anywhere(ws, outside):
    policy = SandboxPolicy.from_settings(SandboxSettings(sandbox_mode="danger-full-access"), ws, {})
    (ws / ".git").mkdir()
    assert write_checked(policy, outside / "a" / "b.txt", b"1") == outside / "a" / "b.txt"
    assert write_checked(policy, ws / ".git" / "config", b"2") == ws / ".git" / "config"
    assert ((outside / "a" / "b.txt").read_bytes(), (ws / ".git" / "config").read_bytes()) == (b"1", b"2")
