"""Writing a file only where the sandbox policy allows it (the ``write_file`` built-in).

The path is resolved first (symlinks of the parts that exist, then ``..``: what the kernel's
file system would really write), then checked against the policy
(:meth:`~codemode.sandbox.policy.SandboxPolicy.can_write`). The write itself goes through a
descriptor of the checked folder, which is checked again after opening, and never follows a
symlink in the last part: a path swapped for a symlink between the check and the write
(by a command running meanwhile) fails instead of writing elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

from .policy import SandboxPolicy


class WriteRefused(PermissionError):
    """The policy does not allow writing the path; the message says why and what to do."""


def _refusal(policy: SandboxPolicy, path: Path) -> str:
    if policy.mode == "read-only":
        return f'{str(path)!r} cannot be written: sandbox_mode is "read-only", which allows no writes.'
    for root in policy.writable_roots():
        for protected in root.read_only:
            if path.is_relative_to(protected):
                return (
                    f"{str(path)!r} cannot be written: {str(protected)!r} stays read-only inside the "
                    "workspace (as in Codex, so that a cell cannot plant git hooks or change its own settings)."
                )
    roots = ", ".join(str(r.root) for r in policy.writable_roots()) or "none"
    return (
        f"{str(path)!r} is outside the folders the sandbox lets cells write (writable: {roots}). "
        "Write inside the notebook's folder, or add the folder to [sandbox_workspace_write] "
        "writable_roots in codemode.toml."
    )


def _fd_path(fd: int) -> Path:
    return Path(os.readlink(f"/proc/self/fd/{fd}"))


def write_checked(policy: SandboxPolicy, path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` (relative paths are relative to the working directory),
    creating missing parent folders, if ``policy`` allows it; returns the path written.
    Raises :class:`WriteRefused`, or ``OSError`` for the file system's own refusals."""
    target = Path(os.path.realpath(Path.cwd() / path.expanduser()))
    if not policy.can_write(target):
        raise WriteRefused(_refusal(policy, target))
    target.parent.mkdir(parents=True, exist_ok=True)
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if not policy.unrestricted and not policy.can_write(_fd_path(folder) / target.name):
            raise WriteRefused(_refusal(policy, _fd_path(folder) / target.name))
        fd = os.open(target.name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666, dir_fd=folder)
    finally:
        os.close(folder)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    return target
