"""The sandbox as a cell meets it: ``exec_command`` and ``write_file`` called through the
dispatcher, commands really running under bubblewrap and the seccomp filter, the workspace a
temporary folder."""

from __future__ import annotations

import os
import shutil
import sys

import pytest
from sandbox_helpers import call, parse_env, require_bwrap, run

from codemode.config import ShellEnvironmentPolicy
from codemode.sandbox import bwrap

NO_BWRAP = (
    "exec_command cannot run the command in the sandbox: bubblewrap (`bwrap`) is not installed. Install it "
    "(Debian/Ubuntu: `apt-get install bubblewrap`; the project's scripts/install-tools.sh does), or set "
    'sandbox_mode = "danger-full-access" in codemode.toml to run commands without a sandbox.'
)

SOCKETS = """
import os, socket
for name in ("AF_INET", "AF_INET6"):
    try:
        socket.socket(getattr(socket, name), socket.SOCK_STREAM).close()
        print(name, "ok")
    except OSError as exc:
        print(name, exc.strerror)
a, b = socket.socketpair()
os.write(a.fileno(), b"ping")
print("AF_UNIX socketpair", os.read(b.fileno(), 4).decode())
"""

PTRACE = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
result = libc.ptrace(0, 0, None, None)  # PTRACE_TRACEME
print(result, os.strerror(ctypes.get_errno()) if result else "")
"""


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty home folder (no ~/.bashrc of the machine's user takes part)."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


@pytest.fixture
def kernel_env(monkeypatch, home):
    monkeypatch.setenv("MY_API_KEY", "sk-123")
    monkeypatch.setenv("github_token", "gh-456")
    monkeypatch.setenv("PLAIN_VAR", "plain")
    monkeypatch.setenv("OTHER_VAR", "other")


@pytest.mark.parametrize(
    ("settings", "present", "absent"),
    [
        (
            {},
            {"PLAIN_VAR": "plain", "OTHER_VAR": "other", "CODEX_SANDBOX_NETWORK_DISABLED": "1"},
            ["MY_API_KEY", "github_token"],
        ),
        (
            {"shell_environment": ShellEnvironmentPolicy(ignore_default_excludes=True)},
            {"MY_API_KEY": "sk-123", "github_token": "gh-456", "PLAIN_VAR": "plain"},
            [],
        ),
        (
            {"shell_environment": ShellEnvironmentPolicy(exclude=["plain_*"], set={"PLAIN_VAR": "set"})},
            {"PLAIN_VAR": "set", "OTHER_VAR": "other"},
            ["MY_API_KEY"],
        ),
        (
            {"shell_environment": ShellEnvironmentPolicy(exclude=["plain_*"])},
            {"OTHER_VAR": "other"},
            ["PLAIN_VAR"],
        ),
        (
            {"shell_environment": ShellEnvironmentPolicy(inherit="core")},
            {"PATH": os.environ["PATH"], "HOME": "<home>"},
            ["PLAIN_VAR", "OTHER_VAR", "MY_API_KEY"],
        ),
        (
            {"network_access": True},
            {"PLAIN_VAR": "plain"},
            ["CODEX_SANDBOX_NETWORK_DISABLED", "MY_API_KEY"],
        ),
        (
            {"sandbox_mode": "read-only"},
            {"PLAIN_VAR": "plain", "CODEX_SANDBOX_NETWORK_DISABLED": "1"},
            ["MY_API_KEY"],
        ),
        (
            {"sandbox_mode": "danger-full-access"},
            {"PLAIN_VAR": "plain"},
            ["CODEX_SANDBOX_NETWORK_DISABLED", "MY_API_KEY", "github_token"],
        ),
    ],
    ids=["default", "ignore_default_excludes", "set-after-exclude", "exclude", "core", "network", "ro", "danger"],
)
async def test_command_environment_under_each_key(dispatchers, kernel_env, home, settings, present, absent):
    if settings.get("sandbox_mode") != "danger-full-access":
        require_bwrap()
    present = {name: str(home) if value == "<home>" else value for name, value in present.items()}
    result = await run(await dispatchers.make(**settings), "env")
    assert result["exit_code"] == 0
    env = parse_env(result["output"])
    assert {name: env.get(name) for name in present} == present
    assert [name for name in absent if name in env] == []


async def test_inherit_none_gives_exactly_the_set_variables(dispatchers, kernel_env, home):
    require_bwrap()
    policy = ShellEnvironmentPolicy(inherit="none", set={"A": "1", "MY_TOKEN": "kept", "HOME": str(home)})
    result = await run(await dispatchers.make(shell_environment=policy), "env")
    assert parse_env(result["output"]) == {
        "A": "1",
        "MY_TOKEN": "kept",
        "HOME": str(home),
        "CODEX_SANDBOX_NETWORK_DISABLED": "1",
    }


async def test_inherit_none_without_sandbox_gives_exactly_the_set_variables(dispatchers, kernel_env):
    policy = ShellEnvironmentPolicy(inherit="none", set={"A": "1"})
    result = await run(await dispatchers.make(sandbox_mode="danger-full-access", shell_environment=policy), "env")
    assert parse_env(result["output"]) == {"A": "1"}


async def test_include_only_keeps_only_matching_names_and_the_network_flag(dispatchers, kernel_env, home):
    require_bwrap()
    policy = ShellEnvironmentPolicy(include_only=["plain_var", "*_KEY", "HOME"], set={"EXTRA": "x", "SET_KEY": "k"})
    result = await run(await dispatchers.make(shell_environment=policy), "env")
    assert parse_env(result["output"]) == {
        "PLAIN_VAR": "plain",
        "SET_KEY": "k",
        "HOME": str(home),
        "CODEX_SANDBOX_NETWORK_DISABLED": "1",
    }


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"shell_environment": ShellEnvironmentPolicy(inherit="core")},
        {"network_access": True},
        {"sandbox_mode": "danger-full-access"},
    ],
    ids=["default", "core", "network", "danger"],
)
async def test_commands_do_not_run_the_users_bashrc(dispatchers, home, monkeypatch, settings):
    # bash -c runs ~/.bashrc when it believes stdin is a network connection (a remote shell)
    # and SHLVL is below 2; a command must see only the environment the policy gives it.
    if settings.get("sandbox_mode") != "danger-full-access":
        require_bwrap()
    (home / ".bashrc").write_text("echo BASHRC RAN\nexport FROM_BASHRC=1\n")
    monkeypatch.delenv("SHLVL", raising=False)
    result = await run(await dispatchers.make(**settings), "echo hi; echo ${FROM_BASHRC:-unset}")
    assert (result["exit_code"], result["output"]) == (0, "hi\nunset\n")


async def test_seccomp_refuses_internet_sockets_but_not_unix_socketpairs(dispatchers):
    require_bwrap()
    result = await run(await dispatchers.make(), f"{sys.executable} -c '{SOCKETS}'")
    assert (result["exit_code"], result["output"]) == (
        0,
        "AF_INET Operation not permitted\nAF_INET6 Operation not permitted\nAF_UNIX socketpair ping\n",
    )


async def test_with_network_access_internet_sockets_open(dispatchers):
    require_bwrap()
    result = await run(await dispatchers.make(network_access=True), f"{sys.executable} -c '{SOCKETS}'")
    assert (result["exit_code"], result["output"]) == (0, "AF_INET ok\nAF_INET6 ok\nAF_UNIX socketpair ping\n")


@pytest.mark.parametrize("network", [False, True])
async def test_ptrace_is_refused_with_or_without_network(dispatchers, network):
    require_bwrap()
    result = await run(await dispatchers.make(network_access=network), f"{sys.executable} -c '{PTRACE}'")
    assert (result["exit_code"], result["output"]) == (0, "-1 Operation not permitted\n")


async def test_no_capabilities_inside_so_no_mounts(dispatchers):
    require_bwrap()
    script = (
        "mount -o remount,rw / 2>/dev/null; echo remount=$?; "
        "mount -t tmpfs tmpfs /mnt 2>/dev/null; echo tmpfs=$?; grep CapEff /proc/self/status"
    )
    result = await run(await dispatchers.make(), script)
    assert result["output"] == "remount=32\ntmpfs=32\nCapEff:\t0000000000000000\n"


async def test_writes_land_only_in_the_workspace_and_not_in_its_git(dispatchers, ws, tmp_path):
    require_bwrap()
    (ws / ".git").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    script = (
        f"echo in > notes.txt; echo notes=$?; "
        f"echo x 2>/dev/null > .git/config; echo git=$?; "
        f"echo x 2>/dev/null > {outside}/f; echo outside=$?; "
        f"rm -r .git 2>/dev/null; echo rmgit=$?"
    )
    result = await run(await dispatchers.make(exclude_slash_tmp=True), script)
    assert result["output"] == "notes=0\ngit=1\noutside=1\nrmgit=1\n"
    assert (ws / "notes.txt").read_text() == "in\n"
    assert list((ws / ".git").iterdir()) == []
    assert list(outside.iterdir()) == []


async def test_a_refused_write_reports_the_read_only_file_system(dispatchers, tmp_path):
    require_bwrap()
    target = tmp_path / "outside.txt"
    result = await run(await dispatchers.make(exclude_slash_tmp=True), f"touch {target}")
    assert (result["exit_code"], result["output"]) == (
        1,
        f"touch: cannot touch '{target}': Read-only file system\n",
    )
    assert not target.exists()


async def test_read_only_mode_writes_nowhere(dispatchers, ws):
    require_bwrap()
    result = await run(await dispatchers.make(sandbox_mode="read-only"), "touch here.txt")
    assert (result["exit_code"], result["output"]) == (1, "touch: cannot touch 'here.txt': Read-only file system\n")
    assert list(ws.iterdir()) == []


@pytest.mark.unit
async def test_write_file_refuses_outside_through_the_dispatcher(dispatchers, ws, tmp_path):
    dispatcher = await dispatchers.make(exclude_slash_tmp=True)
    target = tmp_path / "outside.txt"
    refused = await call(dispatcher, "write_file", {"path": str(target), "content": "x"})
    assert (refused.outcome, refused.error) == (
        "failed",
        f"write_file: {str(target)!r} is outside the folders the sandbox lets cells write (writable: {ws}). "
        "Write inside the notebook's folder, or add the folder to [sandbox_workspace_write] writable_roots "
        "in codemode.toml.",
    )
    assert not target.exists()
    written = await call(dispatcher, "write_file", {"path": "inside.txt", "content": "x"})
    assert (written.outcome, written.value) == ("completed", {"bytes_written": 1})
    assert (ws / "inside.txt").read_text() == "x"


@pytest.fixture
def path_without_bwrap(tmp_path, monkeypatch):
    """``PATH`` holding only bash and touch; the probe cache forgotten before and after."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for tool in ("bash", "touch"):
        (folder / tool).symlink_to(shutil.which(tool))
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.setattr(bwrap, "_probe_result", None)  # undone after the test
    return folder


