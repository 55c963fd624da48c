"""Loading ``codemode.toml``: session defaults, tool switches, MCP servers, Python tools.

Search order: ``$CODEMODE_CONFIG``, ``./codemode.toml``, ``~/.config/codemode/config.toml``
(:func:`find_config_path`); the ``[mcp_servers.NAME]`` keys are those of
Codex's ``config.toml`` so a Codex user can paste their servers. Problems never stop loading:
each becomes one sentence ``"<file>: <key>: <problem>"`` in :attr:`Config.errors`, and every
valid part still loads; the kernel shows the sentences once.
"""

from __future__ import annotations

import logging
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

CONFIG_ENV = "CODEMODE_CONFIG"
"""Environment variable naming the config file to use (it wins over every other place)."""

DEFAULT_STARTUP_TIMEOUT_SEC = 10.0
"""Codex's default MCP server start-up timeout, in seconds."""
DEFAULT_TOOL_TIMEOUT_SEC = 60.0
"""Codex's default MCP tool-call timeout, in seconds."""


@dataclass
class SessionDefaults:
    """The ``[session]`` table; Codex's defaults unless set (``DEFAULT_EXEC_YIELD_TIME_MS``,
    ``DEFAULT_MAX_OUTPUT_TOKENS_PER_EXEC_CALL``).

    ``yield_time_ms``: default exec yield; ``max_output_tokens``: default output budget;
    ``max_yield_time_ms``: clamp for exec and wait yields (``None`` = no clamp);
    ``max_heap_size_bytes``: per-cell JavaScript heap limit.
    """

    yield_time_ms: int = 10000
    max_output_tokens: int = 10000
    max_yield_time_ms: int | None = 600000
    max_heap_size_bytes: int = 268435456


