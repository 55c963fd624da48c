"""Secrets a cell must not reach, through a real kernel and real bubblewrap: other kernels'
connection files (whose key runs code in that kernel), wherever jupyter_client put them and
also when they appear after the kernel started, and the usual credentials of the home folder.

The "other kernels" are connection files written as a plain ``KernelManager`` writes them when
it starts a kernel (what nbclient, papermill and nbval use): ``tempfile.mkstemp(".json")`` in
``/tmp`` or ``$TMPDIR``, or ``kernel-<id>.json`` in Jupyter's runtime folder. No kernel process
is needed for the file to be what a cell must not read.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from jupyter_client import KernelManager
from kernel_driver import execute
from sandbox_cells import kernel_in, listing, printed, read, shell, write

pytestmark = pytest.mark.usefixtures("codemode_kernelspec", "bubblewrap")

CONNECTION_FILE = "it is a Jupyter connection file, whose key lets anyone holding it run code in that kernel."
RUNTIME = "Jupyter's runtime files and the kernel's history are out of cells' reach."
CREDENTIALS = (
    "credentials (~/.ssh, ~/.aws, ~/.netrc, ...) are out of cells' reach; hide_credentials = false in "
    "codemode.toml lets cells read them."
)


def written_connection_file(managers: list[KernelManager], path: Path | None = None) -> Path:
    """A connection file written by a plain ``KernelManager`` (kept in ``managers``: a manager
    that is collected removes its file): at ``path``, or where ``tempfile.mkstemp`` puts it (as
    ``KernelManager.start_kernel`` does)."""
    km = KernelManager(connection_file=str(path) if path else "")
    km.write_connection_file()
    managers.append(km)
    return Path(km.connection_file)


def command(kernel, cmd: str) -> dict:
    return json.loads(execute(kernel.kc, shell(cmd)).stdout)


def test_other_kernels_connection_files_are_out_of_reach_also_when_made_after_the_start(tmp_path, monkeypatch):
    tmpdir, runtime, home = tmp_path / "tmpdir", tmp_path / "runtime", tmp_path / "home"
    tmpdir.mkdir()
    env = {"TMPDIR": str(tmpdir), "JUPYTER_RUNTIME_DIR": str(runtime), "HOME": str(home)}
    home.mkdir()
    workspace, managers = tmp_path / "nb", []
    with kernel_in(workspace, env=env) as kernel:
        # All made after the kernel started: /tmp (the default), the kernel's $TMPDIR, a
        # runtime folder that did not exist at the start, a name chosen by whoever started it.
        in_tmp = written_connection_file(managers)
        assert in_tmp.parent == Path(tempfile.gettempdir())
        monkeypatch.setattr(tempfile, "tempdir", str(tmpdir))
        in_tmpdir = written_connection_file(managers)
        assert in_tmpdir.parent == tmpdir
        runtime.mkdir()
        in_runtime = written_connection_file(managers, runtime / "kernel-1.json")
        in_workspace = written_connection_file(managers, workspace / "papermill-kernel.json")
        files = [in_tmp, in_tmpdir, in_runtime, in_workspace]
        contents = [f.read_bytes() for f in files]
        (workspace / "link.txt").symlink_to(in_tmp)
        os.link(in_tmpdir, workspace / "hard.json")
        os.link(in_tmpdir, workspace / "hard.txt")

        # Through the kernel's own root (its /proc), and through links someone else made (a
        # cell's commands cannot: they never see the original).
        through_proc = Path("/proc/self/root") / in_tmp.relative_to("/")
        links = [workspace / "link.txt", workspace / "hard.json", workspace / "hard.txt", through_proc]
        for path in [*files[:2], in_workspace, *links]:
            real = path.resolve()
            assert printed(execute(kernel.kc, read(str(path)))) == (
                f"ERROR read_file: {str(real)!r} cannot be read: {CONNECTION_FILE}"
            )
            assert printed(execute(kernel.kc, write(str(path)))) == (
                f"ERROR write_file: {str(real)!r} cannot be written: {CONNECTION_FILE}"
            )
        assert printed(execute(kernel.kc, read(str(in_runtime)))) == (
            f"ERROR read_file: {str(in_runtime)!r} cannot be read: {RUNTIME}"
        )
        assert printed(execute(kernel.kc, listing(str(runtime)))) == (
            f"ERROR list_dir: {str(runtime)!r} cannot be listed: {RUNTIME}"
        )

        catted = command(kernel, " ; ".join(f"cat {f}" for f in [*files, *links[:2], through_proc]))
        assert catted["output"].splitlines() == [
            f"cat: {in_tmp}: Permission denied",
            f"cat: {in_tmpdir}: Permission denied",
            f"cat: {in_runtime}: No such file or directory",
            f"cat: {in_workspace}: Permission denied",
            f"cat: {workspace / 'link.txt'}: Permission denied",
            f"cat: {workspace / 'hard.json'}: Permission denied",
            f"cat: {through_proc}: Permission denied",
        ]
        changed = command(kernel, f"ls -A {runtime}; for f in {' '.join(map(str, files))}; do echo x > $f; done")
        # The runtime folder is an empty folder of the command's own (what it writes there is lost).
        assert changed["output"].splitlines() == [
            f"/usr/bin/bash: line 1: {f}: Permission denied" for f in (in_tmp, in_tmpdir, in_workspace)
        ]
    assert [f.read_bytes() for f in files] == contents
    for km in managers:
        km.cleanup_connection_file()


def test_credentials_are_out_of_reach_by_default(tmp_path):
    """Codex lets its sandboxed commands read them; here neither commands nor the file tools
    can, also for a credential made after the kernel started, or reached through a symlink; the
    file tools also refuse a hard link made elsewhere before (the same file under another name;
    a command can read that one: see docs/sandbox.md, "Limits")."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("private key\n")
    (home / ".netrc").write_text("machine example.com password secret\n")
    (home / "notes.txt").write_text("not a secret\n")
    (home / ".git-credentials").write_text("https://user:token@example.com\n")
    (tmp_path / "keys").mkdir()
    hard_link = tmp_path / "keys" / "netrc-hardlink"
    os.link(home / ".netrc", hard_link)
    workspace = tmp_path / "nb"
    with kernel_in(workspace, env={"HOME": str(home)}) as kernel:
        (home / ".kube").mkdir()
        (home / ".kube" / "config").write_text("token: secret\n")
        (workspace / "netrc").symlink_to(home / ".netrc")
        credentials = (
            home / ".ssh" / "id_ed25519",
            home / ".netrc",
            home / ".kube" / "config",
            home / ".git-credentials",
        )
        for path in (*credentials, hard_link):
            assert (
                printed(execute(kernel.kc, read(str(path))))
                == f"ERROR read_file: {str(path)!r} cannot be read: {CREDENTIALS}"
            )
        assert printed(execute(kernel.kc, read("netrc"))) == (
            f"ERROR read_file: {str(home / '.netrc')!r} cannot be read: {CREDENTIALS}"
        )
        assert printed(execute(kernel.kc, listing(str(home / ".ssh")))) == (
            f"ERROR list_dir: {str(home / '.ssh')!r} cannot be listed: {CREDENTIALS}"
        )
        catted = command(kernel, "ls -A ~/.ssh; cat ~/.netrc ~/.kube/config netrc ~/.git-credentials ~/notes.txt")
    assert catted["output"].splitlines() == [
        f"cat: {home / '.netrc'}: Permission denied",
        f"cat: {home / '.kube' / 'config'}: Permission denied",
        "cat: netrc: Permission denied",
        f"cat: {home / '.git-credentials'}: Permission denied",
        "not a secret",
    ]
