"""Loading ``codemode.toml``: session defaults, sandbox and approvals, tool switches, MCP servers,
Python tools, the recording of tool calls.

Search order: ``$CODEMODE_CONFIG``, ``./codemode.toml``, ``~/.config/codemode/config.toml``
(:func:`find_config_path`); the ``[mcp_servers.NAME]`` keys are those of
Codex's ``config.toml`` so a Codex user can paste their servers. Problems never stop loading:
each becomes one sentence ``"<file>: <key>: <problem>"`` in :attr:`Config.errors`, and every
valid part still loads; the kernel shows the sentences once.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from codemode.config.checks import Reporter, described, module_name_problem, string_list_table
from codemode.config.recording import RecordingSettings, load_recording
from codemode.config.sandbox import (
    APPROVAL_POLICIES,
    FAIL_CLOSED,
    SANDBOX_KEYS,
    SANDBOX_MODES,
    SandboxSettings,
    ShellEnvironmentPolicy,
    load_sandbox_key,
    misspelled_sandbox_key,
)
from codemode.config.servers import (
    DEFAULT_STARTUP_TIMEOUT_SEC,
    DEFAULT_TOOL_TIMEOUT_SEC,
    McpServerConfig,
    load_server,
    resolve_paths,
)
from codemode.config.session_defaults import ENGINES, MIN_HEAP_SIZE_BYTES, PROFILES, SessionDefaults, load_session

CLOSED_SANDBOX = f'sandbox_mode = "{FAIL_CLOSED.sandbox_mode}" and approval_policy = "{FAIL_CLOSED.approval_policy}"'
"""How the fallback sandbox of an unreadable file is named in its problem sentence."""

CONFIG_ENV = "CODEMODE_CONFIG"
"""Environment variable naming the config file to use (it wins over every other place)."""


@dataclass
class Config:
    """The whole configuration.

    ``errors`` holds one sentence per problem found (``"file: key: problem"``), to show once.
    ``source_path`` is the file read, or ``None`` when the built-in defaults are used.
    """

    session: SessionDefaults = field(default_factory=SessionDefaults)
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    disabled_tools: list[str] = field(default_factory=list)
    mcp_servers: dict[str, McpServerConfig] = field(default_factory=dict)
    python_modules: list[str] = field(default_factory=list)
    recording: RecordingSettings = field(default_factory=RecordingSettings)
    errors: list[str] = field(default_factory=list)
    source_path: Path | None = None


def find_config_path(cwd: Path | None = None) -> Path | None:
    """Where the config lives: ``$CODEMODE_CONFIG``, else ``<cwd>/codemode.toml`` (unless it is
    empty), else ``~/.config/codemode/config.toml``; ``None`` when none exists.

    ``$CODEMODE_CONFIG`` is returned even when the file is missing, so the error is reported.
    """
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env).expanduser()
    local = (cwd or Path.cwd()) / "codemode.toml"
    # An empty one is skipped: it is what a sandboxed command's mount point over a missing
    # codemode.toml leaves behind if the kernel is killed meanwhile.
    if local.is_file() and local.stat().st_size > 0:
        return local
    home = Path.home() / ".config" / "codemode" / "config.toml"
    if home.is_file():
        return home
    return None


def parse_config(data: dict[str, Any], source: str = "codemode.toml", base: Path | None = None) -> Config:
    """Build a :class:`Config` from parsed TOML ``data``; ``source`` names the file in errors,
    ``base`` is the folder relative paths are resolved against (default: the working folder).

    Never raises for content problems: they land in ``Config.errors``.
    """
    config = Config()
    report = Reporter(source, config.errors)
    for key, value in data.items():
        if key == "session":
            config.session = load_session(value, report)
        elif key in SANDBOX_KEYS:
            load_sandbox_key(config.sandbox, key, value, base, report)
        elif key == "tools":
            disabled = string_list_table(value, "tools", "disabled", "tool names", report)
            if disabled is not None:
                config.disabled_tools = disabled
        elif key == "mcp_servers":
            if not isinstance(value, dict):
                report("mcp_servers", f"must be a table of servers, not {described(value)}.")
                continue
            for name, table in value.items():
                server = load_server(name, table, report)
                if server is not None:
                    config.mcp_servers[name] = server
        elif key == "python_tools":
            modules = string_list_table(
                value, "python_tools", "modules", "module names", report, problem=module_name_problem
            )
            if modules is not None:
                config.python_modules = modules
        elif key == "recording":
            config.recording = load_recording(value, base, report)
        else:
            meant = misspelled_sandbox_key(key)
            if meant in ("sandbox_mode", "approval_policy") and meant not in data:
                closed = getattr(FAIL_CLOSED, meant)
                setattr(config.sandbox, meant, closed)
                report(
                    key,
                    f'is not a known setting; it looks like `{meant}`, so {meant} = "{closed}" is used until '
                    "it is spelled right.",
                )
            else:
                report(key, "is not a known setting or section and was ignored.")
    return config


def load_config(path: str | os.PathLike | None = None, *, cwd: Path | None = None) -> Config:
    """Read the configuration.

    ``path``: an explicit file; otherwise :func:`find_config_path` decides (``cwd`` is the
    folder searched for ``codemode.toml``, default the process's working directory). A missing
    or unreadable file or invalid TOML gives the defaults plus one error sentence; the function
    itself does not raise.
    """
    resolved = Path(path).expanduser() if path is not None else find_config_path(cwd)
    if resolved is None:
        return Config()
    try:
        raw = resolved.read_bytes()
    except OSError as exc:
        config = Config(source_path=resolved, sandbox=replace(FAIL_CLOSED))
        config.errors.append(
            f"{resolved}: (file): cannot be read ({exc.strerror or exc}); the built-in defaults are used, "
            f"but with {CLOSED_SANDBOX} until the file is fixed."
        )
        return config
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as exc:
        # tomllib reads nested arrays and inline tables recursively: a few hundred levels
        # exhaust Python's recursion limit (RecursionError, not a TOMLDecodeError).
        reason = "arrays or tables nested too deeply to read" if isinstance(exc, RecursionError) else exc
        config = Config(source_path=resolved, sandbox=replace(FAIL_CLOSED))
        config.errors.append(
            f"{resolved}: (file): is not valid TOML ({reason}); the built-in defaults are used, but with "
            f"{CLOSED_SANDBOX} until the file is fixed."
        )
        return config
    config = parse_config(data, str(resolved), resolved.parent)
    config.source_path = resolved
    for server in config.mcp_servers.values():
        resolve_paths(server, Path(os.path.abspath(resolved.parent)))
    return config


__all__ = [
    "APPROVAL_POLICIES",
    "CONFIG_ENV",
    "DEFAULT_STARTUP_TIMEOUT_SEC",
    "DEFAULT_TOOL_TIMEOUT_SEC",
    "MIN_HEAP_SIZE_BYTES",
    "SANDBOX_MODES",
    "Config",
    "McpServerConfig",
    "RecordingSettings",
    "SandboxSettings",
    "SessionDefaults",
    "ENGINES",
    "PROFILES",
    "ShellEnvironmentPolicy",
    "find_config_path",
    "load_config",
    "parse_config",
]
