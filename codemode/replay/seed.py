"""Seed a recording (:mod:`codemode.replay.recording`) from the nested tool calls a Codex session holds.

Codex writes an ``event_msg`` ``item_completed`` line for most nested calls
(:class:`codemode.replay.rollout.NestedToolCall`; the converter keeps them in the notebook's
``metadata.codemode.replay.nested_tool_calls``). An ``McpToolCall`` item holds what a replay
needs to answer the call again: ``server``, ``tool``, ``arguments`` as the program passed them,
``status`` and ``result`` (the MCP ``CallToolResult``, ``isError`` included) or ``error``.
Each becomes one recorded call of the tool ``mcp__SERVER__TOOL`` (its code-mode name,
:func:`codemode.wire.tool_names.code_mode_name`), in file order; Codex's resource tools
(:data:`CODEX_RESOURCE_TOOLS`) keep their plain name.

Other kinds are not seeded: a ``CommandExecution`` records the command line Codex ran, not
the arguments the program gave ``exec_command``, so no replayed call would match it; a
``FileChange`` or ``ImageView`` is a tool codemode lacks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from codemode.replay.recording import SeedError, write_recording
from codemode.wire.tool_names import code_mode_name

CODEX_RESOURCE_TOOLS = frozenset({"list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"})
"""Codex's own MCP resource tools: Codex records them as ``McpToolCall`` items whose ``server``
is the server asked, but a program calls them by the plain name (``tools.list_mcp_resources``)."""


def seed_calls(nested: Iterable[Mapping[str, Any]]) -> list[tuple[str, Any, Any]]:
    """``(tool, arguments, answer)`` for each ``McpToolCall`` of ``nested`` (the notebook
    metadata's ``nested_tool_calls`` entries, ``{"kind", "item", ...}``); ``answer`` is the
    ``result``, or a :class:`SeedError` with the ``error`` text when there is no result."""
    calls: list[tuple[str, Any, Any]] = []
    for entry in nested:
        item = entry.get("item", {})
        if entry.get("kind") != "McpToolCall" or not item.get("server") or not item.get("tool"):
            continue
        name = str(item["tool"])
        tool = name if name in CODEX_RESOURCE_TOOLS else code_mode_name(name, f"mcp__{item['server']}__")
        result = item.get("result")
        if result is None:
            error = item.get("error")
            text = error.get("message", str(error)) if isinstance(error, dict) else str(error or "failed")
            calls.append((tool, item.get("arguments"), SeedError(text)))
        else:
            calls.append((tool, item.get("arguments"), result))
    return calls


def seed_recording(path: Path, nested: Iterable[Mapping[str, Any]]) -> int:
    """Write the recording of :func:`seed_calls` at ``path`` (replacing it); returns how many
    calls it holds. Raises ``OSError``."""
    calls = seed_calls(nested)
    write_recording(path, calls)
    return len(calls)


__all__ = ["seed_calls", "seed_recording"]