@dataclass
class McpServerConfig:
    """One ``[mcp_servers.NAME]`` table (Codex's keys).

    Exactly one transport: ``command`` (+ ``args``, ``env``, ``cwd``) for stdio, or ``url``
    (+ ``bearer_token_env_var``, ``http_headers``) for streamable HTTP. Timeouts in seconds.
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


@dataclass
class Config:
    """The whole configuration.

    ``errors`` holds one sentence per problem found (``"file: key: problem"``), to show once.
    ``source_path`` is the file read, or ``None`` when the built-in defaults are used.
    """

    session: SessionDefaults = field(default_factory=SessionDefaults)
    disabled_tools: list[str] = field(default_factory=list)
    mcp_servers: dict[str, McpServerConfig] = field(default_factory=dict)
    python_modules: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    source_path: Path | None = None


def find_config_path(cwd: Path | None = None) -> Path | None:
    """Where the config lives: ``$CODEMODE_CONFIG``, else ``<cwd>/codemode.toml``, else
    ``~/.config/codemode/config.toml``; ``None`` when none exists.

    ``$CODEMODE_CONFIG`` is returned even when the file is missing, so the error is reported.
    """
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env).expanduser()
    local = (cwd or Path.cwd()) / "codemode.toml"
    if local.is_file():
        return local
    home = Path.home() / ".config" / "codemode" / "config.toml"
    if home.is_file():
        return home
    return None


class _Reporter:
    def __init__(self, source: str, errors: list[str]) -> None:
        self.source = source
        self.errors = errors

    def __call__(self, key: str, problem: str) -> None:
        message = f"{self.source}: {key}: {problem}"
        logger.warning("config problem: %s", message)
        self.errors.append(message)


def _type_name(value: Any) -> str:
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        dict: "a table",
    }.get(type(value), type(value).__name__)


def _described(value: Any) -> str:
    """``value`` for a sentence: its kind, with the value itself when it is a scalar
    (``an integer (-1)``, ``a string ('fast')``, ``a table``)."""
    if isinstance(value, (bool, int, float, str)):
        return f"{_type_name(value)} ({value!r})"
    return _type_name(value)


def _non_negative_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _string_table(value: Any) -> bool:
    return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())


MIN_HEAP_SIZE_BYTES = 1024 * 1024
"""Smallest per-cell heap limit accepted from the config, in bytes (a cell's globals alone
need a few hundred KiB)."""


def _string_list_table(value: Any, section: str, key: str, what: str, report: _Reporter) -> list[str] | None:
    """The strings under ``[section] key``, or None when absent or unusable. Reported: a
    section that is not a table, unknown keys, a value that is not an array, and each entry
    that is not a string (the other entries are kept)."""
    if not isinstance(value, dict):
        report(section, f"must be a table, not {_described(value)}.")
        return None
    found = None
    for name, item in value.items():
        if name != key:
            report(f"{section}.{name}", "is not a known setting and was ignored.")
        elif not isinstance(item, list):
            report(f"{section}.{key}", f"must be an array of {what} (strings); it was ignored.")
        else:
            found = [entry for entry in item if isinstance(entry, str)]
            for index, entry in enumerate(item):
                if not isinstance(entry, str):
                    report(f"{section}.{key}[{index}]", f"must be a string, not {_described(entry)}; it was ignored.")
    return found


def _load_session(table: Any, report: _Reporter) -> SessionDefaults:
    defaults = SessionDefaults()
    if not isinstance(table, dict):
        report("session", f"must be a table, not {_described(table)}; the defaults are used.")
        return defaults
    for key, value in table.items():
        name = f"session.{key}"
        if key not in ("yield_time_ms", "max_output_tokens", "max_yield_time_ms", "max_heap_size_bytes"):
            report(name, "is not a known setting and was ignored.")
        elif not _non_negative_int(value):
            report(name, f"must be a non-negative integer, not {_described(value)}; the default is used.")
        elif key == "max_heap_size_bytes" and value < MIN_HEAP_SIZE_BYTES:
            report(
                name,
                f"must be at least {MIN_HEAP_SIZE_BYTES} bytes (1 MiB), not {value}: a smaller heap "
                "cannot even start a cell; the default is used.",
            )
        else:
            setattr(defaults, key, value)
    return defaults


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
_CHECKS = {
    "string": (lambda v: isinstance(v, str), "a string"),
    "string list": (_string_list, "an array of strings"),
    "string table": (_string_table, "a table of strings"),
    "seconds": (
        lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0,
        "a positive number of seconds",
    ),
    "boolean": (lambda v: isinstance(v, bool), "true or false"),
}


def _load_server(name: str, table: Any, report: _Reporter) -> McpServerConfig | None:
    prefix = f"mcp_servers.{name}"
    if not isinstance(table, dict):
        report(prefix, f"must be a table, not {_described(table)}; the server was skipped.")
        return None
    server = McpServerConfig(name=name)
    for key, value in table.items():
        kind = _SERVER_KEYS.get(key)
        if kind is None:
            report(f"{prefix}.{key}", "is not a known MCP server setting and was ignored.")
            continue
        check, wanted = _CHECKS[kind]
        if not check(value):
            report(f"{prefix}.{key}", f"must be {wanted}, not {_described(value)}; the setting was ignored.")
            continue
        setattr(server, key, float(value) if kind == "seconds" else value)
    if server.command and server.url:
        report(prefix, "sets both `command` and `url`; give exactly one transport. The server was skipped.")
        return None
    if not server.command and not server.url:
        report(prefix, "needs `command` (stdio) or `url` (streamable HTTP). The server was skipped.")
        return None
    return server


def parse_config(data: dict[str, Any], source: str = "codemode.toml") -> Config:
    """Build a :class:`Config` from parsed TOML ``data``; ``source`` names the file in errors.

    Never raises for content problems: they land in ``Config.errors``.
    """
    config = Config()
    report = _Reporter(source, config.errors)
    for key, value in data.items():
        if key == "session":
            config.session = _load_session(value, report)
        elif key == "tools":
            disabled = _string_list_table(value, "tools", "disabled", "tool names", report)
            if disabled is not None:
                config.disabled_tools = disabled
        elif key == "mcp_servers":
            if not isinstance(value, dict):
                report("mcp_servers", f"must be a table of servers, not {_described(value)}.")
                continue
            for name, table in value.items():
                server = _load_server(name, table, report)
                if server is not None:
                    config.mcp_servers[name] = server
        elif key == "python_tools":
            modules = _string_list_table(value, "python_tools", "modules", "module names", report)
            if modules is not None:
                config.python_modules = modules
        else:
            report(key, "is not a known section and was ignored.")
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
        config = Config(source_path=resolved)
        config.errors.append(
            f"{resolved}: (file): cannot be read ({exc.strerror or exc}); the built-in defaults are used."
        )
        return config
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        config = Config(source_path=resolved)
        config.errors.append(f"{resolved}: (file): is not valid TOML ({exc}); the built-in defaults are used.")
        return config
    config = parse_config(data, str(resolved))
    config.source_path = resolved
    if config.mcp_servers:
        base = resolved.parent
        for server in config.mcp_servers.values():
            if server.cwd is not None and not Path(server.cwd).expanduser().is_absolute():
                server.cwd = str((base / server.cwd).resolve())
    return config