@pytest.mark.unit
@pytest.mark.parametrize("mode", ["workspace-write", "read-only"])
async def test_without_bwrap_a_sandboxed_command_fails_closed(dispatchers, ws, path_without_bwrap, mode):
    dispatcher = await dispatchers.make(sandbox_mode=mode)
    result = await call(dispatcher, "exec_command", {"cmd": "touch marker"})
    assert (result.outcome, result.error) == ("failed", NO_BWRAP)
    assert not (ws / "marker").exists()


async def test_without_bwrap_danger_full_access_still_runs(dispatchers, ws, path_without_bwrap):
    result = await run(await dispatchers.make(sandbox_mode="danger-full-access"), "touch marker; echo done")
    assert (result["exit_code"], result["output"]) == (0, "done\n")
    assert (ws / "marker").exists()


@pytest.mark.unit
async def test_a_bwrap_planted_in_the_workspace_is_not_used(dispatchers, ws, path_without_bwrap, monkeypatch):
    planted = ws / "bin" / "bwrap"
    planted.parent.mkdir()
    # Runs whatever follows "--" with no sandbox at all.
    planted.write_text(f'#!{shutil.which("bash")}\nwhile [ "$1" != -- ]; do shift; done; shift; exec "$@"\n')
    planted.chmod(0o755)
    monkeypatch.setenv("PATH", os.pathsep.join([str(ws / "bin"), str(path_without_bwrap)]))
    result = await call(await dispatchers.make(), "exec_command", {"cmd": "touch marker"})
    assert (result.outcome, result.error) == ("failed", NO_BWRAP)
    assert not (ws / "marker").exists()
