"""Tool names: the JavaScript identifier on ``tools``, raw code-mode names, MCP names.

Codex's rules: ``normalize_code_mode_identifier`` and ``code_mode_name_for_tool_name`` for
code-mode names, and its MCP naming (``mcp__<server>__<tool>``, names
sanitised to ``[A-Za-z0-9_]``, at most 64 characters with a sha1 suffix on overflow).
"""

from __future__ import annotations

import re

MAX_TOOL_NAME_CHARS = 64
"""Longest model-visible tool name Codex allows (Responses API limit)."""

_IDENT_START = re.compile(r"[A-Za-z_$]")
_IDENT_PART = re.compile(r"[A-Za-z0-9_$]")
_NOT_API_CHAR = re.compile(r"[^A-Za-z0-9_]")


def normalize_identifier(name: str) -> str:
    """Turn ``name`` into an ASCII JavaScript identifier (Codex's ``normalize_code_mode_identifier``).

    The first character must match ``[A-Za-z_$]`` and the others ``[A-Za-z0-9_$]``; every
    other character (a leading digit included) becomes ``_``; an empty name becomes ``_``.
    ``hidden-dynamic-tool`` -> ``hidden_dynamic_tool``; ``ünïcode`` -> ``_n_code``.
    """
    if not name:
        return "_"
    out = [name[0] if _IDENT_START.fullmatch(name[0]) else "_"]
    out.extend(ch if _IDENT_PART.fullmatch(ch) else "_" for ch in name[1:])
    return "".join(out)


def is_identifier(name: str) -> bool:
    """True when normalising ``name`` leaves it unchanged (used to quote object keys)."""
    return bool(name) and normalize_identifier(name) == name


def code_mode_name(name: str, namespace: str | None = None) -> str:
    """The raw code-mode name of a tool (Codex's ``code_mode_name_for_tool_name``).

    No namespace: ``name``. A namespace ending in ``_`` or a name starting with ``_``:
    ``namespace + name``. Otherwise ``namespace + "__" + name``.
    """
    if not namespace:
        return name
    if namespace.endswith("_") or name.startswith("_"):
        return namespace + name
    return f"{namespace}__{name}"


def sanitize_api_name(name: str) -> str:
    """Replace every character outside ``[A-Za-z0-9_]`` by ``_``; empty gives ``_`` (the
    characters the Responses API allows in tool names)."""
    return _NOT_API_CHAR.sub("_", name) or "_"


def _hash_suffix(identity: str) -> str:
    import hashlib  # here, not at the top: the runtime host imports this module and never hashes a name

    return "_" + hashlib.sha1(identity.encode("utf-8")).hexdigest()[:12]


def mcp_tool_name(server: str, tool: str) -> tuple[str, str]:
    """The ``(namespace, name)`` under which an MCP tool is exposed, as Codex names MCP tools.

    The namespace is ``mcp__<server>__`` and the name the tool's, both sanitised; the raw
    code-mode name is their concatenation. When that is over 64 characters, the tool part is
    cut and given the suffix ``_<first 12 hex of sha1("<server>/<tool>")>``; a server name so
    long that its namespace alone overflows is cut the same way, the hash placed before the
    trailing ``__``.
    """
    identity = f"{server}/{tool}"
    namespace = f"mcp__{sanitize_api_name(server)}__"
    name = sanitize_api_name(tool)
    if len(namespace) > MAX_TOOL_NAME_CHARS // 2 and len(namespace) + len(name) > MAX_TOOL_NAME_CHARS:
        suffix = _hash_suffix(f"{server}")
        keep = MAX_TOOL_NAME_CHARS // 2 - len(suffix) - 2
        namespace = namespace[:-2][:keep] + suffix + "__"
    if len(namespace) + len(name) > MAX_TOOL_NAME_CHARS:
        suffix = _hash_suffix(identity)
        keep = max(0, MAX_TOOL_NAME_CHARS - len(namespace) - len(suffix))
        name = name[:keep] + suffix
    return namespace, name


def disambiguate(raw_name: str, taken: set[str], identity: str) -> str:
    """Return ``raw_name``, or a hashed variant of at most 64 characters when it is taken."""
    if raw_name not in taken and len(raw_name) <= MAX_TOOL_NAME_CHARS:
        return raw_name
    suffix = _hash_suffix(identity)
    return raw_name[: MAX_TOOL_NAME_CHARS - len(suffix)] + suffix
