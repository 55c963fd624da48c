"""What a second attack on the sandbox found, pinned: reads checked after opening, the kernel's
/proc out of the file tools' reach, set-user-ID files, System V IPC, datagram pairs, an empty
config file, files of MCP servers, a second candidate for a tool module, a hidden folder
reached through a symlink."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from sandbox_helpers import call, require_bwrap, run

from codemode.config import Config, SandboxSettings, find_config_path
from codemode.sandbox.files import WriteRefused, read_checked
from codemode.sandbox.policy import SandboxPolicy
from codemode.sandbox.startup import shadowed_modules, startup_code
from codemode.tools.registry import ToolRegistry


def workspace_write(ws, hidden=()):
    return SandboxPolicy.from_settings(SandboxSettings(exclude_slash_tmp=True), ws, {}).with_protection(hidden=hidden)


@pytest.mark.unit
def test_a_read_is_checked_again_on_what_was_really_opened(ws, tmp_path, monkeypatch):
    """A symlink swapped in between the check and the open (simulated: the path resolves to a
    harmless file at check time) still cannot reach a hidden file."""
    secret = tmp_path / "runtime" / "kernel-1.json"
    secret.parent.mkdir()
    secret.write_text('{"key": "secret"}')
    policy = workspace_write(ws, hidden=(secret.parent,))
    (ws / "link").symlink_to(secret)
    real_realpath = os.path.realpath
    # At the check, the path still looks like a plain file of the workspace.
    monkeypatch.setattr(os.path, "realpath", lambda p: str(p) if str(p).endswith("link") else real_realpath(p))
    with pytest.raises(WriteRefused) as refused:
        read_checked(policy, ws / "link")
    assert (
        str(refused.value)
        == f"{str(secret)!r} cannot be read: Jupyter's runtime files and the kernel's history are out of cells' reach."
    )


@pytest.mark.unit
@pytest.mark.parametrize("path", ["/proc/self/environ", "/proc/kmsg", "/proc/self/mem"])
def test_the_kernels_proc_is_out_of_the_file_tools_reach(ws, path):
    """The kernel's environment holds the credentials commands never see."""
    with pytest.raises(WriteRefused) as refused:
        read_checked(workspace_write(ws), Path(path))
    resolved = os.path.realpath(path)
    assert str(refused.value) == (
        f"{resolved!r} cannot be read: the kernel's /proc is out of cells' reach (exec_command has its own)."
    )


@pytest.mark.unit
async def test_list_dir_refuses_the_kernels_proc(dispatchers):
    result = await call(await dispatchers.make(), "list_dir", {"path": "/proc/self"})
    assert result.error == (
        f"list_dir: {os.path.realpath('/proc/self')!r} cannot be listed: the kernel's /proc is out of cells' "
        "reach (exec_command has its own)."
    )


async def test_no_command_can_make_a_set_user_id_file(dispatchers, ws):
    """A root kernel's commands keep uid 0: such a file would give root to whoever runs it."""
    require_bwrap()
    script = (
        "cp /bin/true t; chmod u+s t; echo chmod=$?; chmod g+s t; echo chmod-g=$?; chmod 755 t; echo plain=$?; "
        f"{sys.executable} -c 'import os; os.close(os.open(\"t2\", os.O_CREAT | os.O_WRONLY, 0o4755))'; "
        "stat -c %a t"
    )
    result = await run(await dispatchers.make(), script)
    lines = result["output"].splitlines()
    assert [line for line in lines if not line.startswith(("chmod:", "Traceback", " ", "PermissionError"))] == [
        "chmod=1",
        "chmod-g=1",
        "plain=0",
        "755",
    ]
    assert not (ws / "t2").exists()
    assert oct((ws / "t").stat().st_mode & 0o7777) == "0o755"


async def test_system_v_ipc_of_the_machine_is_out_of_reach(dispatchers):
    require_bwrap()
    made = subprocess.run(["ipcmk", "-M", "4096"], capture_output=True, text=True, check=True)
    shmid = made.stdout.split()[-1]
    try:
        outside = subprocess.run(["ipcs", "-m", "-i", shmid], capture_output=True, text=True, check=True)
        result = await run(await dispatchers.make(), f"ipcs -m -i {shmid} 2>&1")
    finally:
        subprocess.run(["ipcrm", "-m", shmid], check=True)
    assert f"shmid={shmid}" in outside.stdout.replace(" ", "").replace("\t", "")
    assert result["output"] == f"ipcs: id {shmid} not found\n"


