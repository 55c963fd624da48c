"""Writing a file only where the sandbox policy allows it (the ``write_file`` built-in).

The path is resolved first (symlinks of the parts that exist, then ``..``: what the kernel's
file system would really write), then checked against the policy
(:meth:`~codemode.sandbox.policy.SandboxPolicy.can_write`). The write itself goes through a
descriptor of the checked folder, which is checked again after opening, and never follows a
symlink in the last part: a path swapped for a symlink between the check and the write
(by a command running meanwhile) fails instead of writing elsewhere.

Reading (``read_file``, ``list_dir``) is refused for the policy's hidden paths and credentials
and the kernel's ``/proc``; a credential is also recognised by the identity of what was really
opened (:func:`~codemode.sandbox.secrets.credential_identities`: a hard link to ``~/.netrc``
elsewhere is refused for reading and writing alike); reading or overwriting a Jupyter connection file is refused
wherever it lies, by the content of what was really opened
(:func:`~codemode.sandbox.secrets.is_connection_file`): through a symlink, a hard link or a
name chosen by whoever started that kernel alike.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from codemode.sandbox.policy import SandboxPolicy
from codemode.sandbox.secrets import MAX_CONNECTION_FILE_BYTES, credential_identities, is_connection_file


class WriteRefused(PermissionError):
    """The policy (or the kind of file) does not allow the operation; the message says why and
    what to do."""


def _refusal(policy: SandboxPolicy, path: Path) -> str:
    if policy.mode == "read-only":
        return f'{str(path)!r} cannot be written: sandbox_mode is "read-only", which allows no writes.'
    for protected in [*(p for root in policy.writable_roots() for p in root.read_only), *policy.masked()]:
        if path.is_relative_to(protected):
            return (
                f"{str(path)!r} cannot be written: {str(protected)!r} stays read-only for cells (as in "
                "Codex: what runs by itself later, git hooks, the config file, the kernel's own code, "
                "must not be something a cell wrote)."
            )
    hidden = _hidden_refusal(policy, path, "written")
    if hidden is not None:
        return hidden
    roots = ", ".join(str(r.root) for r in policy.writable_roots()) or "none"
    return (
        f"{str(path)!r} is outside the folders the sandbox lets cells write (writable: {roots}). "
        "Write inside the notebook's folder, or add the folder to [sandbox_workspace_write] "
        "writable_roots in codemode.toml."
    )


def _fd_path(fd: int) -> Path:
    return Path(os.readlink(f"/proc/self/fd/{fd}"))


def _resolved(path: Path) -> Path:
    """``path`` as the file system would reach it: relative to the working directory, ``~``
    expanded, symlinks of the existing parts resolved, then ``..``."""
    return Path(os.path.realpath(Path.cwd() / path.expanduser()))


def _hidden_refusal(policy: SandboxPolicy, path: Path, verb: str) -> str | None:
    if any(path.is_relative_to(hidden) for hidden in policy.hidden):
        return (
            f"{str(path)!r} cannot be {verb}: Jupyter's runtime files and the kernel's history are out of cells' reach."
        )
    if any(path.is_relative_to(credential) for credential in policy.credentials):
        return _credential_refusal(path, verb)
    return None


def _credential_refusal(path: Path, verb: str) -> str:
    return (
        f"{str(path)!r} cannot be {verb}: credentials (~/.ssh, ~/.aws, ~/.netrc, ...) are out of cells' reach; "
        "hide_credentials = false in codemode.toml lets cells read them."
    )


def _check_not_credential(policy: SandboxPolicy, fd: int, path: Path, verb: str) -> None:
    """Refuse (closing ``fd``) when the file open as ``fd`` is one of the policy's credentials
    under another name (a hard link, a bind mount): its ``(st_dev, st_ino)`` is checked against
    theirs as they are now."""
    if not policy.credentials:
        return
    info = os.fstat(fd)
    if (info.st_dev, info.st_ino) in credential_identities(policy.credentials):
        os.close(fd)
        raise WriteRefused(_credential_refusal(path, verb))


def _connection_file_refusal(path: Path, verb: str) -> str:
    return (
        f"{str(path)!r} cannot be {verb}: it is a Jupyter connection file, whose key lets anyone holding it "
        "run code in that kernel."
    )


def _check_reached(policy: SandboxPolicy, folder: int, *names: str) -> None:
    """Refuse unless ``policy`` lets cells write ``names`` under what ``folder`` really is."""
    reached = _fd_path(folder).joinpath(*names)
    if not policy.can_write(reached):
        raise WriteRefused(_refusal(policy, reached))


def _open_folder(policy: SandboxPolicy, target: Path) -> int:
    """A descriptor of ``target``'s folder, made if missing, one part at a time relative to the
    nearest existing ancestor and never through a symlink; checked against ``policy`` once the
    ancestor is open and again once the folder is (the path may have changed since it was
    resolved)."""
    existing, missing = target.parent, []
    while not os.path.lexists(existing):
        missing.append(existing.name)
        existing = existing.parent
    folder = os.open(existing, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _check_reached(policy, folder, *reversed(missing), target.name)
        for name in reversed(missing):
            try:
                os.mkdir(name, 0o777, dir_fd=folder)
            except FileExistsError:
                pass
            inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        if missing:
            _check_reached(policy, folder, target.name)
    except BaseException:
        os.close(folder)
        raise
    return folder


_NOT_REGULAR = "{target!r} is not a regular file (a pipe, device or socket); it was not written."


def _holds_connection_file(fd: int) -> bool:
    """True when the regular file open (for writing) as ``fd`` is a connection file now: its
    beginning is read through a second descriptor of the same file (``/proc/self/fd``). A file
    this process cannot read is not one it could leak."""
    try:
        reader = os.open(f"/proc/self/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return is_connection_file(os.read(reader, MAX_CONNECTION_FILE_BYTES))
    finally:
        os.close(reader)


def write_checked(policy: SandboxPolicy, path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` (relative paths are relative to the working directory),
    creating missing parent folders, if ``policy`` allows it; returns the path written.
    Only a regular file is written (never a pipe or a device). Raises :class:`WriteRefused`,
    or ``OSError`` for the file system's own refusals."""
    target = _resolved(path)
    if not policy.can_write(target):
        raise WriteRefused(_refusal(policy, target))
    if os.path.exists(target) and not os.path.isfile(target):
        raise WriteRefused(_NOT_REGULAR.format(target=str(target)))
    folder = _open_folder(policy, target)
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
        fd = os.open(target.name, flags, 0o666, dir_fd=folder)
    finally:
        os.close(folder)
    _check_not_credential(policy, fd, target, "written")
    with os.fdopen(fd, "wb") as out:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise WriteRefused(_NOT_REGULAR.format(target=str(target)))
        if _holds_connection_file(fd):
            raise WriteRefused(_connection_file_refusal(target, "written"))
        os.ftruncate(fd, 0)
        out.write(data)
    return target


