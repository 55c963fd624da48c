"""``write_checked`` (the ``write_file`` built-in): the resolved path is checked against the
policy before anything is created; refusals are sentences naming the path and the fix."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from codemode.config import SandboxSettings
from codemode.sandbox.files import WriteRefused, write_checked
from codemode.sandbox.policy import SandboxPolicy

pytestmark = pytest.mark.unit


def workspace_write(ws, **settings):
    """workspace-write with only ``ws`` writable (pytest's folders are under /tmp)."""
    return SandboxPolicy.from_settings(SandboxSettings(exclude_slash_tmp=True, **settings), ws, {})


def outside_message(path, ws):
    return (
        f"{str(path)!r} is outside the folders the sandbox lets cells write (writable: {ws}). "
        "Write inside the notebook's folder, or add the folder to [sandbox_workspace_write] "
        "writable_roots in codemode.toml."
    )


def read_only_message(path, protected):
    return (
        f"{str(path)!r} cannot be written: {str(protected)!r} stays read-only for cells (as in Codex: what runs "
        "by itself later, git hooks, the config file, the kernel's own code, must not be something a cell wrote)."
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
    assert str(refused.value) == read_only_message(target, ws / ".git")
    assert list((ws / ".git" / "hooks").iterdir()) == []


def test_refuses_into_the_git_directory_a_git_file_points_to(ws, tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (ws / ".git").write_text("gitdir: ../real\n")
    policy = workspace_write(ws, writable_roots=[str(tmp_path)])
    with pytest.raises(WriteRefused) as refused:
        write_checked(policy, real / "config", b"x")
    assert str(refused.value) == read_only_message(real / "config", real)
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


def test_refuses_the_workspaces_config_file_whether_or_not_it_exists(ws):
    target = ws / "codemode.toml"
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws), target, b'sandbox_mode = "danger-full-access"\n')
    assert str(refused.value) == read_only_message(target, target)
    assert list(ws.iterdir()) == []
    target.write_bytes(b"# mine\n")
    with pytest.raises(WriteRefused) as refused:
        write_checked(workspace_write(ws), target, b'sandbox_mode = "danger-full-access"\n')
    assert str(refused.value) == read_only_message(target, target)
    assert target.read_bytes() == b"# mine\n"


def test_refuses_extra_protected_paths(ws):
    (ws / "tools.py").write_text("def f(): pass\n")
    policy = workspace_write(ws).with_protection((ws / "tools.py",))
    with pytest.raises(WriteRefused) as refused:
        write_checked(policy, ws / "tools.py", b"import os\n")
    assert str(refused.value) == read_only_message(ws / "tools.py", ws / "tools.py")
    assert (ws / "tools.py").read_text() == "def f(): pass\n"


@pytest.mark.parametrize("mode_settings", [{}, {"exclude_slash_tmp": False}], ids=["outside-roots", "inside-tmp"])
def test_refuses_jupyters_runtime_files(ws, tmp_path, mode_settings):
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    settings = {"exclude_slash_tmp": True, **mode_settings}
    policy = SandboxPolicy.from_settings(SandboxSettings(**settings), ws, {}).with_protection(hidden=(runtime,))
    (ws / "link").symlink_to(runtime)
    for path in (runtime / "kernel-1.json", ws / "link" / "kernel-1.json"):
        with pytest.raises(WriteRefused) as refused:
            write_checked(policy, path, b"{}")
        assert str(refused.value) == (
            f"{str(runtime / 'kernel-1.json')!r} cannot be written: Jupyter's runtime files and the kernel's history are out of cells' reach."
        )
    assert list(runtime.iterdir()) == []


def test_a_parent_swapped_for_a_symlink_while_folders_are_made_is_not_followed(ws, outside, monkeypatch):
    """The folders are made one at a time through descriptors: a symlink planted in place of one
    (by a command running meanwhile) makes the write fail instead of landing outside."""
    real_mkdir = os.mkdir

    def racing_mkdir(name, mode=0o777, *, dir_fd=None):
        if name == "a":
            os.symlink(outside, name, dir_fd=dir_fd)
        real_mkdir(name, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "mkdir", racing_mkdir)
    with pytest.raises(OSError) as failed:
        write_checked(workspace_write(ws), ws / "a" / "b" / "f.txt", b"x")
    assert failed.value.errno == errno.ENOTDIR  # O_NOFOLLOW | O_DIRECTORY on a symlink
    assert list(outside.iterdir()) == []


def test_writing_to_a_pipe_with_a_reader_is_refused_without_blocking(ws):
    fifo = ws / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(WriteRefused) as refused:
            write_checked(workspace_write(ws), fifo, b"data")
        assert (
            str(refused.value) == f"{str(fifo)!r} is not a regular file (a pipe, device or socket); it was not written."
        )
        assert os.read(reader, 10) == b""  # nothing went into the pipe
    finally:
        os.close(reader)
