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

pytestmark = pytest.mark.unit

TMP = str(Path("/tmp").resolve())
COMMAND = ["/usr/bin/bash", "-c", "echo hi"]
HEAD = [
    "bwrap",
    "--new-session",
    "--die-with-parent",
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-ipc",
]
PROC_READ_ONLY = [
    a
    for p in ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs")
    if os.path.exists(p)
    for a in ("--ro-bind", p, p)
]
"""What follows ``--proc /proc``: the writable parts of /proc bound read-only again."""


@pytest.fixture(params=[True, False], ids=["proc", "no-proc"])
def proc(request, monkeypatch):
    """The probe's verdict on mounting a new /proc; yields the expected ``--proc`` arguments."""
    monkeypatch.setattr(bwrap, "_probe_result", (None, request.param, "bwrap"))
    return ["--proc", "/proc", *PROC_READ_ONLY] if request.param else []


@pytest.fixture
def ws(tmp_path):
    folder = tmp_path / "a" / "b" / "ws"
    folder.mkdir(parents=True)
    return folder


def policy(ws, **settings):
    return SandboxPolicy.from_settings(SandboxSettings(**settings), ws, {})


def tail(cwd, fd=7, workspace=None):
    """The end of the command line; ``workspace``: a workspace-write policy's, whose missing
    ``codemode.toml`` is masked so that no command can create it."""
    mask = ["--ro-bind", "/dev/null", str(workspace / "codemode.toml")] if workspace is not None else []
    return [*mask, "--seccomp", str(fd), "--chdir", str(cwd), "--", *COMMAND]


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
    binds = pinned(TMP, extra, ws)
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
        *(a for folder in binds for a in ("--bind", str(folder), str(folder))),
        *tail(ws / "..", 3, workspace=ws),
    ]


def test_the_folders_above_protected_paths_are_pinned():
    """Each folder between a writable root and a protected path or another root, not the
    roots themselves, nor folders outside every root (``rename(2)`` refuses a mount point)."""
    roots = [Path("/tmp"), Path("/tmp/x/ws"), Path("/srv/extra")]
    paths = [Path("/tmp/cfg/deep/codemode.toml"), Path("/tmp/x/ws/pkg/tools.py"), Path("/srv/extra/.git"), *roots]
    assert bwrap.pinned_folders(paths, roots) == {
        Path("/tmp/cfg"),
        Path("/tmp/cfg/deep"),
        Path("/tmp/x"),
        Path("/tmp/x/ws/pkg"),
    }


def pinned(tmp, *roots: Path) -> list[Path]:
    """/tmp, ``roots`` and every folder between them, shallowest first."""
    folders = {Path(tmp), *roots, *(f for r in roots for f in r.parents if f.is_relative_to(tmp) and f != Path(tmp))}
    return sorted(folders, key=lambda folder: (len(folder.parts), folder))


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
        *tail(ws, workspace=ws),
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
        "--ro-bind",
        "/dev/null",
        str(ws / "codemode.toml"),
    ]


def test_protected_paths_come_after_every_bind(ws, tmp_path, proc):
    extra = tmp_path / "extra"
    (extra / ".git").mkdir(parents=True)
    (ws / ".git").mkdir()
    argv = bwrap_argv("bwrap", policy(ws, writable_roots=[str(extra)], exclude_slash_tmp=True), ws, 7, COMMAND)
    mounts = [
        (argv[i], argv[i + 1])
        for i, a in enumerate(argv)
        if a in ("--bind", "--ro-bind")
        and argv[i + 1] not in ("/", "/dev/null")
        and not argv[i + 1].startswith("/proc")
    ]
    assert mounts == [
        ("--bind", str(extra)),
        ("--bind", str(ws)),
        ("--ro-bind", str(ws / ".git")),
        ("--ro-bind", str(extra / ".git")),
    ]


def test_missing_roots_are_not_bound(ws, tmp_path, proc):
    argv = bwrap_argv("bwrap", policy(ws, writable_roots=[str(tmp_path / "gone")], exclude_slash_tmp=True), ws, 7, [])
    assert [a for a in argv if a.startswith(str(tmp_path))] == [str(ws), str(ws), str(ws / "codemode.toml"), str(ws)]


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
        *tail(ws, 9, workspace=ws),
    ]


def test_the_command_follows_the_double_dash_unchanged(ws, proc):
    command = ["/bin/sh", "-c", "--ro-bind / /; echo '--'"]
    argv = bwrap_argv("bwrap", policy(ws, sandbox_mode="read-only"), ws, 5, command)
    assert argv[-4:] == ["--", *command]
    assert argv[-8:-4] == ["--seccomp", "5", "--chdir", str(ws)]


