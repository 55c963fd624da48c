"""The sandbox of the built-in tools, through a real kernel and real bubblewrap.

Each kernel runs in a fresh notebook folder (its workspace) under a ``codemode.toml`` that sets
the policy. "Outside" is a folder under the real ``$HOME``, which is not under ``/tmp`` (a
writable root by default), created and removed by the test.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from jupyter_core.paths import jupyter_runtime_dir
from kernel_driver import Kernel, execute
from sandbox_cells import kernel_in, printed, read, shell, write

from codemode.sandbox.startup import startup_code

pytestmark = pytest.mark.usefixtures("codemode_kernelspec", "bubblewrap")


def run(kernel: Kernel, code: str, **kwargs):
    return execute(kernel.kc, code, **kwargs)


def result(execution) -> dict:
    return json.loads(execution.stdout)


def test_default_mode_writes_the_workspace_only(tmp_path, outside):
    workspace = tmp_path / "nb"
    (workspace / ".git").mkdir(parents=True)
    (workspace / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    target = outside / "from-shell.txt"
    with kernel_in(workspace) as kernel:
        inside = result(run(kernel, shell("echo hi > made.txt && cat made.txt")))
        assert (inside["exit_code"], inside["output"]) == (0, "hi\n")
        assert (workspace / "made.txt").read_text() == "hi\n"

        home = result(run(kernel, shell(f"echo no > {target}")))
        assert home["exit_code"] == 1
        assert home["output"] == f"/usr/bin/bash: line 1: {target}: Read-only file system\n"
        assert run(kernel, write(str(outside / "from-tool.txt"))).stdout.startswith(
            f"ERROR write_file: {str(outside / 'from-tool.txt')!r} is outside the folders the sandbox lets cells write"
        )
        assert list(outside.iterdir()) == []

        git = result(run(kernel, shell("echo x > .git/HEAD; mkdir .git/hooks")))
        assert git["exit_code"] != 0 and "Read-only file system" in git["output"]
        refused = run(kernel, write(".git/hooks/pre-commit")).stdout
        assert refused.startswith(
            f"ERROR write_file: {str(workspace / '.git' / 'hooks' / 'pre-commit')!r} cannot be written"
        )
        assert (workspace / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
        assert sorted(p.name for p in (workspace / ".git").iterdir()) == ["HEAD"]
        assert printed(run(kernel, write("notes/a.txt", "é"))) == '{"bytes_written":2}'
        assert (workspace / "notes" / "a.txt").read_text() == "é"


def test_read_only_mode_writes_nowhere_but_reads(tmp_path):
    workspace = tmp_path / "nb"
    workspace.mkdir()
    (workspace / "data.txt").write_text("kept\n")
    with kernel_in(workspace, 'sandbox_mode = "read-only"\n') as kernel:
        read = result(run(kernel, shell("cat data.txt; echo new > data.txt; echo more > /tmp/ro-test")))
        assert read["output"].startswith("kept\n") and read["output"].count("Read-only file system") == 2
        assert printed(run(kernel, write("data.txt", "changed"))) == (
            f'ERROR write_file: {str(workspace / "data.txt")!r} cannot be written: sandbox_mode is "read-only", '
            "which allows no writes."
        )
    assert (workspace / "data.txt").read_text() == "kept\n"
    assert not Path("/tmp/ro-test").exists()


def test_writable_roots_add_a_root(tmp_path, outside):
    toml = f'[sandbox_workspace_write]\nwritable_roots = ["{outside}"]\n'
    with kernel_in(tmp_path / "nb", toml) as kernel:
        assert result(run(kernel, shell(f"echo a > {outside}/a.txt")))["exit_code"] == 0
        assert printed(run(kernel, write(str(outside / "b.txt"), "b"))) == '{"bytes_written":1}'
    assert sorted(p.name for p in outside.iterdir()) == ["a.txt", "b.txt"]


def test_danger_full_access_writes_anywhere_and_says_so_once(tmp_path, outside):
    with kernel_in(tmp_path / "nb", 'sandbox_mode = "danger-full-access"\n') as kernel:
        first = run(kernel, shell(f"echo a > {outside}/a.txt"))
        assert result(first)["exit_code"] == 0
        notice = (
            'codemode: sandbox_mode is "danger-full-access": exec_command runs commands without a sandbox '
            "(every file the kernel's user can reach, the network, the kernel's environment) and write_file "
            "writes anywhere.\n"
        )
        assert first.stderr_messages == [notice]
        second = run(kernel, write(str(outside / "b.txt")))
        assert (printed(second), second.stderr_messages) == ('{"bytes_written":1}', [])
    assert sorted(p.name for p in outside.iterdir()) == ["a.txt", "b.txt"]


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A TCP listener on loopback that the test process owns."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    yield server
    server.close()


CONNECT = 'python3 -c \'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5); print("connected")\' {port}'


def test_never_refuses_every_spelling_of_a_forced_delete(tmp_path):
    """Under ``approval_policy = "never"`` a forced delete is refused however bash spells it
    (issue 24: these ran where plain ``rm -f`` was refused), with Codex's text, asking nothing;
    the file stays. A look-alike that does not force (``rm`` piped into bash) runs."""
    workspace = tmp_path / "nb"
    (workspace / "keep.txt").parent.mkdir(parents=True)
    (workspace / "keep.txt").write_text("kept")
    (workspace / "gone.txt").write_text("gone")
    spellings = [
        "rm $'-f' keep.txt",
        "{rm,-f,keep.txt}",
        "bash -c -- 'rm -f keep.txt'",
        "echo 'rm -f keep.txt' | bash",
        "find . -name keep.txt -delete",
    ]
    with kernel_in(workspace, 'approval_policy = "never"\n') as kernel:
        for cmd in spellings:
            assert printed(run(kernel, shell(cmd), allow_stdin=True)) == (
                "ERROR approval required by policy, but AskForApproval is set to Never"
            ), cmd
        assert (workspace / "keep.txt").read_text() == "kept"
        plain = result(run(kernel, shell("echo 'rm gone.txt' | bash"), allow_stdin=True))
        assert (plain["exit_code"], plain["output"]) == (0, "")
    assert sorted(p.name for p in workspace.iterdir()) == ["codemode.toml", "keep.txt"]


def test_network_is_blocked_by_default(tmp_path, listener):
    port = listener.getsockname()[1]
    with kernel_in(tmp_path / "nb") as kernel:
        blocked = result(run(kernel, shell(CONNECT.format(port=port))))
    assert blocked["exit_code"] == 1
    assert blocked["output"].endswith("PermissionError: [Errno 1] Operation not permitted\n")


def test_network_access_true_reaches_the_listener(tmp_path, listener):
    port = listener.getsockname()[1]
    toml = "[sandbox_workspace_write]\nnetwork_access = true\n"
    with kernel_in(tmp_path / "nb", toml) as kernel:
        reached = result(run(kernel, shell(CONNECT.format(port=port))))
        connection, _ = listener.accept()
        connection.close()
    assert (reached["exit_code"], reached["output"]) == (0, "connected\n")


def test_environment_drops_credentials_by_default(tmp_path):
    env = {"MY_API_KEY": "k", "GH_TOKEN": "t", "DB_SECRET": "s", "PLAIN_VALUE": "p"}
    with kernel_in(tmp_path / "nb", env=env) as kernel:
        lines = result(run(kernel, shell("env | sort")))["output"].splitlines()
    assert "PLAIN_VALUE=p" in lines and "CODEX_SANDBOX_NETWORK_DISABLED=1" in lines
    assert [line for line in lines if line.split("=")[0] in env and line != "PLAIN_VALUE=p"] == []


BASH_OWN = ("PWD", "SHLVL", "_")
"""Variables bash itself exports to ``env``, whatever it was given."""


def test_environment_policy_keys_change_env(tmp_path):
    toml = (
        "[shell_environment_policy]\n"
        'inherit = "core"\nignore_default_excludes = true\nexclude = ["user"]\n'
        'set = { ADDED = "1", MY_API_KEY = "set" }\ninclude_only = ["PATH", "HOME", "MY_*", "ADDED", "USER"]\n'
    )
    env = {"MY_API_KEY": "k", "PLAIN_VALUE": "p", "USER": "someone"}
    with kernel_in(tmp_path / "nb", toml, env=env) as kernel:
        lines = result(run(kernel, shell("env | sort")))["output"].splitlines()
    names = sorted(line.split("=")[0] for line in lines if line.split("=")[0] not in BASH_OWN)
    # core keeps PATH/HOME/USER...; exclude drops USER; set adds ADDED and overrides MY_API_KEY
    # (which core had dropped); include_only keeps the listed names; the runtime adds its flag.
    assert names == ["ADDED", "CODEX_SANDBOX_NETWORK_DISABLED", "HOME", "MY_API_KEY", "PATH"]
    assert "MY_API_KEY=set" in lines and "ADDED=1" in lines


def test_typo_in_disabled_tools_is_a_configuration_problem(tmp_path):
    with kernel_in(tmp_path / "nb", '[tools]\ndisabled = ["exec_comand", "sleep"]\n') as kernel:
        first = run(kernel, 'text(typeof tools.sleep + " " + typeof tools.exec_command);')
    source = tmp_path / "nb" / "codemode.toml"
    assert printed(first) == "undefined function"
    assert first.stderr_messages == [
        f"codemode configuration problem: {source}: tools.disabled: 'exec_comand' names no tool, so nothing "
        "was disabled by it. Check the spelling against %tools (JavaScript or code-mode names, such as "
        "exec_command or mcp__server__tool).\n"
    ]


def test_config_magic_shows_the_effective_policy(tmp_path):
    workspace = tmp_path / "nb"
    (workspace / ".git").mkdir(parents=True)
    toml = 'approval_policy = "never"\n[sandbox_workspace_write]\nexclude_tmpdir_env_var = true\n'
    with kernel_in(workspace, toml) as kernel:
        shown = run(kernel, "%config").stdout.splitlines()
        connection_file = kernel.km.connection_file
    real = workspace.resolve()
    # The kernel's own start-up code (its venv, codemode's packages) is read-only too where it
    # lies under a writable root: in a checkout under /tmp (``git clone . "$(mktemp -d)/c"``).
    read_only = shown[-7].removeprefix("  read-only inside them: ").split(", ")
    under_tmp = {str(p) for p in startup_code(None, ()) if p.resolve().is_relative_to(Path("/tmp").resolve())}
    assert read_only[:2] == [str(real / ".git"), str(real / "codemode.toml")]
    assert set(read_only[2:]) == under_tmp and len(read_only) == 2 + len(under_tmp)
    assert shown[-9:] == [
        'sandbox_mode = "workspace-write"',
        f"  writable: {real}, /tmp",
        "  read-only inside them: " + ", ".join(read_only),
        "  hidden from commands: "
        + ", ".join(
            [
                jupyter_runtime_dir(),
                *(os.environ["CODEMODE_HISTORY_FILE"] + s for s in ("", "-journal", "-wal", "-shm")),
            ]
        )
        + f", {connection_file}",
        "  credentials hidden (hide_credentials = true): ~/.ssh, ~/.aws, ~/.config/gcloud, ~/.azure, ~/.netrc, "
        "~/.codex/auth.json, ~/.docker/config.json, ~/.kube/config, ~/.gnupg, ~/.git-credentials, "
        "~/.config/git/credentials, ~/.pypirc, ~/.npmrc, ~/.config/gh/hosts.yml, ~/.config/hub, "
        "~/.cargo/credentials.toml, ~/.cargo/credentials, ~/.gem/credentials, "
        "~/.terraform.d/credentials.tfrc.json, ~/.vault-token, ~/.pgpass",
        f"  connection files hidden in: /tmp, /var/tmp, {real}",
        "  network: blocked",
        'approval_policy = "never"',
        'shell_environment_policy: inherit = "all", *KEY*/*SECRET*/*TOKEN* removed',
    ]


def test_a_cell_cannot_create_or_change_the_notebooks_config(tmp_path):
    """The next kernel start reads codemode.toml (MCP commands, the sandbox mode): a cell must
    not be able to write it, nor create it where there was none."""
    workspace = tmp_path / "nb"
    with kernel_in(workspace) as kernel:
        made = result(run(kernel, shell("echo 'sandbox_mode = \\\"danger-full-access\\\"' > codemode.toml")))
        assert made["exit_code"] == 1 and "codemode.toml: Permission denied" in made["output"]
        refused = printed(run(kernel, write("codemode.toml", 'sandbox_mode = "danger-full-access"')))
        assert refused.startswith(f"ERROR write_file: {str(workspace.resolve() / 'codemode.toml')!r} cannot be written")
        assert sorted(p.name for p in workspace.iterdir()) == []  # no mount point left behind
    (workspace / "codemode.toml").write_text("[session]\nyield_time_ms = 5000\n")
    with kernel_in(workspace) as kernel:
        changed = result(run(kernel, shell("echo 'sandbox_mode = \\\"danger-full-access\\\"' >> codemode.toml")))
        assert changed["exit_code"] == 1 and "Read-only file system" in changed["output"]
    assert (workspace / "codemode.toml").read_text() == "[session]\nyield_time_ms = 5000\n"


def test_commands_cannot_write_proc_sys_even_as_root(tmp_path):
    """A kernel running as root keeps uid 0 in the sandbox, and Linux checks only the uid for
    /proc/sys (kernel.core_pattern would run a program of the cell's as full root)."""
    with kernel_in(tmp_path / "nb") as kernel:
        done = result(run(kernel, shell("echo 1 > /proc/sys/vm/drop_caches; unshare -U true")))
    assert done["output"].splitlines() == [
        "/usr/bin/bash: line 1: /proc/sys/vm/drop_caches: Read-only file system",
        "unshare: unshare failed: No space left on device",
    ]


def test_the_kernels_connection_file_is_out_of_reach(tmp_path):
    """Its key signs requests to the kernel: a command that read it could answer its own
    approval questions."""
    with kernel_in(tmp_path / "nb") as kernel:
        connection_file = kernel.km.connection_file
        catted = result(run(kernel, shell(f"wc -c < {connection_file}")))
        refused = printed(run(kernel, read(connection_file)))
    assert catted["output"] == f"/usr/bin/bash: line 1: {connection_file}: Permission denied\n"
    assert refused.startswith("ERROR read_file: ") and refused.endswith(
        "cannot be read: Jupyter's runtime files and the kernel's history are out of cells' reach."
    )


def test_the_input_history_is_out_of_reach(tmp_path):
    """The history file holds every cell anyone ran (a pasted token included): commands and the
    file tools cannot read it."""
    history = os.environ["CODEMODE_HISTORY_FILE"]
    with kernel_in(tmp_path / "nb") as kernel:
        assert run(kernel, 'text("secret-" + "4711")').stdout == "secret-4711\n"
        catted = result(run(kernel, shell(f"grep -c secret- {history}")))
        refused = printed(run(kernel, read(history)))
    assert catted["output"] == f"grep: {history}: Permission denied\n"
    assert refused.startswith("ERROR read_file: ") and refused.endswith(
        "cannot be read: Jupyter's runtime files and the kernel's history are out of cells' reach."
    )


def test_the_folders_above_a_protected_file_cannot_be_renamed(tmp_path):
    """A read-only bind kept a protected file from being changed, not the folders above it from
    being renamed: ``mv cfg cfg_old && mkdir cfg`` and a new ``cfg/codemode.toml`` replaced
    what the next kernel start reads, and it ran the cell's choice outside the sandbox (so did
    a renamed folder above a tool module, a server's program or the kernel's environment).
    Each folder between a writable root and a protected path (or another root) is a mount
    point for commands now, which ``rename(2)`` and ``rmdir(2)`` refuse (``mv`` then tries a
    copy and fails to remove the original)."""
    folder = tmp_path / "cfg" / "deep"  # tmp_path lies in /tmp, a writable root
    folder.mkdir(parents=True)
    config = folder / "codemode.toml"
    config.write_text('[python_tools]\nmodules = ["mytools"]\n')
    (folder / "mytools.py").write_text("")
    workspace = tmp_path / "nb"
    swaps = {
        "config's folder": f"mv {folder} {tmp_path}/moved1",
        "config's grandparent": f"mv {tmp_path}/cfg {tmp_path}/moved2",
        "config's folder removed": f"rm -r {folder}",
        "workspace's parent in /tmp": f"mv {tmp_path} {tmp_path}-moved",
    }
    with kernel_in(workspace, env={"CODEMODE_CONFIG": str(config)}) as kernel:
        for name, cmd in swaps.items():
            done = result(run(kernel, shell(cmd)))
            assert done["exit_code"] == 1, (name, done["output"])
            assert config.read_text() == '[python_tools]\nmodules = ["mytools"]\n', name
            assert (folder / "mytools.py").exists() and workspace.is_dir(), name
        # What the folders hold stays writable.
        made = result(run(kernel, shell(f"touch {folder}/notes.txt && echo made")))
        assert made["output"] == "made\n"
    assert sorted(p.name for p in folder.iterdir()) == ["codemode.toml", "mytools.py", "notes.txt"]
