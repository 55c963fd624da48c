"""The ``[mcp_servers.NAME]`` tables, with the keys of Codex's ``config.toml``."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode.config.checks import Reporter, described, path_problem, string_list, string_table

DEFAULT_STARTUP_TIMEOUT_SEC = 10.0
"""Codex's default MCP server start-up timeout, in seconds."""
DEFAULT_TOOL_TIMEOUT_SEC = 60.0
"""Codex's default MCP tool-call timeout, in seconds."""
MAX_STARTUP_TIMEOUT_SEC = 600.0
"""The longest ``startup_timeout_sec`` accepted, in seconds (larger values are reported and
clamped to it). Codex sets no bound; here a cell that calls a server's tools, ``%tools`` and
completion of ``tools.`` wait for a server still starting, and a typo such as ``1e9`` would
leave them waiting for 30 years."""
MAX_TOOL_TIMEOUT_SEC = 86400.0
"""The longest ``tool_timeout_sec`` accepted, in seconds (larger values, ``inf`` included, are
reported and clamped to it, as for ``startup_timeout_sec``). No bound for a tool call exists
elsewhere (Codex sets none; ``MAX_STARTUP_TIMEOUT_SEC`` is too short for a tool that builds or
crawls for an hour): one day is far beyond any tool call a cell waits for, and a value past it
is a typo (``1e300``, ``inf``) that would only turn "did not answer within" into never."""
MAX_SECONDS = {"startup_timeout_sec": MAX_STARTUP_TIMEOUT_SEC, "tool_timeout_sec": MAX_TOOL_TIMEOUT_SEC}
"""The bound of each ``seconds`` key."""


@dataclass
class McpServerConfig:
    """One ``[mcp_servers.NAME]`` table (Codex's keys).

    Exactly one transport: ``command`` (+ ``args``, ``env``, ``cwd``) for stdio, or ``url``
    (+ ``bearer_token_env_var``, ``http_headers``) for streamable HTTP. Timeouts in seconds.
    Once loaded from a file (:func:`resolve_paths`), ``cwd`` is absolute and so are the
    relative paths of ``command`` and ``args`` that mean the config file's folder.
    ``enabled_tools`` is an optional allow-list; ``disabled_tools`` a deny-list (raw MCP names).
    """

    name: str
    command: str | None = None
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    bearer_token_env_var: str | None = None
    http_headers: dict[str, str] = field(default_factory=dict)
    startup_timeout_sec: float = DEFAULT_STARTUP_TIMEOUT_SEC
    tool_timeout_sec: float = DEFAULT_TOOL_TIMEOUT_SEC
    enabled: bool = True
    enabled_tools: list[str] | None = None
    disabled_tools: list[str] = field(default_factory=list)

    @property
    def transport(self) -> str:
        """``"stdio"`` or ``"http"``."""
        return "http" if self.url else "stdio"


_SERVER_KEYS = {
    "command": "string",
    "args": "string list",
    "env": "string table",
    "cwd": "string",
    "url": "string",
    "bearer_token_env_var": "string",
    "http_headers": "string table",
    "startup_timeout_sec": "seconds",
    "tool_timeout_sec": "seconds",
    "enabled": "boolean",
    "enabled_tools": "string list",
    "disabled_tools": "string list",
}
_CHECKS: dict[str, tuple[Callable[[Any], bool], str, tuple[type, ...]]] = {
    "string": (lambda v: isinstance(v, str), "a string", ()),
    "string list": (string_list, "an array of strings", ()),
    "string table": (string_table, "a table of strings", ()),
    "seconds": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0,
        "a positive number of seconds",
        (int, float),
    ),
    "boolean": (lambda v: isinstance(v, bool), "true or false", ()),
}
"""Each kind of server setting: its check, what it must be, and the types it takes (whose wrong
values are shown alone, ``not -1``; :func:`~codemode.config.checks.described`)."""


def load_server(name: str, table: Any, report: Reporter) -> McpServerConfig | None:
    prefix = f"mcp_servers.{name}"
    if not isinstance(table, dict):
        report(prefix, f"must be a table, not {described(table)}; the server was skipped.")
        return None
    server = McpServerConfig(name=name)
    for key, value in table.items():
        kind = _SERVER_KEYS.get(key)
        if kind is None:
            report(f"{prefix}.{key}", "is not a known MCP server setting and was ignored.")
            continue
        check, wanted, kinds = _CHECKS[kind]
        if not check(value):
            report(f"{prefix}.{key}", f"must be {wanted}, not {described(value, kinds)}; the setting was ignored.")
            continue
        bound = MAX_SECONDS.get(key)
        if bound is not None and value > bound:
            report(f"{prefix}.{key}", f"{value:g} s is more than the {bound:g} s allowed; {bound:g} s is used.")
            value = bound
        problem = path_problem(value) if key in ("command", "cwd") else None
        if problem is not None:
            report(f"{prefix}.{key}", f"{problem}. The server was skipped.")
            return None
        setattr(server, key, float(value) if kind == "seconds" else value)
    if server.command and server.url:
        report(prefix, "sets both `command` and `url`; give exactly one transport. The server was skipped.")
        return None
    if not server.command and not server.url:
        report(prefix, "needs `command` (stdio) or `url` (streamable HTTP). The server was skipped.")
        return None
    return server


def relative_path(word: str) -> bool:
    """Whether a word of a command line is spelled as a relative path: ``.``, ``..`` or a word
    starting with ``./`` or ``../``. Only these are taken as paths: ``UTC``, ``stdio``,
    ``@scope/package`` or ``owner/repo`` are passed on as they are."""
    return word in (".", "..") or word.startswith(("./", "../"))


def resolve_paths(server: McpServerConfig, base: Path) -> None:
    """Make ``server``'s paths absolute, for a config file in the folder ``base``.

    ``cwd`` is resolved against ``base``. Without a ``cwd`` the server does not run in the
    config file's folder when cells can write it (:func:`codemode.tools.mcp_stdio.server_folder`),
    so a relative ``command`` with a ``/`` in it (``bin/server``) and the ``args`` spelled as
    relative paths (:func:`relative_path`, ``../.npm-tools/server.js``) are resolved against
    ``base`` here: they keep naming what they named beside the file. With a ``cwd``, a
    relative ``command`` is resolved against it (as ``execve`` in that folder would) and the
    ``args`` are the server's own business, as in Codex (``McpServerTransportConfig::Stdio``'s
    ``cwd``, ``codex-rs/core/src/config/types.rs``).
    """
    if server.cwd is not None:
        server.cwd = os.path.normpath(base / Path(server.cwd).expanduser())
    folder = Path(server.cwd) if server.cwd is not None else base
    if server.command and os.sep in server.command and not os.path.isabs(server.command):
        server.command = os.path.normpath(folder / server.command)
    if server.cwd is None:
        server.args = [os.path.normpath(base / arg) if relative_path(arg) else arg for arg in server.args]
