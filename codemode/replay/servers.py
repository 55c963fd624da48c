"""The MCP servers of a Codex ``config.toml`` as a ``codemode.toml``.

Codex reads ``$CODEX_HOME/config.toml`` (``CODEX_HOME`` defaults to ``~/.codex``); its
``[mcp_servers.NAME]`` tables take ``command`` / ``args`` / ``env`` / ``cwd`` (stdio) or ``url``
(+ ``bearer_token_env_var``, ``http_headers``), and the timeouts. codemode's tables take the
same keys (:mod:`codemode.config.servers`), so each known key is copied as it is;
``startup_timeout_ms`` (an older Codex key) becomes ``startup_timeout_sec``. Other keys are
left out and named in a comment of the file written.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from codemode.atomic_file import write_atomically

KEYS = (
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "bearer_token_env_var",
    "http_headers",
    "startup_timeout_sec",
    "tool_timeout_sec",
    "enabled",
    "enabled_tools",
    "disabled_tools",
)
"""The keys of a ``[mcp_servers.NAME]`` table codemode takes (Codex's names)."""
BARE_KEY = re.compile(r"\A[A-Za-z0-9_-]+\Z")


class CodexConfigError(ValueError):
    """The Codex configuration could not be read; ``str(e)`` names the file and says why."""


def default_codex_config() -> Path:
    """``$CODEX_HOME/config.toml``, ``CODEX_HOME`` defaulting to ``~/.codex``."""
    home = os.environ.get("CODEX_HOME") or str(Path("~/.codex").expanduser())
    return Path(home) / "config.toml"


def read_servers(path: Path) -> dict[str, dict[str, Any]]:
    """The ``[mcp_servers]`` tables of the Codex config at ``path`` (name -> table).

    Raises :class:`CodexConfigError` when the file cannot be read or is not TOML, and
    ``FileNotFoundError`` when it does not exist.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise CodexConfigError(f"The Codex configuration {path} could not be read: {exc}.") from exc
    except tomllib.TOMLDecodeError as exc:
        raise CodexConfigError(f"The Codex configuration {path} is not valid TOML: {exc}.") from exc
    servers = data.get("mcp_servers", {})
    if not isinstance(servers, dict):
        raise CodexConfigError(f"The Codex configuration {path} has an mcp_servers that is not a table.")
    return {name: table for name, table in servers.items() if isinstance(table, dict)}


def _key(name: str) -> str:
    return name if BARE_KEY.match(name) else _string(name)


def _string(text: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL and lone surrogates escaped too)."""
    quoted = json.dumps(text, ensure_ascii=False)
    return quoted.replace("\x7f", "\\u007f")


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(str(k))} = {_value(v)}" for k, v in value.items()) + "}"
    return _string(str(value))


def codemode_toml(servers: dict[str, dict[str, Any]], source: Path) -> str:
    """The text of a ``codemode.toml`` holding ``servers`` (tables of a Codex config read
    from ``source``)."""
    lines = [f"# MCP servers copied by `python -m codemode replay` from {source}.", ""]
    for name, table in servers.items():
        copied = {k: table[k] for k in KEYS if k in table}
        if "startup_timeout_ms" in table and "startup_timeout_sec" not in table:
            ms = table["startup_timeout_ms"]
            if isinstance(ms, int | float) and not isinstance(ms, bool):
                copied["startup_timeout_sec"] = ms / 1000
        left = sorted(k for k in table if k not in KEYS and k != "startup_timeout_ms")
        lines.append(f"[mcp_servers.{_key(name)}]")
        if left:
            lines.append(f"# not carried over (codemode does not take them): {', '.join(left)}")
        lines.extend(f"{key} = {_value(value)}" for key, value in copied.items())
        lines.append("")
    return "\n".join(lines)


def load_servers(config: Path, explicit: bool) -> dict[str, dict[str, Any]]:
    """The MCP servers of the Codex config: a missing default config is no servers; a missing
    named one, or one that cannot be read, raises :class:`CodexConfigError`."""
    try:
        return read_servers(config)
    except FileNotFoundError as exc:
        if explicit:
            raise CodexConfigError(f"The Codex configuration {config} does not exist.") from exc
        return {}


def write_servers(servers: dict[str, dict[str, Any]], config: Path, folders: list[Path]) -> list[str]:
    """Write ``servers`` (read from ``config``) to ``codemode.toml`` in each folder, leaving an
    existing file as it is; returns the lines to print."""
    text = codemode_toml(servers, config)
    said = []
    for folder in dict.fromkeys(folders):
        target = folder / "codemode.toml"
        if target.exists():
            said.append(
                f"warning: {target} exists and was left unchanged (its MCP servers may differ from {config}'s)."
            )
            continue
        write_atomically(target, text)
        plural = "s" if len(servers) != 1 else ""
        said.append(f"wrote {target} ({len(servers)} MCP server{plural} from {config})")
    return said