@pytest.mark.unit
def test_an_empty_config_file_beside_the_notebook_counts_as_none(tmp_path, monkeypatch):
    """It is what a sandboxed command's mount point leaves if the kernel is killed meanwhile:
    the user's own config must still be found."""
    monkeypatch.delenv("CODEMODE_CONFIG", raising=False)
    home = tmp_path / "home"
    (home / ".config" / "codemode").mkdir(parents=True)
    (home / ".config" / "codemode" / "config.toml").write_text('sandbox_mode = "read-only"\n')
    monkeypatch.setenv("HOME", str(home))
    notebook = tmp_path / "nb"
    notebook.mkdir()
    (notebook / "codemode.toml").write_text("")
    assert find_config_path(notebook) == home / ".config" / "codemode" / "config.toml"
    (notebook / "codemode.toml").write_text("# mine\n")
    assert find_config_path(notebook) == notebook / "codemode.toml"


@pytest.mark.unit
def test_the_files_an_mcp_servers_command_line_names_are_protected(tmp_path):
    conf = tmp_path / "conf"
    (conf / "servers").mkdir(parents=True)
    (conf / "servers" / "weather.py").write_text("")
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "run-server").write_text("")
    server = SimpleNamespace(
        command=str(tmp_path / "bin" / "run-server"), args=["servers/weather.py", "--port", "8"], cwd=None
    )
    url_server = SimpleNamespace(command=None, args=[], cwd=None)
    paths = startup_code(conf / "codemode.toml", [], [server, url_server])
    assert tmp_path / "bin" / "run-server" in paths
    assert conf / "servers" / "weather.py" in paths
    assert not any(p.name in ("--port", "8") for p in paths)


@pytest.mark.unit
def test_a_second_candidate_for_a_tool_module_is_detected(tmp_path):
    (tmp_path / "mytools.py").write_text("")
    (tmp_path / "other.py").write_text("")
    (tmp_path / "mytools_extra.py").write_text("")
    assert shadowed_modules(tmp_path, ["mytools", "other"]) == {}
    (tmp_path / "mytools").mkdir()
    (tmp_path / "other.cpython-311-x86_64-linux-gnu.so").write_text("")
    assert shadowed_modules(tmp_path, ["mytools", "other"]) == {
        "mytools": ["mytools/", "mytools.py"],
        "other": ["other.cpython-311-x86_64-linux-gnu.so", "other.py"],
    }


@pytest.mark.unit
async def test_a_shadowed_tool_module_is_reported_and_not_loaded(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    (conf / "shadowed_tools_mod").mkdir(parents=True)
    (conf / "shadowed_tools_mod.py").write_text("raise RuntimeError('must not be imported')\n")
    source = conf / "codemode.toml"
    monkeypatch.chdir(tmp_path)
    registry = await ToolRegistry.create(Config(python_modules=["shadowed_tools_mod"], source_path=source))
    try:
        assert registry.errors[0] == (
            f"{source}: python_tools.modules: 'shadowed_tools_mod' has several candidates in {str(conf)!r} "
            "(shadowed_tools_mod/, shadowed_tools_mod.py), and a cell may have written one of them; it was not "
            "loaded. Remove the one you did not write, then restart the kernel."
        )
        assert "shadowed_tools_mod" not in sys.modules
    finally:
        await registry.aclose()


async def test_a_hidden_folder_reached_through_a_symlink_leaves_commands_working(dispatchers, tmp_path, monkeypatch):
    """Jupyter's runtime folder behind a symlink: hidden at its target, and the link itself is
    no mount point (bubblewrap cannot mount over a symlink)."""
    require_bwrap()
    runtime = tmp_path / "real-runtime"
    runtime.mkdir()
    (runtime / "kernel-1.json").write_text('{"key": "secret"}')
    (tmp_path / "runtime-link").symlink_to(runtime)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime-link"))
    dispatcher = await dispatchers.make()
    result = await run(dispatcher, f"ls -A {tmp_path / 'runtime-link'}/; echo listed")
    assert (result["exit_code"], result["output"]) == (0, "listed\n")
    read = await call(dispatcher, "read_file", {"path": str(tmp_path / "runtime-link" / "kernel-1.json")})
    assert read.error == (
        f"read_file: {str(runtime / 'kernel-1.json')!r} cannot be read: Jupyter's runtime files and the kernel's history are out of cells' reach."
    )