def test_before_the_probe_proc_is_mounted(ws, monkeypatch):
    monkeypatch.setattr(bwrap, "_probe_result", None)
    argv = bwrap_argv("bwrap", policy(ws, sandbox_mode="read-only"), ws, 7, COMMAND)
    assert argv[argv.index("/dev") + 1 : argv.index("--seccomp")] == ["--proc", "/proc", *PROC_READ_ONLY]


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
    assert find_bwrap([ws]) == str(good)
    assert find_bwrap() == str(ws / "bin" / "bwrap")


def test_find_bwrap_without_one_on_the_path(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert find_bwrap([tmp_path / "ws"]) is None


def test_without_bwrap_the_problem_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setattr(bwrap, "_probe_result", None)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert bwrap.sandbox_problem([tmp_path]) == (
        "bubblewrap (`bwrap`) is not installed. Install it (Debian/Ubuntu: `apt-get install bubblewrap`; the "
        'project\'s scripts/install-tools.sh does), or set sandbox_mode = "danger-full-access" in codemode.toml '
        "to run commands without a sandbox."
    )
    # The verdict is kept for the process: a bwrap appearing later is not looked for again.
    _fake_bwrap(tmp_path / "later")
    monkeypatch.setenv("PATH", str(tmp_path / "later"))
    assert bwrap.sandbox_problem([tmp_path]).startswith("bubblewrap (`bwrap`) is not installed.")


def test_extra_protected_and_hidden_paths_are_mounted_after_the_config_mask(ws, tmp_path, proc):
    (ws / "tools.py").write_text("")
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (tmp_path / "server-token").write_text("")
    hidden = (runtime, tmp_path / "server-token", tmp_path / "gone")
    p = policy(ws, exclude_slash_tmp=True).with_protection((ws / "tools.py", ws / "missing.py"), hidden)
    argv = bwrap_argv("bwrap", p, ws, 7, COMMAND)
    assert argv[argv.index("--bind") : argv.index("--seccomp")] == [
        "--bind",
        str(ws),
        str(ws),
        "--ro-bind",
        str(ws / "tools.py"),
        str(ws / "tools.py"),
        "--ro-bind",
        "/dev/null",
        str(ws / "codemode.toml"),
        "--ro-bind",  # a protected path that does not exist yet is masked like the config file
        "/dev/null",
        str(ws / "missing.py"),
        "--tmpfs",
        str(runtime),
        "--ro-bind",
        "/dev/null",
        str(tmp_path / "server-token"),
    ]


def test_a_history_journal_made_after_the_policy_is_hidden_from_the_next_command(ws, tmp_path, proc, monkeypatch):
    """SQLite's journal exists only while the history is written: the policy names it from the
    start, and each command hides what exists when it starts."""
    from codemode.history_file import history_files

    monkeypatch.setenv("CODEMODE_HISTORY_FILE", str(tmp_path / "history.sqlite"))
    (tmp_path / "history.sqlite").write_text("")
    p = policy(ws, sandbox_mode="read-only").with_protection(hidden=tuple(history_files()))
    before = bwrap_argv("bwrap", p, ws, 7, COMMAND)
    assert before[before.index("--seccomp") - 3 : before.index("--seccomp")] == [
        "--ro-bind",
        "/dev/null",
        str(tmp_path / "history.sqlite"),
    ]
    (tmp_path / "history.sqlite-journal").write_text("pages of cells being stored")
    after = bwrap_argv("bwrap", p, ws, 7, COMMAND)
    assert after[after.index("--seccomp") - 6 : after.index("--seccomp")] == [
        "--ro-bind",
        "/dev/null",
        str(tmp_path / "history.sqlite"),
        "--ro-bind",
        "/dev/null",
        str(tmp_path / "history.sqlite-journal"),
    ]


def test_hidden_paths_are_hidden_in_read_only_mode_too(ws, tmp_path, proc):
    p = policy(ws, sandbox_mode="read-only").with_protection(hidden=(tmp_path,))
    argv = bwrap_argv("bwrap", p, ws, 7, COMMAND)
    assert argv[argv.index("--seccomp") - 2 : argv.index("--seccomp")] == ["--tmpfs", str(tmp_path)]


def test_an_existing_config_file_is_bound_read_only_not_masked(ws, proc):
    (ws / "codemode.toml").write_text("")
    argv = bwrap_argv("bwrap", policy(ws, exclude_slash_tmp=True), ws, 7, COMMAND)
    assert argv[argv.index("--bind") : argv.index("--seccomp")] == [
        "--bind",
        str(ws),
        str(ws),
        "--ro-bind",
        str(ws / "codemode.toml"),
        str(ws / "codemode.toml"),
    ]


def test_masked_paths_removes_the_empty_mount_point_afterwards(ws):
    p = policy(ws, exclude_slash_tmp=True)
    with bwrap.masked_paths(p):
        (ws / "codemode.toml").write_bytes(b"")  # what bubblewrap leaves as the mount point
    assert list(ws.iterdir()) == []


def test_masked_paths_waits_for_the_last_command_masking_the_path(ws):
    p = policy(ws, exclude_slash_tmp=True)
    with bwrap.masked_paths(p):
        with bwrap.masked_paths(p):
            (ws / "codemode.toml").write_bytes(b"")
        assert (ws / "codemode.toml").exists()  # the other command's mount point stays
    assert list(ws.iterdir()) == []
    assert bwrap._masks_in_use == {}


def test_masked_paths_keeps_what_a_person_wrote_meanwhile(ws, tmp_path):
    p = policy(ws, exclude_slash_tmp=True)
    with bwrap.masked_paths(p):
        (ws / "codemode.toml").write_text('sandbox_mode = "read-only"\n')
    assert (ws / "codemode.toml").read_text() == 'sandbox_mode = "read-only"\n'
    (ws / "codemode.toml").unlink()
    with bwrap.masked_paths(p):
        (ws / "codemode.toml").mkdir()
    assert (ws / "codemode.toml").is_dir()
    (ws / "codemode.toml").rmdir()
    with bwrap.masked_paths(p):
        (ws / "codemode.toml").symlink_to(tmp_path / "empty")
        (tmp_path / "empty").write_bytes(b"")
    assert (ws / "codemode.toml").is_symlink()


def _fake(folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o755)
    return path


def test_find_program_skips_every_untrusted_folder_and_links_into_them(tmp_path, monkeypatch):
    ws, extra = tmp_path / "ws", tmp_path / "extra"
    _fake(ws / "deep" / "bin", "bash")
    _fake(extra, "bash")
    (tmp_path / "linked-bin").symlink_to(ws / "deep" / "bin")
    good = _fake(tmp_path / "system", "bash")
    entries = [str(tmp_path / "linked-bin"), str(ws / "deep" / "bin"), str(extra), str(tmp_path / "system")]
    monkeypatch.setenv("PATH", os.pathsep.join(entries))
    assert bwrap.find_program("bash", [ws, extra]) == str(good)
    assert bwrap.find_program("bash", [ws]) == str(extra / "bash")
    assert bwrap.find_program("bash") == str(tmp_path / "linked-bin" / "bash")


def test_find_program_skips_empty_entries_which_mean_the_working_folder(tmp_path, monkeypatch):
    _fake(tmp_path, "bash")
    monkeypatch.chdir(tmp_path)
    for path in (":/nonexistent", "/nonexistent:", "/nonexistent::/nonexistent2", ".", ""):
        monkeypatch.setenv("PATH", path)
        assert bwrap.find_program("bash") is None, path


def test_a_command_started_while_another_masks_a_path_masks_it_too(ws, proc):
    """Two commands at once: the first's mount point for a path that must not be created (an
    empty file bubblewrap leaves) makes the path exist while the second's command line is built.
    The second masks it too, and the file stays until both ended: taken for an existing path,
    it was bound onto itself, and the second command failed with bubblewrap's ``Can't find
    source path`` once the first ended and removed it (a yielded cell's command started as
    another cell's ended)."""
    missing = ws / "__pycache__"
    guarded = policy(ws).with_protection(protected=(missing,))
    with bwrap.masked_paths(guarded) as first:
        assert missing in first
        missing.write_bytes(b"")  # what bubblewrap leaves as the first command's mount point
        with bwrap.masked_paths(guarded) as second:
            assert missing in second
            argv = bwrap_argv("bwrap", guarded, ws, 7, COMMAND, second)
            assert argv[argv.index(str(missing)) - 2 : argv.index(str(missing)) + 1] == [
                "--ro-bind",
                "/dev/null",
                str(missing),
            ]
            assert argv.count(str(missing)) == 1
        assert missing.exists()  # the first command still masks it
    assert not missing.exists()


def test_a_missing_program_inside_a_read_only_folder_needs_no_mask(ws, proc):
    """A server's ``node`` looked for in a venv's ``bin/`` inside a writable root (a clone
    under /tmp, a workspace's ``.venv``) is kept from being created by the venv's read-only
    bind: a mask there made bubblewrap fail every command (``Can't create file at
    .../.venv/bin/node: Read-only file system``)."""
    venv_bin = ws / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    guarded = policy(ws).with_protection(protected=(ws / ".venv", venv_bin / "node", ws / "bin" / "server"))
    assert guarded.guards() == [ws / "codemode.toml", ws / "bin"]
    with bwrap.masked_paths(guarded) as masked:
        argv = bwrap_argv("bwrap", guarded, ws, 7, COMMAND, masked)
    assert str(venv_bin / "node") not in argv
    triples = list(zip(argv, argv[1:], argv[2:], strict=False))
    assert ("--ro-bind", str(ws / ".venv"), str(ws / ".venv")) in triples
    assert ("--ro-bind", "/dev/null", str(ws / "bin")) in triples