def check_writable(policy: SandboxPolicy, path: Path) -> Path:
    """``path`` resolved (:func:`_resolved`) when ``policy`` lets cells write (or delete) it;
    :class:`WriteRefused` otherwise. A check made before several writes, so that none is made
    when one would be refused; each write checks again."""
    target = _resolved(path)
    if not policy.can_write(target):
        raise WriteRefused(_refusal(policy, target))
    return target


def delete_checked(policy: SandboxPolicy, path: Path) -> Path:
    """Remove the file ``path`` (a symlink is removed, not followed) if ``policy`` lets cells
    write it; returns the path removed. The removal goes through a descriptor of the checked
    folder, as :func:`write_checked`'s writes do. Raises :class:`WriteRefused`, or ``OSError``
    (``IsADirectoryError`` for a folder)."""
    absolute = Path(os.path.abspath(Path.cwd() / path.expanduser()))
    target = Path(os.path.realpath(absolute.parent)) / absolute.name
    if not policy.can_write(target):
        raise WriteRefused(_refusal(policy, target))
    folder = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _check_reached(policy, folder, target.name)
        if stat.S_ISDIR(os.stat(target.name, dir_fd=folder, follow_symlinks=False).st_mode):
            raise IsADirectoryError(21, "Is a directory")
        os.unlink(target.name, dir_fd=folder)
    finally:
        os.close(folder)
    return target


MAX_READ_BYTES = 8 * 1024 * 1024
"""Largest file ``read_file`` returns: what a tool result may hold in the worst case (every
byte written as a six-character JSON escape still fits one 64 MiB host protocol frame)."""


PROC = Path("/proc")
"""The kernel's own /proc: its environment (the credentials commands never see), its memory,
the kernel log. Commands have a /proc of their own; the file tools stay out of this one."""


def out_of_reach(policy: SandboxPolicy, path: Path, verb: str = "read") -> str | None:
    """Why cells may not read (or list: ``verb``) ``path`` (absolute, resolved), or None:
    Jupyter's runtime files, the credentials, and the kernel's /proc."""
    hidden = _hidden_refusal(policy, path, verb)
    if hidden is not None:
        return hidden
    if path.is_relative_to(PROC):
        return f"{str(path)!r} cannot be {verb}: the kernel's /proc is out of cells' reach (exec_command has its own)."
    return None


def opened_within_reach(policy: SandboxPolicy, path: Path, flags: int, verb: str = "read") -> int:
    """A descriptor of ``path`` opened with ``flags``, once both the path and what was really
    opened (a symlink may have been swapped in meanwhile; a hard link or a mount of a
    credential) are within cells' reach. Raises
    :class:`WriteRefused` or ``OSError``."""
    target = _resolved(path)
    refusal = out_of_reach(policy, target, verb)
    if refusal is not None:
        raise WriteRefused(refusal)
    fd = os.open(target, flags)
    reached = _fd_path(fd)
    refusal = out_of_reach(policy, reached, verb)
    if refusal is not None:
        os.close(fd)
        raise WriteRefused(refusal)
    _check_not_credential(policy, fd, reached, verb)
    return fd


def read_checked(policy: SandboxPolicy, path: Path) -> bytes:
    """The bytes of the regular file ``path``, if cells may read it (:func:`out_of_reach`) and
    it is no connection file.
    Never blocks on a pipe and never reads more than :data:`MAX_READ_BYTES`. Raises
    :class:`WriteRefused` (a refusal, whatever the operation) or ``OSError``."""
    fd = opened_within_reach(policy, path, os.O_RDONLY | os.O_NONBLOCK)
    target = _fd_path(fd)
    with os.fdopen(fd, "rb") as source:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(21, "Is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise WriteRefused(
                f"{str(target)!r} is not a regular file (a pipe, device or socket); read it with exec_command."
            )
        data = source.read(MAX_READ_BYTES + 1)
    if is_connection_file(data):
        raise WriteRefused(_connection_file_refusal(target, "read"))
    if len(data) > MAX_READ_BYTES:
        raise WriteRefused(
            f"{str(target)!r} is larger than {MAX_READ_BYTES // (1024 * 1024)} MiB; read part of it with "
            "exec_command (head, tail, sed -n)."
        )
    return data
