"""The bubblewrap command line of each mode, and finding ``bwrap`` on the ``PATH``.

Whether ``--proc /proc`` is passed depends on the one-off probe (``_probe_result``); each test
sets that cache itself, so the result does not depend on what ran before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codemode.config import SandboxSettings
from codemode.sandbox import bwrap
from codemode.sandbox.bwrap import bwrap_argv, find_bwrap
from codemode.sandbox.policy import SandboxPolicy

TMP = str(Path("/tmp").resolve())
COMMAND = ["/usr/bin/bash", "-c", "echo hi"]
HEAD = ["bwrap", "--new-session", "--die-with-parent", "--unshare-user", "--cap-drop", "ALL", "--unshare-pid"]


@pytest.fixture(params=[True, False], ids=["proc", "no-proc"])
def proc(request, monkeypatch):
    """The probe's verdict on mounting a new /proc; yields the expected ``--proc`` arguments."""
    monkeypatch.setattr(bwrap, "_probe_result", (None, request.param))
    return ["--proc", "/proc"] if request.param else []


@pytest.fixture
def ws(tmp_path):
    folder = tmp_path / "a" / "b" / "ws"
    folder.mkdir(parents=True)
    return folder


def policy(ws, **settings):
    return SandboxPolicy.from_settings(SandboxSettings(**settings), ws, {})


def tail(cwd, fd=7):
    return ["--seccomp", str(fd), "--chdir", str(cwd), "--", *COMMAND]


def test_read_only_binds_nothing_writable(ws, proc):
    argv = bwrap_argv("bwrap", policy(ws, sandbox_mode="read-only"), ws, 7, COMMAND)
    assert argv == [*HEAD, "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", *proc, *tail(ws)]
    assert "--bind" not in argv


def test_read_only_ignores_network_access(ws, proc):
    argv = bwrap_argv("bwrap", policy(ws, sandbox_mode="read-only", network_access=True), ws, 7, COMMAND)
    assert "--unshare-net" in argv


def test_workspace_write_binds_roots_shallow_first(ws, tmp_path, proc):
    extra = tmp_path / "extra"
    extra.mkdir()
    argv = bwrap_argv("/usr/bin/bwrap", policy(ws, writable_roots=[str(extra)]), ws / "..", 3, COMMAND)
    assert argv == [
        "/usr/bin/bwrap",
        *HEAD[1:],
        "--unshare-net",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        *proc,
        "--bind",
        TMP,
        TMP,
        "--bind",
        str(extra),
        str(extra),
        "--bind",
        str(ws),
        str(ws),
        *tail(ws / "..", 3),
    ]


def test_workspace_write_then_ro_binds_the_protected_paths(ws, tmp_path, proc):
    real = tmp_path / "real"
    real.mkdir()
    (ws / ".git").write_text("gitdir: ../../../real\n")
    (ws / ".codex").mkdir()
    (ws / ".agents").mkdir()
    argv = bwrap_argv("bwrap", policy(ws, exclude_slash_tmp=True), ws, 7, COMMAND)
    assert argv == [
        *HEAD,
        "--unshare-net",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        *proc,
        "--bind",
        str(ws),
        str(ws),
        "--ro-bind",
        str(ws / ".git"),
        str(ws / ".git"),
        "--ro-bind",
        str(real),
        str(real),
        "--ro-bind",
        str(ws / ".codex"),
        str(ws / ".codex"),
        "--ro-bind",
        str(ws / ".agents"),
        str(ws / ".agents"),
        *tail(ws),
    ]


def test_a_symlinked_protected_path_is_bound_read_only_at_its_target(ws, proc):
    (ws / "decoy").mkdir()
    (ws / ".codex").symlink_to(ws / "decoy")
    argv = bwrap_argv("bwrap", policy(ws, exclude_slash_tmp=True), ws, 7, COMMAND)
    assert argv[argv.index("--bind") : argv.index("--seccomp")] == [
        "--bind",
        str(ws),
        str(ws),
        "--ro-bind",
        str(ws / "decoy"),
        str(ws / "decoy"),
    ]


def test_protected_paths_come_after_every_bind(ws, tmp_path, proc):
    extra = tmp_path / "extra"
    (extra / ".git").mkdir(parents=True)
    (ws / ".git").mkdir()
    argv = bwrap_argv("bwrap", policy(ws, writable_roots=[str(extra)], exclude_slash_tmp=True), ws, 7, COMMAND)
    mounts = [(argv[i], argv[i + 1]) for i, a in enumerate(argv) if a in ("--bind", "--ro-bind") and argv[i + 1] != "/"]
    assert mounts == [
        ("--bind", str(extra)),
        ("--bind", str(ws)),
        ("--ro-bind", str(ws / ".git")),
        ("--ro-bind", str(extra / ".git")),
    ]


def test_missing_roots_are_not_bound(ws, tmp_path, proc):
    argv = bwrap_argv("bwrap", policy(ws, writable_roots=[str(tmp_path / "gone")], exclude_slash_tmp=True), ws, 7, [])
    assert [a for a in argv if a.startswith(str(tmp_path))] == [str(ws), str(ws), str(ws)]


def test_network_access_keeps_the_network_namespace(ws, proc):
    argv = bwrap_argv("bwrap", policy(ws, network_access=True, exclude_slash_tmp=True), ws, 9, COMMAND)
    assert argv == [
        *HEAD,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        *proc,
        "--bind",
        str(ws),
        str(ws),
        *tail(ws, 9),
    ]


def test_the_command_follows_the_double_dash_unchanged(ws, proc):
    command = ["/bin/sh", "-c", "--ro-bind / /; echo '--'"]
    argv = bwrap_argv("bwrap", policy(ws, sandbox_mode="read-only"), ws, 5, command)
    assert argv[-4:] == ["--", *command]
    assert argv[-8:-4] == ["--seccomp", "5", "--chdir", str(ws)]


def test_before_the_probe_proc_is_mounted(ws, monkeypatch):
    monkeypatch.setattr(bwrap, "_probe_result", None)
    argv = bwrap_argv("bwrap", policy(ws, sandbox_mode="read-only"), ws, 7, COMMAND)
    assert argv[argv.index("/dev") + 1 : argv.index("--seccomp")] == ["--proc", "/proc"]


def _fake_bwrap(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bwrap"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_find_bwrap_skips_relative_entries_and_the_workspace(tmp_path, monkeypatch):
    ws = tmp_path / "ws"
    _fake_bwrap(ws / "bin")
    _fake_bwrap(tmp_path / "rel")
    good = _fake_bwrap(tmp_path / "system")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", os.pathsep.join(["rel", str(ws / "bin"), str(tmp_path / "system")]))
    assert find_bwrap(ws) == str(good)
    assert find_bwrap(None) == str(ws / "bin" / "bwrap")


def test_find_bwrap_without_one_on_the_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_bwrap(tmp_path / "ws") is None


def test_without_bwrap_the_problem_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(bwrap, "_probe_result", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert bwrap.sandbox_problem(tmp_path) == (
        "bubblewrap (`bwrap`) is not installed. Install it (Debian/Ubuntu: `apt-get install bubblewrap`; the "
        'project\'s scripts/install-tools.sh does), or set sandbox_mode = "danger-full-access" in codemode.toml '
        "to run commands without a sandbox."
    )
    # The verdict is kept for the process: a bwrap appearing later is not looked for again.
    _fake_bwrap(tmp_path / "later")
    monkeypatch.setenv("PATH", str(tmp_path / "later"))
    assert bwrap.sandbox_problem(tmp_path).startswith("bubblewrap (`bwrap`) is not installed.")
