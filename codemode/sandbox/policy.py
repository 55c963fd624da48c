"""Where a sandboxed command or a file built-in may write: Codex's ``SandboxPolicy``.

- ``read-only``: nothing is writable; the whole file system is readable.
- ``workspace-write``: the workspace (the kernel's working directory, the notebook's folder),
  the ``writable_roots`` of ``[sandbox_workspace_write]``, ``/tmp`` (unless
  ``exclude_slash_tmp``) and ``$TMPDIR`` (unless ``exclude_tmpdir_env_var``) are writable, in
  that order, as in Codex's ``SandboxPolicy::get_writable_roots_with_cwd``
  (``codex-rs/protocol/src/protocol.rs``). Inside each writable root, the paths of
  :data:`PROTECTED_NAMES` that exist stay read-only; for a ``.git`` *file* (a worktree's
  ``gitdir: PATH`` pointer) the git directory it points to is protected too. So do the
  ``extra_protected`` paths inside a root: what runs by itself when the kernel or its runtime
  host starts (the config file, the Python tool modules, the kernel's own Python environment),
  so that a cell cannot leave code behind for the next start. The workspace's
  ``codemode.toml`` and the ``extra_protected`` paths that do not exist yet (a server's program
  not installed yet, a module a tool's ``try: import x`` did not find) are protected even before
  they exist (:meth:`SandboxPolicy.masked`): a cell must not create what the next kernel start
  would run. A root that does not exist is left out.
- ``danger-full-access``: no restriction at all, and commands run outside any sandbox.

Network: commands reach the network only under ``danger-full-access`` or with
``network_access = true`` (Codex's ``has_full_network_access``).

Out of reach for reading and writing (beyond Codex, which lets its sandboxed commands read
them): the ``hidden`` paths (Jupyter's runtime folder, the kernel's connection file and
history), the ``credentials`` of :data:`~codemode.sandbox.secrets.CREDENTIALS` unless
``hide_credentials = false`` (not in ``danger-full-access``), and every Jupyter connection file
at the top of the ``watched`` folders (:meth:`SandboxPolicy.hidden_now`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from codemode.config import SandboxSettings
from codemode.sandbox.secrets import CREDENTIALS, connection_files, credential_paths

PROTECTED_NAMES = (".git", ".codex", ".agents", "codemode.toml")
"""Names kept read-only at the top of every writable root, when they exist: Codex's list, and
codemode's own config file."""

CONFIG_NAME = "codemode.toml"
"""The config file a kernel started in the workspace reads; protected there even when missing."""


@dataclass(frozen=True)
class WritableRoot:
    """A folder the sandbox may write under (``root``), minus the ``read_only`` paths in it."""

    root: Path
    read_only: tuple[Path, ...] = ()

    def allows(self, path: Path) -> bool:
        """True when ``path`` (absolute, already resolved) is under ``root`` and under none of
        the ``read_only`` paths."""
        if not path.is_relative_to(self.root):
            return False
        return not any(path.is_relative_to(protected) for protected in self.read_only)


def _git_pointer_target(dot_git: Path) -> Path | None:
    """The git directory a ``.git`` file names (``gitdir: PATH``, relative to the file's
    folder), when it exists."""
    try:
        text = dot_git.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    key, _, value = text.partition(":")
    if key.strip() != "gitdir" or not value.strip():
        return None
    target = (dot_git.parent / value.strip()).resolve()
    return target if target.exists() else None


def protected_paths(root: Path) -> tuple[Path, ...]:
    """The read-only paths inside writable ``root`` right now (they are looked up each time:
    a ``.git`` made since the last command is protected from then on)."""
    found: list[Path] = []
    for name in PROTECTED_NAMES:
        path = root / name
        if not os.path.lexists(path):
            continue
        found.append(path)
        if path.is_symlink() and path.exists():
            found.append(path.resolve())  # what a write through the link would reach
        if name == ".git" and path.is_file():
            target = _git_pointer_target(path)
            if target is not None:
                found.append(target)
    return tuple(found)


def _guard(path: Path) -> Path | None:
    """What keeps the missing ``path`` (absolute) from being created: its first missing
    component (``bin`` for ``bin/server`` when ``bin/`` is missing too), or the existing
    ancestor that is not a folder (a file ``bin``: replaced by a folder, ``bin/server`` could be
    made). None when an existing ancestor is reached through a symlink (its resolved spelling
    is protected too: :func:`_both`)."""
    missing = path
    while not os.path.lexists(missing.parent):
        missing = missing.parent
    parent = missing.parent
    if os.path.realpath(parent) != str(parent):
        return None
    return missing if parent.is_dir() else parent


