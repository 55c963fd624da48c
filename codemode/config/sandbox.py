"""The sandbox keys, spelled and defaulted as in Codex's ``config.toml``, so that a Codex user's
settings mean the same here.

Top-level keys: ``sandbox_mode`` (``"read-only"``, ``"workspace-write"``,
``"danger-full-access"``; default ``"workspace-write"``), ``approval_policy``
(``"untrusted"``, ``"on-request"``, ``"on-failure"``, ``"never"``; default ``"on-request"``)
and codemode's own ``hide_credentials`` (default true: ``~/.ssh``, ``~/.aws`` and the other
credentials are out of cells' reach; Codex has no such key and lets commands read them).
Tables: ``[sandbox_workspace_write]`` (``writable_roots``, ``network_access``,
``exclude_tmpdir_env_var``, ``exclude_slash_tmp``; read only in ``workspace-write`` mode, as
in Codex) and ``[shell_environment_policy]`` (``inherit``, ``ignore_default_excludes``,
``exclude``, ``include_only``, ``set``). What each value allows is enforced by
:mod:`codemode.sandbox`; this module only reads and checks the values.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode.config.checks import Reporter, described, path_problem, string_list, string_table

SANDBOX_MODES = ("read-only", "workspace-write", "danger-full-access")
"""Values of ``sandbox_mode``, from most to least restricted."""

APPROVAL_POLICIES = ("untrusted", "on-request", "on-failure", "never")
"""Values of ``approval_policy``."""

ENVIRONMENT_INHERIT = ("all", "core", "none")
"""Values of ``[shell_environment_policy] inherit``."""


@dataclass
class ShellEnvironmentPolicy:
    """``[shell_environment_policy]``: which environment variables a command gets.

    ``inherit``: start from all of the kernel's variables, the core ones (``HOME``, ``PATH``,
    ...) or none; ``ignore_default_excludes``: keep names matching ``*KEY*``, ``*SECRET*``,
    ``*TOKEN*`` (removed by default); ``exclude``: more name patterns to remove;
    ``set``: variables to set (after the removals); ``include_only``: when not empty, keep only
    names matching one of these patterns. Patterns are shell-style globs, matched without
    regard to case.
    """

    inherit: str = "all"
    ignore_default_excludes: bool = False
    exclude: list[str] = field(default_factory=list)
    include_only: list[str] = field(default_factory=list)
    set: dict[str, str] = field(default_factory=dict)


@dataclass
class SandboxSettings:
    """What ``exec_command`` and the file built-ins may do, and when a person is asked.

    ``writable_roots`` are absolute paths (relative entries were resolved against the config
    file's folder); the workspace itself (the kernel's working directory) is always one in
    ``workspace-write`` mode and is not listed here.
    """

    sandbox_mode: str = "workspace-write"
    approval_policy: str = "on-request"
    writable_roots: list[str] = field(default_factory=list)
    network_access: bool = False
    exclude_tmpdir_env_var: bool = False
    exclude_slash_tmp: bool = False
    hide_credentials: bool = True
    shell_environment: ShellEnvironmentPolicy = field(default_factory=ShellEnvironmentPolicy)


FAIL_CLOSED = SandboxSettings(sandbox_mode="read-only", approval_policy="never")
"""What a ``sandbox_mode`` or ``approval_policy`` that cannot be read falls back to, and the whole
sandbox when the config file cannot be read: the most restrictive values, not the defaults,
since the user meant to set something (a typo of ``"read-only"`` must not allow writes)."""

SANDBOX_KEYS = (
    "sandbox_mode",
    "approval_policy",
    "hide_credentials",
    "sandbox_workspace_write",
    "shell_environment_policy",
)
"""The top-level keys this module reads."""


def _choice(key: str, value: Any, allowed: tuple[str, ...], default: str, report: Reporter) -> str:
    if value in allowed:
        return str(value)
    choices = ", ".join(f'"{a}"' for a in allowed)
    report(key, f'must be one of {choices}, not {described(value, (str,))}; "{default}" is used.')
    return default


def _boolean(key: str, value: Any, default: bool, report: Reporter) -> bool:
    if isinstance(value, bool):
        return value
    report(key, f"must be true or false, not {described(value)}; {str(default).lower()} is used.")
    return default


def _entries(table: Any, section: str, report: Reporter) -> list[tuple[str, str, Any]]:
    """``(key, "section.key", value)`` for each entry of a table (none, reported, when ``table``
    is not a table)."""
    if not isinstance(table, dict):
        report(section, f"must be a table, not {described(table)}; the defaults are used.")
        return []
    return [(key, f"{section}.{key}", value) for key, value in table.items()]


def _workspace_write(table: Any, settings: SandboxSettings, base: Path | None, report: Reporter) -> None:
    for key, name, value in _entries(table, "sandbox_workspace_write", report):
        if key == "writable_roots":
            if not isinstance(value, list):
                report(name, f"must be an array of paths (strings), not {described(value)}; it was ignored.")
                continue
            if not string_list(value):
                index, bad = next((i, v) for i, v in enumerate(value) if not isinstance(v, str))
                report(f"{name}[{index}]", f"must be a path (a string), not {described(bad)}; the setting was ignored.")
                continue
            problems = [(i, problem) for i, entry in enumerate(value) if (problem := path_problem(entry))]
            if problems:
                index, problem = problems[0]
                report(f"{name}[{index}]", f"{problem}; the setting was ignored.")
                continue
            roots = []
            for entry in value:
                path = Path(entry).expanduser()
                if not path.is_absolute():
                    path = (base or Path.cwd()) / path
                roots.append(str(path))
            settings.writable_roots = roots
        elif key in ("network_access", "exclude_tmpdir_env_var", "exclude_slash_tmp"):
            setattr(settings, key, _boolean(name, value, getattr(settings, key), report))
        else:
            report(name, "is not a known setting and was ignored.")


def _environment(table: Any, policy: ShellEnvironmentPolicy, report: Reporter) -> None:
    for key, name, value in _entries(table, "shell_environment_policy", report):
        if key == "inherit":
            policy.inherit = _choice(name, value, ENVIRONMENT_INHERIT, policy.inherit, report)
        elif key == "ignore_default_excludes":
            policy.ignore_default_excludes = _boolean(name, value, policy.ignore_default_excludes, report)
        elif key in ("exclude", "include_only"):
            if string_list(value):
                setattr(policy, key, list(value))
            elif isinstance(value, list):
                index, bad = next((i, v) for i, v in enumerate(value) if not isinstance(v, str))
                report(
                    f"{name}[{index}]",
                    f"must be a name pattern (a string), not {described(bad)}; the setting was ignored.",
                )
            else:
                report(name, f"must be an array of name patterns (strings), not {described(value)}; it was ignored.")
        elif key == "set":
            unusable = [k for k, v in value.items() if "=" in k or "\0" in k + v] if string_table(value) else []
            if unusable:
                report(
                    f"{name}.{unusable[0]}",
                    "cannot be an environment variable (a name with '=' or a NUL character, or a value with a "
                    "NUL character); the setting was ignored.",
                )
            elif string_table(value):
                policy.set = dict(value)
            elif isinstance(value, dict):
                bad_key, bad = next((k, v) for k, v in value.items() if not isinstance(v, str))
                report(f"{name}.{bad_key}", f"must be a string, not {described(bad)}; the setting was ignored.")
            else:
                report(name, f"must be a table of strings, not {described(value)}; it was ignored.")
        else:
            report(name, "is not a known setting and was ignored.")


def load_sandbox_key(settings: SandboxSettings, key: str, value: Any, base: Path | None, report: Reporter) -> None:
    """Apply one top-level ``key`` of :data:`SANDBOX_KEYS` to ``settings``; problems are
    reported and leave the default in place. ``base`` is the config file's folder."""
    if key == "sandbox_mode":
        settings.sandbox_mode = _choice(key, value, SANDBOX_MODES, FAIL_CLOSED.sandbox_mode, report)
    elif key == "approval_policy":
        settings.approval_policy = _choice(key, value, APPROVAL_POLICIES, FAIL_CLOSED.approval_policy, report)
    elif key == "hide_credentials":
        settings.hide_credentials = _boolean(key, value, settings.hide_credentials, report)
    elif key == "sandbox_workspace_write":
        _workspace_write(value, settings, base, report)
    elif key == "shell_environment_policy":
        _environment(value, settings.shell_environment, report)


def misspelled_sandbox_key(key: str) -> str | None:
    """The sandbox key an unknown top-level ``key`` was probably meant to be (``sandbox-mode``,
    ``Sandbox_Mode``, ``sandboxmode``, ``approval-policy``), or None."""
    normal = key.strip().lower().replace("-", "_").replace(" ", "_")
    if normal in SANDBOX_KEYS:
        return normal
    if normal in ("sandbox", "sandboxing", "mode"):  # a [sandbox] table with a mode in it
        return "sandbox_mode"
    close = difflib.get_close_matches(normal, SANDBOX_KEYS, n=1, cutoff=0.75)
    return close[0] if close else None
