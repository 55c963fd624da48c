"""What the security review added to the sandbox, as a cell meets it: ``exec_command`` really
running under bubblewrap. The config file a next start reads stays out of reach (even before it
exists), /proc's kernel settings are read-only, no user namespace can be made inside, Jupyter's
runtime folder looks empty, the shell comes from outside the writable folders, protected
symlinks stop the command, and Unix datagram sockets are refused without network."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys

import pytest
from sandbox_helpers import call, require_bwrap, run

BASH = shutil.which("bash")

UNIX_SOCKETS = """
import os, socket
def attempt(name, make):
    try:
        sock = make()
    except OSError as exc:
        print(name, exc.strerror)
        return
    if isinstance(sock, tuple):  # write(2), not send(2): send is sendto, denied without network
        os.write(sock[0].fileno(), b"ping")
        print(name, "ok", os.read(sock[1].fileno(), 4).decode(), repr(sock[0].getpeername()))
    else:
        print(name, "ok")
attempt("dgram", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM))
attempt("dgram-nonblock", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK))
attempt("stream", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("dgram-pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM))
attempt("stream-pair", lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM))
"""


@pytest.fixture(autouse=True)
def _bwrap():
    require_bwrap()


async def test_a_command_cannot_create_the_workspaces_config_file(dispatchers, ws):
    script = (
        "echo 'sandbox_mode = \"danger-full-access\"' > codemode.toml; echo write=$?; "
        "printf x > other; mv other codemode.toml; echo move=$?; "
        "ln -s other codemode.toml 2>/dev/null; echo link=$?; "
        "cat codemode.toml; echo read=$?"
    )
    result = await run(await dispatchers.make(exclude_slash_tmp=True), script)
    assert (result["exit_code"], result["output"]) == (
        0,
        f"{BASH}: line 1: codemode.toml: Permission denied\nwrite=1\n"
        "mv: cannot move 'other' to 'codemode.toml': Device or resource busy\nmove=1\n"
        "link=1\n"
        "cat: codemode.toml: Permission denied\nread=1\n",
    )
    # The empty file bubblewrap made as the mask's mount point is gone again.
    assert sorted(p.name for p in ws.iterdir()) == ["other"]


async def test_the_config_file_stays_masked_while_any_command_runs(dispatchers, ws):
    """Command A masks the missing codemode.toml (its mount point appears); command B, started
    meanwhile, sees the file and binds it read-only. A ending first must not remove the mount
    point under B, which could then create the file."""
    dispatcher = await dispatchers.make(exclude_slash_tmp=True)
    first = asyncio.ensure_future(run(dispatcher, "while [ ! -e a-done ]; do sleep 0.02; done"))
    while not (ws / "codemode.toml").exists():
        await asyncio.sleep(0.02)  # polling the file system: A's bubblewrap is up
    second = asyncio.ensure_future(
        run(dispatcher, "touch b-started; while [ ! -e b-go ]; do sleep 0.02; done; echo x > codemode.toml; echo rc=$?")
    )
    while not (ws / "b-started").exists():
        await asyncio.sleep(0.02)
    (ws / "a-done").touch()
    await asyncio.wait_for(first, 30)
    (ws / "b-go").touch()
    result = await asyncio.wait_for(second, 30)
    assert result["output"].splitlines()[-1] == "rc=1"
    assert sorted(p.name for p in ws.iterdir()) == ["a-done", "b-go", "b-started"]


async def test_a_command_in_a_subfolder_cannot_create_the_config_file_either(dispatchers, ws):
    (ws / "sub").mkdir()
    result = await run(await dispatchers.make(exclude_slash_tmp=True), "touch ../codemode.toml", workdir="sub")
    assert (result["exit_code"], result["output"]) == (1, "touch: cannot touch '../codemode.toml': Permission denied\n")
    assert sorted(p.name for p in ws.iterdir()) == ["sub"]


async def test_a_command_cannot_change_or_remove_an_existing_config_file(dispatchers, ws):
    (ws / "codemode.toml").write_text('sandbox_mode = "workspace-write"\n')
    script = "echo x >> codemode.toml; echo append=$?; mv codemode.toml old.toml; echo move=$?"
    result = await run(await dispatchers.make(exclude_slash_tmp=True), script)
    assert result["output"] == (
        f"{BASH}: line 1: codemode.toml: Read-only file system\nappend=1\n"
        "mv: cannot move 'codemode.toml' to 'old.toml': Device or resource busy\nmove=1\n"
    )
    assert (ws / "codemode.toml").read_text() == 'sandbox_mode = "workspace-write"\n'
    assert sorted(p.name for p in ws.iterdir()) == ["codemode.toml"]


async def test_kernel_settings_under_proc_sys_are_read_only(dispatchers):
    # Dropping clean caches would be harmless even if it were allowed.
    result = await run(await dispatchers.make(), "echo 1 > /proc/sys/vm/drop_caches")
    assert (result["exit_code"], result["output"]) == (
        1,
        f"{BASH}: line 1: /proc/sys/vm/drop_caches: Read-only file system\n",
    )


async def test_proc_sys_stays_readable(dispatchers):
    result = await run(await dispatchers.make(), "cat /proc/sys/kernel/ostype")
    assert (result["exit_code"], result["output"]) == (0, "Linux\n")


@pytest.mark.parametrize("settings", [{}, {"sandbox_mode": "read-only"}, {"network_access": True}])
async def test_no_user_namespace_can_be_made_inside(dispatchers, settings):
    result = await run(await dispatchers.make(**settings), "unshare -U true")
    assert (result["exit_code"], result["output"]) == (1, "unshare: unshare failed: No space left on device\n")


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    """Jupyter's runtime folder with one connection file, set before any registry is built."""
    folder = tmp_path / "jupyter-runtime"
    folder.mkdir()
    (folder / "kernel-1.json").write_text('{"key": "secret"}')
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(folder))
    return folder