def _both(old: tuple[Path, ...], new: tuple[Path, ...]) -> tuple[Path, ...]:
    """``old`` and each of ``new`` as given (made absolute) and resolved, without repeats."""
    spelled = (q for p in new for q in (Path(os.path.abspath(p)), Path(os.path.realpath(p))))
    return tuple(dict.fromkeys((*old, *spelled)))


@dataclass(frozen=True)
class SandboxPolicy:
    """The resolved policy for one kernel: ``mode`` (a ``sandbox_mode`` value), ``workspace``
    (absolute, resolved), the ``configured_roots`` (resolved; ``/tmp`` and ``$TMPDIR``
    included unless excluded), of which :attr:`roots` are writable (in ``workspace-write``
    mode only), ``network_access``, ``extra_protected`` (absolute paths kept read-only
    where they lie in a writable root) and ``hidden`` (absolute paths a sandboxed command cannot
    read at all: the Jupyter connection files, whose keys sign requests to kernels),
    ``credentials`` (hidden likewise: ``~/.ssh``, ``~/.aws``, ...; as given and resolved) and
    ``watched`` (folders whose connection files each command finds hidden: the temporary
    folders, the writable roots)."""

    mode: str
    workspace: Path
    configured_roots: tuple[Path, ...] = ()
    network_access: bool = False
    extra_protected: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()
    credentials: tuple[Path, ...] = ()
    watched: tuple[Path, ...] = ()

    @classmethod
    def from_settings(
        cls, settings: SandboxSettings, workspace: Path, environ: Mapping[str, str] | None = None
    ) -> SandboxPolicy:
        """The policy ``settings`` describe for ``workspace``; ``environ`` (default
        ``os.environ``) supplies ``TMPDIR`` and ``HOME`` (the credentials' folder; none without it)."""
        environ = os.environ if environ is None else environ
        candidates = [Path(p) for p in settings.writable_roots]
        if not settings.exclude_slash_tmp:
            candidates.append(Path("/tmp"))
        tmpdir = environ.get("TMPDIR", "")
        if not settings.exclude_tmpdir_env_var and tmpdir and os.path.isabs(tmpdir):
            candidates.append(Path(tmpdir))
        roots = tuple(dict.fromkeys(path.resolve() for path in candidates))
        network = settings.sandbox_mode == "danger-full-access" or (
            settings.sandbox_mode == "workspace-write" and settings.network_access
        )
        home = environ.get("HOME", "")
        credentials: tuple[Path, ...] = ()
        if settings.hide_credentials and settings.sandbox_mode != "danger-full-access" and os.path.isabs(home):
            credentials = _both((), tuple(credential_paths(Path(home))))
        return cls(settings.sandbox_mode, workspace.resolve(), roots, network, credentials=credentials)

    @property
    def roots(self) -> tuple[Path, ...]:
        """The configured roots commands and the file tools may write: all of them in
        ``workspace-write`` mode, none otherwise."""
        return self.configured_roots if self.mode == "workspace-write" else ()

    @property
    def unrestricted(self) -> bool:
        """True for ``danger-full-access``: commands run with no sandbox."""
        return self.mode == "danger-full-access"

    def writable_roots(self) -> list[WritableRoot]:
        """The writable roots that exist, each with its protected paths, workspace first."""
        if self.mode != "workspace-write":
            return []
        roots: list[WritableRoot] = []
        guards = [g for g in self.guards() if os.path.lexists(g)]
        for root in dict.fromkeys((self.workspace, *self.roots)):
            if root.is_dir():
                extra = [p for p in self.extra_protected if p.is_relative_to(root) and os.path.lexists(p)]
                extra += [g for g in guards if g.is_relative_to(root)]
                roots.append(WritableRoot(root, tuple(dict.fromkeys((*protected_paths(root), *extra)))))
        return roots

    def writable_folders(self) -> list[Path]:
        """The workspace and every configured root (``/tmp`` and ``$TMPDIR`` included unless
        excluded), whether or not the mode lets commands write them now (an earlier session's
        may have): no program is taken from them to run a command
        (:func:`~codemode.sandbox.bwrap.find_program`)."""
        return [self.workspace, *self.configured_roots]

    def guards(self) -> list[Path]:
        """What keeps the ``extra_protected`` paths that do not exist yet, and lie in a writable
        root, from being created (:func:`_guard`), and the workspace's ``codemode.toml``; in
        ``workspace-write`` mode only. Worked out at each command: ``bin/`` made by the user
        since narrows the guard of ``bin/server`` from ``bin`` to ``bin/server``."""
        if self.mode != "workspace-write":
            return []
        roots = [root for root in dict.fromkeys((self.workspace, *self.roots)) if root.is_dir()]
        existing = [p for p in self.extra_protected if os.path.lexists(p)]
        existing += [p for root in roots for p in protected_paths(root)]
        found = [self.workspace / CONFIG_NAME]
        for path in self.extra_protected:
            if any(path.is_relative_to(root) for root in roots) and not os.path.lexists(path):
                guard = _guard(path)
                if guard is None or not any(guard.is_relative_to(root) and guard != root for root in roots):
                    continue
                # Inside a read-only path (a program missing from a venv's bin/ in the
                # workspace), nothing can be created anyway, nor a mount point made for a mask.
                if not any(guard.is_relative_to(p) and guard != p for p in existing):
                    found.append(guard)
        return list(dict.fromkeys(found))

    def masked(self) -> list[Path]:
        """Protected paths that do not exist yet and must not be created (:meth:`guards`):
        commands find an empty read-only file there, the file tools refuse them and anything
        under them."""
        return [path for path in self.guards() if not os.path.lexists(path)]

    def unprotectable(self) -> list[Path]:
        """Protected paths that are symlinks inside a writable root: a command could replace the
        link itself, so the sandbox cannot keep them read-only (Codex refuses to run then too)."""
        return [p for root in self.writable_roots() for p in root.read_only if p.is_symlink() and root.allows(p.parent)]

    def with_protection(
        self, protected: tuple[Path, ...] = (), hidden: tuple[Path, ...] = (), watched: tuple[Path, ...] = ()
    ) -> SandboxPolicy:
        """This policy with more ``extra_protected`` and ``hidden`` paths, each both as given
        (made absolute: a link there must not be replaced) and resolved (what a command or a
        file tool reaches through it), and more ``watched`` folders (resolved)."""
        folders = tuple(dict.fromkeys((*self.watched, *(Path(os.path.realpath(p)) for p in watched))))
        return replace(
            self,
            extra_protected=_both(self.extra_protected, protected),
            hidden=_both(self.hidden, hidden),
            watched=folders,
        )

    def hidden_now(self) -> list[Path]:
        """What a command started now must not read or write: the ``hidden`` paths, the
        ``credentials`` and the connection files lying at the top of the ``watched`` folders
        at this moment (one made later is not covered for a command already running)."""
        return list(dict.fromkeys((*self.hidden, *self.credentials, *connection_files(self.watched))))

    def can_write(self, path: Path) -> bool:
        """True when the policy lets a built-in write ``path`` (absolute and resolved: no
        symlink and no ``..`` left in it)."""
        if self.unrestricted:
            return True
        roots = self.writable_roots()
        # A protected path of any root wins over a root that contains it (the workspace's .git
        # stays read-only when the workspace lies under /tmp), as the sandbox's mounts do.
        if any(path.is_relative_to(p) for root in roots for p in root.read_only):
            return False
        if any(path.is_relative_to(p) for p in (*self.masked(), *self.hidden, *self.credentials)):
            return False
        return any(root.allows(path) for root in roots)

    def summary(self) -> list[str]:
        """Lines describing the policy, for ``%config``."""
        lines = [f'sandbox_mode = "{self.mode}"']
        if self.unrestricted:
            lines.append("  commands run without a sandbox; files can be written anywhere; network allowed")
            return lines
        roots = self.writable_roots()
        if roots:
            lines.append("  writable: " + ", ".join(str(r.root) for r in roots))
            protected = list(
                dict.fromkeys([str(p) for r in roots for p in r.read_only] + [str(p) for p in self.masked()])
            )
            if protected:
                lines.append("  read-only inside them: " + ", ".join(protected))
        else:
            lines.append("  writable: nothing")
        if self.hidden:
            lines.append("  hidden from commands: " + ", ".join(str(p) for p in self.hidden))
        if self.credentials:
            shown = ", ".join(f"~/{name}" for name in CREDENTIALS)
            lines.append(f"  credentials hidden (hide_credentials = true): {shown}")
        if self.watched:
            lines.append("  connection files hidden in: " + ", ".join(str(p) for p in self.watched))
        lines.append("  network: " + ("allowed" if self.network_access else "blocked"))
        return lines
