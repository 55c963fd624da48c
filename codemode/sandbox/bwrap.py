"""Running a command inside bubblewrap (``bwrap``), the way Codex's Linux sandbox does.

Why bubblewrap rather than Landlock alone: a network namespace refuses every connection the
command opens (loopback included, which Landlock cannot express for UDP or Unix sockets), a PID
namespace ends every process the command started when it ends, and read-only bind mounts
hold for root too. Codex's Linux sandbox made the same choice (``codex-rs/linux-sandbox/src/bwrap.rs``;
Landlock is its legacy fallback).

The command line (:func:`bwrap_argv`):

- ``--new-session --die-with-parent``: no terminal to inject keystrokes into; the command dies
  with its supervisor;
- ``--unshare-user --cap-drop ALL``: a user namespace with no capabilities, also when the kernel
  runs as root (a root bwrap otherwise keeps every capability, and the command could simply
  remount ``/`` writable);
- ``--unshare-pid`` (and ``--unshare-net`` without network);
- ``--ro-bind / /``, ``--dev /dev``, ``--proc /proc``: the whole file system, read-only;
- ``--bind R R`` for each writable root, then ``--ro-bind P P`` for each protected path in it;
- ``--seccomp FD`` (:mod:`codemode.sandbox.seccomp`), ``--chdir`` the command's folder.

:func:`sandbox_problem` checks once per process that this works here (bubblewrap installed,
namespaces allowed) and otherwise says why and what to do; commands then fail closed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

from .policy import SandboxPolicy

BWRAP_PACKAGE = "bubblewrap"
"""The Debian/Ubuntu/Fedora package that installs ``bwrap``."""

PROBE_TIMEOUT_S = 10.0
"""How long the one-off check that bubblewrap works may take, in seconds."""

_NAMESPACES = ["--unshare-user", "--cap-drop", "ALL", "--unshare-pid", "--unshare-net"]

_probe_lock = threading.Lock()
_probe_result: tuple[str | None, bool] | None = None


def find_bwrap(workspace: Path | None = None) -> str | None:
    """``bwrap`` on the ``PATH``, skipping relative ``PATH`` entries and folders inside
    ``workspace`` (a cell must not be able to plant its own ``bwrap``, as Codex also refuses)."""
    entries = []
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        if workspace is not None and Path(entry).resolve().is_relative_to(workspace):
            continue
        entries.append(entry)
    return shutil.which("bwrap", path=os.pathsep.join(entries))


def _probe(bwrap: str, with_proc: bool) -> subprocess.CompletedProcess[str]:
    argv = [bwrap, *_NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev"]
    if with_proc:
        argv += ["--proc", "/proc"]
    return subprocess.run(
        [*argv, "--", "/bin/true"], capture_output=True, text=True, timeout=PROBE_TIMEOUT_S, check=False
    )


def _check(bwrap: str | None) -> tuple[str | None, bool]:
    if bwrap is None:
        return (
            "bubblewrap (`bwrap`) is not installed. Install it (Debian/Ubuntu: `apt-get install "
            f"{BWRAP_PACKAGE}`; the project's scripts/install-tools.sh does), or set "
            'sandbox_mode = "danger-full-access" in codemode.toml to run commands without a sandbox.',
            False,
        )
    try:
        done = _probe(bwrap, with_proc=True)
        if done.returncode == 0:
            return None, True
        # Some container runtimes refuse a new /proc; the PID namespace still holds without it.
        if "proc" in done.stderr and _probe(bwrap, with_proc=False).returncode == 0:
            return None, False
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap could not be started ({exc}).", False
    why = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit status {done.returncode}"
    return (
        f"bubblewrap cannot create the sandbox's namespaces here ({why}). Allow unprivileged user "
        "namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu "
        "kernel.apparmor_restrict_unprivileged_userns=0), or run the kernel where they are allowed; "
        'sandbox_mode = "danger-full-access" runs commands without a sandbox.',
        False,
    )


def sandbox_problem(workspace: Path | None = None) -> str | None:
    """None when bubblewrap works on this machine, else a sentence saying why it does not and
    how to fix it. Checked once per process (about 10 ms), by running ``/bin/true`` inside."""
    global _probe_result
    with _probe_lock:
        if _probe_result is None:
            _probe_result = _check(find_bwrap(workspace))
        return _probe_result[0]


def _mount_proc() -> bool:
    return _probe_result is None or _probe_result[1]


def bwrap_argv(bwrap: str, policy: SandboxPolicy, cwd: Path, seccomp_fd: int, command: list[str]) -> list[str]:
    """The ``bwrap`` command line running ``command`` in ``cwd`` under ``policy`` (not
    ``danger-full-access``), loading the filter from ``seccomp_fd``."""
    argv = [bwrap, "--new-session", "--die-with-parent", *_NAMESPACES[:4]]
    if not policy.network_access:
        argv.append("--unshare-net")
    argv += ["--ro-bind", "/", "/", "--dev", "/dev"]
    if _mount_proc():
        argv += ["--proc", "/proc"]
    roots = policy.writable_roots()
    for root in sorted(roots, key=lambda r: len(r.root.parts)):
        argv += ["--bind", str(root.root), str(root.root)]
    targets = dict.fromkeys(p.resolve() for root in roots for p in root.read_only)
    for target in targets:
        if target.exists():
            argv += ["--ro-bind", str(target), str(target)]
    argv += ["--seccomp", str(seccomp_fd), "--chdir", str(cwd), "--", *command]
    return argv