@pytest.mark.parametrize("settings", [{}, {"sandbox_mode": "read-only"}], ids=["workspace-write", "read-only"])
async def test_jupyters_runtime_folder_is_empty_inside(dispatchers, runtime, settings):
    script = f"ls -A {runtime}; echo listed=$?; cat {runtime}/kernel-1.json; echo read=$?"
    result = await run(await dispatchers.make(**settings), script)
    assert result["output"] == (f"listed=0\ncat: {runtime}/kernel-1.json: No such file or directory\nread=1\n")
    assert sorted(p.name for p in runtime.iterdir()) == ["kernel-1.json"]


async def test_jupyters_runtime_folder_is_visible_without_a_sandbox(dispatchers, runtime):
    result = await run(await dispatchers.make(sandbox_mode="danger-full-access"), f"ls -A {runtime}")
    assert result["output"] == "kernel-1.json\n"


def _plant_bash(folder):
    """A ``bash`` that leaves a mark and runs nothing."""
    folder.mkdir(parents=True)
    planted = folder / "bash"
    planted.write_text(f"#!/bin/sh\ntouch {folder}/PLANTED-RAN\necho planted\n")
    planted.chmod(0o755)
    return planted


@pytest.mark.parametrize(
    ("where", "settings"),
    [
        ("ws", {}),
        ("ws", {"sandbox_mode": "danger-full-access"}),
        ("extra", {"writable_roots": ["<extra>"]}),
        ("extra", {"sandbox_mode": "read-only", "writable_roots": ["<extra>"]}),
    ],
    ids=["workspace", "workspace-danger", "writable-root", "writable-root-read-only"],
)
async def test_a_bash_planted_first_on_the_path_is_not_used(dispatchers, ws, tmp_path, monkeypatch, where, settings):
    folder = (ws if where == "ws" else tmp_path / "extra") / "bin"
    _plant_bash(folder)
    monkeypatch.setenv("PATH", os.pathsep.join([str(folder), os.environ["PATH"]]))
    settings = {k: [str(tmp_path / "extra")] if v == ["<extra>"] else v for k, v in settings.items()}
    result = await run(await dispatchers.make(exclude_slash_tmp=True, **settings), "echo $0")
    assert (result["exit_code"], result["output"]) == (0, f"{BASH}\n")
    assert sorted(p.name for p in folder.iterdir()) == ["bash"]


async def test_a_protected_symlink_in_the_workspace_stops_the_command(dispatchers, ws, outside):
    (ws / ".git").symlink_to(outside)
    result = await call(await dispatchers.make(exclude_slash_tmp=True), "exec_command", {"cmd": "touch marker"})
    assert (result.outcome, result.error) == (
        "failed",
        f"exec_command cannot run the command in the sandbox: {str(ws / '.git')!r} must stay read-only, but it is "
        "a symlink inside a writable folder, which a command could replace. Replace the symlink with the folder "
        'or file itself, or set sandbox_mode to "read-only" or "danger-full-access".',
    )
    assert sorted(p.name for p in ws.iterdir()) == [".git"]


async def test_a_protected_symlink_does_not_stop_a_read_only_sandbox(dispatchers, ws, outside):
    (ws / ".git").symlink_to(outside)
    result = await run(await dispatchers.make(sandbox_mode="read-only"), "echo ok")
    assert (result["exit_code"], result["output"]) == (0, "ok\n")


async def test_unix_datagram_sockets_are_refused_without_network(dispatchers):
    result = await run(await dispatchers.make(), f"{sys.executable} -c '{UNIX_SOCKETS}'")
    assert (result["exit_code"], result["output"]) == (
        0,
        "dgram Operation not permitted\n"
        "dgram-nonblock Operation not permitted\n"
        "stream ok\n"
        "dgram-pair Operation not permitted\n"
        "stream-pair ok ping ''\n",
    )


async def test_unix_datagram_sockets_open_with_network(dispatchers):
    result = await run(await dispatchers.make(network_access=True), f"{sys.executable} -c '{UNIX_SOCKETS}'")
    assert (result["exit_code"], result["output"]) == (
        0,
        "dgram ok\ndgram-nonblock ok\nstream ok\ndgram-pair ok ping ''\nstream-pair ok ping ''\n",
    )


SEND_AND_WAKE = """
import asyncio, socket
a, b = socket.socketpair()
a.send(b"ping")
print("send", b.recv(4))
async def main():
    return await asyncio.to_thread(lambda: "woken")
print(asyncio.run(asyncio.wait_for(main(), 10)))
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).sendto(b"x", "/dev/log")
except OSError as exc:
    print("sendto with an address", exc.strerror)
"""
"""``send()`` on a connected socket is ``sendto`` without an address; asyncio wakes its loop
from a worker thread that way. Only ``sendto`` with an address is refused."""


async def test_send_on_a_connected_socket_works_without_network(dispatchers):
    result = await run(await dispatchers.make(), f"{sys.executable} -c '{SEND_AND_WAKE}'")
    assert (result["exit_code"], result["output"]) == (
        0,
        "send b'ping'\nwoken\nsendto with an address Operation not permitted\n",
    )
