"""Running a command inside bubblewrap (``bwrap``), the way Codex's Linux sandbox does.

Why bubblewrap rather than Landlock alone: a network namespace refuses every connection the
command opens (loopback included, which Landlock cannot express for UDP or Unix sockets), a PID
namespace ends every process the command started when it ends, and read-only bind mounts
hold for root too. Codex's Linux sandbox made the same choice (``codex-rs/linux-sandbox/src/bwrap.rs``;
Landlock is its legacy fallback).

The command line (:func:`bwrap_argv`):

- ``--new-session --die-with-parent``: no terminal to inject keystrokes into; the command dies
  with its supervisor;
- ``--unshare-user --disable-userns --cap-drop ALL``: a user namespace with no capabilities,
  also when the kernel runs as root (a root bwrap otherwise keeps every capability, and the
  command could simply remount ``/`` writable), in which no further user namespace can be made;
- ``--unshare-pid``, ``--unshare-ipc`` (no System V shared memory or queues of the machine),
  and ``--unshare-net`` without network;
- ``--ro-bind / /``, ``--dev /dev``, ``--proc /proc``: the whole file system, read-only; then
  the writable parts of the new ``/proc`` (:data:`PROC_READ_ONLY`) bound read-only again: a
  kernel running as root keeps uid 0 inside, and the kernel checks only the uid for a write to
  ``/proc/sys`` (``kernel.core_pattern`` would run a program of the cell's as full root);
- ``--bind R R`` for each writable root and each folder between a root and a protected path
  or another root (:func:`pinned_folders`: a mount point cannot be renamed), shallowest
  first, then ``--ro-bind P P`` for each protected path in it,
  ``--ro-bind /dev/null P`` over each protected path that must not be created
  (:func:`masked_paths` removes the empty file bubblewrap leaves as mount point), and
  ``--tmpfs`` or ``--ro-bind /dev/null`` over each hidden path
  (:meth:`~codemode.sandbox.policy.SandboxPolicy.hidden_now`: Jupyter's runtime folder, the
  credentials, every connection file found in the temporary folders and the writable roots as
  the command starts);
- ``--seccomp FD`` (:mod:`codemode.sandbox.seccomp`), ``--chdir`` the command's folder.

:func:`sandbox_problem` checks once per process that this works here (bubblewrap installed,
namespaces allowed) and otherwise says why and what to do; commands then fail closed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from codemode.sandbox.policy import SandboxPolicy

BWRAP_PACKAGE = "bubblewrap"
"""The Debian/Ubuntu/Fedora package that installs ``bwrap``."""

PROBE_TIMEOUT_S = 10.0
"""How long the one-off check that bubblewrap works may take, in seconds."""

_NAMESPACES = [
    "--unshare-user",
    "--disable-userns",
    "--cap-drop",
    "ALL",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-net",
]

PROC_READ_ONLY = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs")
"""Parts of ``/proc`` a sandboxed command may read but not write (as container runtimes keep them)."""

_masks_lock = threading.Lock()
_masks_in_use: dict[Path, int] = {}

_probe_lock = threading.Lock()
_probe_result: tuple[str | None, bool, str | None] | None = None
"""The one-off probe's verdict: (the problem or None, whether a new /proc can be mounted, the
``bwrap`` it ran)."""


def find_program(name: str, untrusted: Iterable[Path] = ()) -> str | None:
    """``name`` on the ``PATH``, skipping relative (and empty) ``PATH`` entries and folders
    inside ``untrusted`` ones: a cell must not be able to plant the ``bwrap`` or ``bash`` that
    runs its commands (Codex refuses a ``bwrap`` found under the working directory too)."""
    folders = [Path(os.path.realpath(folder)) for folder in untrusted]
    entries = []
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        if not entry or not os.path.isabs(entry):
            continue
        if any(Path(os.path.realpath(entry)).is_relative_to(folder) for folder in folders):
            continue
        entries.append(entry)
    return shutil.which(name, path=os.pathsep.join(entries))


def find_bwrap(untrusted: Iterable[Path] = ()) -> str | None:
    """``bwrap`` as :func:`find_program` finds it."""
    return find_program("bwrap", untrusted)


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


def usable_bwrap(untrusted: Iterable[Path] = ()) -> tuple[str | None, str | None]:
    """``(bwrap, None)`` when bubblewrap works on this machine (``bwrap`` as
    :func:`find_bwrap` found it), else ``(None, problem)``: a sentence saying why it does not
    and how to fix it. Checked once per process (about 10 ms), by running ``/bin/true`` inside."""
    global _probe_result
    with _probe_lock:
        if _probe_result is None:
            found = find_bwrap(untrusted)
            _probe_result = (*_check(found), found)
        problem, _, found = _probe_result
    return (None, problem) if problem is not None else (found, None)


def sandbox_problem(untrusted: Iterable[Path] = ()) -> str | None:
    """The problem of :func:`usable_bwrap`, or None when bubblewrap works here."""
    return usable_bwrap(untrusted)[1]


def _mount_proc() -> bool:
    return _probe_result is None or _probe_result[1]


def bwrap_argv(
    bwrap: str,
    policy: SandboxPolicy,
    cwd: Path,
    seccomp_fd: int,
    command: list[str],
    masked: list[Path] | None = None,
) -> list[str]:
    """The ``bwrap`` command line running ``command`` in ``cwd`` under ``policy`` (not
    ``danger-full-access``), loading the filter from ``seccomp_fd``; ``masked``: the paths
    :func:`masked_paths` gave (default: :meth:`SandboxPolicy.masked`)."""
    argv = [bwrap, "--new-session", "--die-with-parent", *_NAMESPACES[:6]]
    if not policy.network_access:
        argv.append("--unshare-net")
    argv += ["--ro-bind", "/", "/", "--dev", "/dev"]
    if _mount_proc():
        argv += ["--proc", "/proc"]
        for proc_path in PROC_READ_ONLY:
            if os.path.exists(proc_path):
                argv += ["--ro-bind", proc_path, proc_path]
    roots = policy.writable_roots()
    folders = [root.root for root in roots]
    masked = policy.masked() if masked is None else masked
    targets = [
        t
        for t in dict.fromkeys(p.resolve() for root in roots for p in root.read_only)
        if t.exists() and t not in masked
    ]
    for folder in sorted({*folders, *pinned_folders([*targets, *masked, *folders], folders)}, key=_shallow_first):
        argv += ["--bind", str(folder), str(folder)]
    for target in targets:
        argv += ["--ro-bind", str(target), str(target)]
    for path in masked:
        argv += ["--ro-bind", "/dev/null", str(path)]
    for path in policy.hidden_now():
        if path.is_symlink():
            continue  # its target is hidden too (a mount cannot cover a symlink)
        if path.is_dir():
            argv += ["--tmpfs", str(path)]
        elif path.exists():
            argv += ["--ro-bind", "/dev/null", str(path)]
    argv += ["--seccomp", str(seccomp_fd), "--chdir", str(cwd), "--", *command]
    return argv


def _shallow_first(path: Path) -> tuple[int, Path]:
    return len(path.parts), path


def pinned_folders(paths: Iterable[Path], roots: Iterable[Path]) -> set[Path]:
    """The folders above ``paths`` (resolved) that lie inside a writable root and are not one:
    a command gets each bound onto itself.

    A read-only bind keeps a protected file from being changed, not the folders above it from
    being renamed: ``mv cfg cfg_old && mkdir cfg`` and a new ``cfg/codemode.toml`` replaced the
    protected config, and the next kernel start ran what the cell wrote, outside the sandbox
    (the same for a tool module's package, a server's program, the kernel's environment, or a
    workspace inside ``/tmp``). A mount point cannot be renamed or removed (``rename(2)``,
    ``rmdir(2)``: ``EBUSY``), so every folder on the way from a root down to a protected path,
    a masked path or another root is made one; what it holds stays as writable as before."""
    roots = set(roots)
    return {
        folder
        for path in paths
        for folder in path.parents
        if folder not in roots and any(folder.is_relative_to(root) for root in roots)
    }


@contextlib.contextmanager
def masked_paths(policy: SandboxPolicy) -> Iterator[list[Path]]:
    """Around one sandboxed command: gives the paths its command line masks (pass them to
    :func:`bwrap_argv`), and afterwards removes the empty files bubblewrap created as their
    mount points, once no other command of this process still masks them (only an empty
    regular file is removed: never something a person made).

    A masked path (:meth:`SandboxPolicy.guards`) exists while another command masks it, as that
    command's mount point: it is masked for this command too, and counted, so that it stays
    until both ended. Taken for an existing path instead, it was bound onto itself, and gone by
    the time bubblewrap looked for it when the other command ended first (``Can't find source
    path``: a command started as another ended failed), or not covered at all (an empty file
    standing for a missing folder, which the command could then replace)."""
    with _masks_lock:
        guards = policy.guards()
        candidates = dict.fromkeys((*guards, *policy.extra_protected))
        paths = [p for p in candidates if p in _masks_in_use or (p in guards and not os.path.lexists(p))]
        for path in paths:
            _masks_in_use[path] = _masks_in_use.get(path, 0) + 1
    try:
        yield paths
    finally:
        with _masks_lock:
            for path in paths:
                _masks_in_use[path] -= 1
                if _masks_in_use[path]:
                    continue
                del _masks_in_use[path]
                with contextlib.suppress(OSError):
                    info = path.lstat()
                    if stat.S_ISREG(info.st_mode) and info.st_size == 0:
                        path.unlink()
