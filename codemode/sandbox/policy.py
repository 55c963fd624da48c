"""Where a sandboxed command or a file built-in may write: Codex's ``SandboxPolicy``.

- ``read-only``: nothing is writable; the whole file system is readable.
- ``workspace-write``: the workspace (the kernel's working directory, the notebook's folder),
  the ``writable_roots`` of ``[sandbox_workspace_write]``, ``/tmp`` (unless
  ``exclude_slash_tmp``) and ``$TMPDIR`` (unless ``exclude_tmpdir_env_var``) are writable, in
  that order, as in Codex's ``SandboxPolicy::get_writable_roots_with_cwd``
  (``codex-rs/protocol/src/protocol.rs``). Inside each writable root, the paths of
  :data:`PROTECTED_NAMES` that exist stay read-only; for a ``.git`` *file* (a worktree's
  ``gitdir: PATH`` pointer) the git directory it points to is protected too. A root that does
  not exist is left out.
- ``danger-full-access``: no restriction at all, and commands run outside any sandbox.

Network: commands reach the network only under ``danger-full-access`` or with
``network_access = true`` (Codex's ``has_full_network_access``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..config import SandboxSettings

PROTECTED_NAMES = (".git", ".codex", ".agents")
"""Names kept read-only at the top of every writable root, when they exist (Codex's list)."""


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


@dataclass(frozen=True)
class SandboxPolicy:
    """The resolved policy for one kernel: ``mode`` (a ``sandbox_mode`` value), ``workspace``
    (absolute, resolved), the extra ``roots`` (resolved; ``/tmp`` and ``$TMPDIR`` included
    unless excluded), and ``network_access``."""

    mode: str
    workspace: Path
    roots: tuple[Path, ...] = ()
    network_access: bool = False

    @classmethod
    def from_settings(
        cls, settings: SandboxSettings, workspace: Path, environ: Mapping[str, str] | None = None
    ) -> SandboxPolicy:
        """The policy ``settings`` describe for ``workspace``; ``environ`` (default
        ``os.environ``) supplies ``TMPDIR``."""
        environ = os.environ if environ is None else environ
        roots: list[Path] = []
        if settings.sandbox_mode == "workspace-write":
            candidates = [Path(p) for p in settings.writable_roots]
            if not settings.exclude_slash_tmp:
                candidates.append(Path("/tmp"))
            tmpdir = environ.get("TMPDIR", "")
            if not settings.exclude_tmpdir_env_var and tmpdir and os.path.isabs(tmpdir):
                candidates.append(Path(tmpdir))
            roots = [path.resolve() for path in candidates]
        network = settings.sandbox_mode == "danger-full-access" or (
            settings.sandbox_mode == "workspace-write" and settings.network_access
        )
        return cls(settings.sandbox_mode, workspace.resolve(), tuple(dict.fromkeys(roots)), network)

    @property
    def unrestricted(self) -> bool:
        """True for ``danger-full-access``: commands run with no sandbox."""
        return self.mode == "danger-full-access"

    def writable_roots(self) -> list[WritableRoot]:
        """The writable roots that exist, each with its protected paths, workspace first."""
        if self.mode != "workspace-write":
            return []
        roots: list[WritableRoot] = []
        for root in dict.fromkeys((self.workspace, *self.roots)):
            if root.is_dir():
                roots.append(WritableRoot(root, protected_paths(root)))
        return roots

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
        return any(root.allows(path) for root in roots)

    def summary(self) -> list[str]:
        """Lines describing the policy, for ``%config`` and the README's examples."""
        lines = [f'sandbox_mode = "{self.mode}"']
        if self.unrestricted:
            lines.append("  commands run without a sandbox; files can be written anywhere; network allowed")
            return lines
        roots = self.writable_roots()
        if roots:
            lines.append("  writable: " + ", ".join(str(r.root) for r in roots))
            protected = [str(p) for r in roots for p in r.read_only]
            if protected:
                lines.append("  read-only inside them: " + ", ".join(protected))
        else:
            lines.append("  writable: nothing")
        lines.append("  network: " + ("allowed" if self.network_access else "blocked"))
        return lines
