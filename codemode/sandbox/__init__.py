"""The sandbox of the built-in tools, with Codex's configuration keys and meaning.

Code-mode cells are written by models. The JavaScript sandbox gives a cell no file, network
or process access of its own; the built-in tools ``exec_command`` and ``write_file`` do, and this
package bounds them:

- :mod:`~codemode.sandbox.policy`: where writes may go (``sandbox_mode``,
  ``[sandbox_workspace_write]``) and whether commands reach the network;
- :mod:`~codemode.sandbox.bwrap` and :mod:`~codemode.sandbox.seccomp`: the operating system
  enforces that policy on ``exec_command`` (bubblewrap namespaces and mounts, a seccomp
  filter); when it cannot, commands fail closed;
- :mod:`~codemode.sandbox.files`: ``write_file`` checks the resolved path against the policy;
- :mod:`~codemode.sandbox.secrets`: what no cell may read (connection files, credentials);
- :mod:`~codemode.sandbox.environment`: the variables a command gets
  (``[shell_environment_policy]``);
- :mod:`~codemode.sandbox.approvals` and :mod:`~codemode.sandbox.safe_commands`: when a person
  is asked first (``approval_policy``), as Codex decides it, on the commands
  :mod:`~codemode.sandbox.shell_parse` reads out of the script (tree-sitter-bash).

:class:`Sandbox` bundles one kernel's settings with the approvals given for its session.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from codemode.config import SandboxSettings, ShellEnvironmentPolicy
from codemode.sandbox.approvals import SessionApprovals
from codemode.sandbox.policy import SandboxPolicy


@dataclass
class Sandbox:
    """One kernel's sandbox: the resolved ``policy``, the ``approval_policy`` value, the
    ``environment`` policy for commands and the ``approvals`` given "for the session"."""

    policy: SandboxPolicy
    approval_policy: str = "on-request"
    environment: ShellEnvironmentPolicy = field(default_factory=ShellEnvironmentPolicy)
    approvals: SessionApprovals = field(default_factory=SessionApprovals)
    configured_roots: tuple[Path, ...] = ()

    @classmethod
    def from_settings(cls, settings: SandboxSettings, workspace: Path | None = None) -> Sandbox:
        """The sandbox ``settings`` describe, for ``workspace`` (default: the working directory)."""
        policy = SandboxPolicy.from_settings(settings, workspace or Path.cwd())
        roots = tuple(Path(p) for p in settings.writable_roots)
        return cls(policy, settings.approval_policy, settings.shell_environment, configured_roots=roots)

    def protect(
        self, protected: Iterable[Path] = (), hidden: Iterable[Path] = (), watched: Iterable[Path] = ()
    ) -> None:
        """Keep ``protected`` read-only (where they lie in a writable root), ``hidden`` and the
        connection files at the top of the ``watched`` folders out of cells' reach, from now on."""
        self.policy = self.policy.with_protection(tuple(protected), tuple(hidden), tuple(watched))

    def problems(self, source: str) -> list[str]:
        """Configuration problems only the file system shows: writable roots that do not exist
        (they are left out). ``source`` names the config file in the sentences."""
        if self.policy.mode != "workspace-write":
            return []
        return [
            f"{source}: sandbox_workspace_write.writable_roots: {str(root)!r} is not an existing folder, "
            "so it was left out; create it and restart the kernel to make it writable."
            for root in self.configured_roots
            if not root.is_dir()
        ]

    def summary(self) -> list[str]:
        """Lines describing the effective policy (``%config``)."""
        lines = self.policy.summary()
        lines.append(f'approval_policy = "{self.approval_policy}"')
        env = self.environment
        excludes = "kept" if env.ignore_default_excludes else "removed"
        lines.append(f'shell_environment_policy: inherit = "{env.inherit}", *KEY*/*SECRET*/*TOKEN* {excludes}')
        return lines


__all__ = ["Sandbox", "SandboxPolicy"]
