"""The environment a command gets: Codex's ``[shell_environment_policy]``.

The steps, in Codex's order (``codex-rs/core/src/exec_env.rs``, ``populate_env``):

1. start from the kernel's variables: all of them (``inherit = "all"``, the default), only the
   core ones (:data:`CORE_VARIABLES`), or none;
2. unless ``ignore_default_excludes``, remove the names matching :data:`DEFAULT_EXCLUDES`
   (credentials such as ``OPENAI_API_KEY``, ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``);
3. remove the names matching ``exclude``;
4. set the variables of ``set``;
5. when ``include_only`` is not empty, keep only the names matching one of its patterns.

Patterns are shell-style globs (``*``, ``?``, ``[...]``) matched without regard to case.

One default differs from Codex's current one: ``ignore_default_excludes`` is false here, so
credentials are removed unless the configuration keeps them (Codex now keeps them by default).
The command layer then adds ``CODEX_SANDBOX_NETWORK_DISABLED=1`` when the command has no
network, as Codex does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase

from codemode.config import ShellEnvironmentPolicy

CORE_VARIABLES = ("PATH", "SHELL", "TMPDIR", "TEMP", "TMP", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "LOGNAME", "USER")
"""What ``inherit = "core"`` keeps (Codex's Unix list), names compared without regard to case."""

DEFAULT_EXCLUDES = ("*KEY*", "*SECRET*", "*TOKEN*")
"""Name patterns removed unless ``ignore_default_excludes = true`` (Codex's list)."""


def _matches(name: str, patterns: Iterable[str]) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, pattern.upper()) for pattern in patterns)


def command_environment(policy: ShellEnvironmentPolicy, inherited: Mapping[str, str]) -> dict[str, str]:
    """The variables for a command under ``policy``, from the kernel's ``inherited`` ones
    (usually ``os.environ``). Returns a new dict; ``inherited`` is not changed."""
    if policy.inherit == "all":
        env = dict(inherited)
    elif policy.inherit == "core":
        env = {name: value for name, value in inherited.items() if name.upper() in CORE_VARIABLES}
    else:
        env = {}
    if not policy.ignore_default_excludes:
        env = {name: value for name, value in env.items() if not _matches(name, DEFAULT_EXCLUDES)}
    if policy.exclude:
        env = {name: value for name, value in env.items() if not _matches(name, policy.exclude)}
    env.update(policy.set)
    if policy.include_only:
        env = {name: value for name, value in env.items() if _matches(name, policy.include_only)}
    return env
