"""Codex's built-in MCP resource tools: ``list_mcp_resources``, ``list_mcp_resource_templates``
and ``read_mcp_resource``, offered when at least one MCP server is configured.

Facts carried over from Codex (``codex-rs/core/src/tools/handlers/mcp_resource.rs`` and its
``list_mcp_resources.rs``, ``list_mcp_resource_templates.rs``, ``read_mcp_resource.rs``;
``codex-rs/codex-mcp/src/connection_manager.rs``):

- each returns a **string**, the compact JSON text of its payload, as a Codex function tool's
  output reaches a code-mode cell (Codex CLI 0.171.0's session: ``JSON.stringify`` of the
  result of ``list_mcp_resources({server: "everything"})`` gave a quoted string);
- ``list_mcp_resources({server?, cursor?})``: with ``server``, one page of that server's
  ``resources/list`` as ``{"server", "resources": [{"server", ...resource}], "nextCursor"?}``;
  without, every server's resources (all pages, servers in name order, a server that fails
  left out) as ``{"resources": [...]}``; a ``cursor`` without ``server`` is refused with
  ``cursor can only be used when a server is specified``;
- ``list_mcp_resource_templates``: the same with ``resources/templates/list`` and
  ``resourceTemplates``;
- ``read_mcp_resource({server, uri})``: ``{"server", "uri", "contents": [...]}``;
- blank strings count as absent (``server must be provided``, ``uri must be provided``); a
  failure is ``resources/list failed: ...`` (``resources/templates/list``, ``resources/read``);
  an unknown server is ``unknown MCP server 'NAME'``;
- a resource's fields come in the order of Codex's types (``uri``, ``name``, ``title``,
  ``description``, ``mimeType``, ``size``, ...), each only when the server sent it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from codemode.errors import ToolCallError
from codemode.tools.base import Tool, ToolContext

logger = logging.getLogger(__name__)

RESOURCE_ORDER = ("uri", "name", "title", "description", "mimeType", "size", "icons", "annotations", "_meta")
TEMPLATE_ORDER = ("uriTemplate", "name", "title", "description", "mimeType", "icons", "annotations", "_meta")
CONTENTS_ORDER = ("uri", "mimeType", "text", "blob", "_meta")


def _ordered(item: Any, order: tuple[str, ...]) -> Any:
    """``item`` (a JSON object) with the keys of ``order`` first, in that order, then the rest."""
    if not isinstance(item, dict):
        return item
    first = {key: item[key] for key in order if key in item}
    return {**first, **{key: value for key, value in item.items() if key not in first}}


def _text(payload: dict[str, Any]) -> str:
    """The payload as Codex's ``serde_json::to_string``: compact, non-ASCII kept."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def _optional(args: Mapping[str, Any], key: str) -> str | None:
    """``args[key]`` stripped, None when absent or blank (Codex's ``normalize_optional_string``)."""
    value = args.get(key)
    return value.strip() or None if isinstance(value, str) else None


class _Listing:
    """``list_mcp_resources`` or ``list_mcp_resource_templates``: ``method`` is the MCP request,
    ``key`` the list in its result and in the payload, ``order`` the field order of an item."""

    def __init__(self, method: str, key: str, order: tuple[str, ...], clients: Callable[[], Mapping[str, Any]]) -> None:
        self.method, self.key, self.order, self.clients = method, key, order, clients

    def _item(self, server: str, item: Any) -> dict[str, Any]:
        return {"server": server, **_ordered(item, self.order)}

    async def __call__(self, args: Any, ctx: ToolContext) -> str:
        args = args if isinstance(args, dict) else {}
        server, cursor = _optional(args, "server"), _optional(args, "cursor")
        if server is None:
            if cursor is not None:
                raise ToolCallError("cursor can only be used when a server is specified")
            return _text({self.key: await self._everything()})
        client = _client(self.clients(), server, self.method)
        try:
            page = await client.resources_request(self.method, cursor)
        except ToolCallError as exc:
            raise ToolCallError(f"{self.method} failed: {self.method} failed for `{server}`: {exc}") from exc
        payload: dict[str, Any] = {"server": server, self.key: [self._item(server, i) for i in page.get(self.key, [])]}
        if page.get("nextCursor") is not None:
            payload["nextCursor"] = page["nextCursor"]
        return _text(payload)

    async def _everything(self) -> list[dict[str, Any]]:
        """Every page of every server, servers in name order; a server that fails is logged
        and left out (Codex's ``list_all_resources``)."""
        items: list[dict[str, Any]] = []
        for server, client in sorted(self.clients().items()):
            collected: list[Any] = []
            cursor: str | None = None
            try:
                while True:
                    page = await client.resources_request(self.method, cursor)
                    collected.extend(page.get(self.key, []))
                    following = page.get("nextCursor")
                    if following is None:
                        break
                    if following == cursor:
                        raise ToolCallError(f"{self.method} returned duplicate cursor")
                    cursor = following
            except ToolCallError as exc:
                logger.warning("Failed to list %s for MCP server '%s': %s", self.key, server, exc)
                continue
            items.extend(self._item(server, item) for item in collected)
        return items


def _client(clients: Mapping[str, Any], server: str, method: str) -> Any:
    client = clients.get(server)
    if client is None:
        raise ToolCallError(f"{method} failed: unknown MCP server '{server}'")
    return client


def _reader(clients: Callable[[], Mapping[str, Any]]) -> Callable[[Any, ToolContext], Any]:
    async def read(args: Any, ctx: ToolContext) -> str:
        args = args if isinstance(args, dict) else {}
        server, uri = _optional(args, "server"), _optional(args, "uri")
        for name, value in (("server", server), ("uri", uri)):
            if value is None:
                raise ToolCallError(f"{name} must be provided")
        assert server is not None and uri is not None
        client = _client(clients(), server, "resources/read")
        try:
            result = await client.resources_request("resources/read", uri=uri)
        except ToolCallError as exc:
            raise ToolCallError(f"resources/read failed: resources/read failed for `{server}` ({uri}): {exc}") from exc
        contents = [_ordered(item, CONTENTS_ORDER) for item in result.pop("contents", [])]
        return _text({"server": server, "uri": uri, "contents": contents, **result})

    return read


def _listing_tool(
    name: str, description: str, method: str, key: str, order: tuple[str, ...], clients: Callable[[], Mapping[str, Any]]
) -> Tool:
    """``list_mcp_resources`` or ``list_mcp_resource_templates`` (``key`` names what it lists)."""
    what = "resources" if key == "resources" else "resource templates"
    properties = {
        "cursor": {
            "type": "string",
            "description": f"Opaque cursor from a previous {name} call; omit for the first page.",
        },
        "server": {
            "type": "string",
            "description": f"MCP server name. Omit to list {what} from every configured server.",
        },
    }
    return Tool(
        name=name,
        description=description,
        handler=_Listing(method, key, order, clients),
        input_schema={"type": "object", "properties": properties},
    )


def resource_tools(clients: Callable[[], Mapping[str, Any]]) -> list[Tool]:
    """The three tools, answering from ``clients()`` (server name -> ``McpClient``, the
    registry's :attr:`~codemode.tools.registry.ToolRegistry.mcp_clients`). Descriptions and
    argument descriptions are Codex's."""
    return [
        _listing_tool(
            "list_mcp_resources",
            "Lists resources provided by MCP servers. Resources allow servers to share data that provides "
            "context to language models, such as files, database schemas, or application-specific information. "
            "Prefer resources over web search when possible.",
            "resources/list",
            "resources",
            RESOURCE_ORDER,
            clients,
        ),
        _listing_tool(
            "list_mcp_resource_templates",
            "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers "
            "to share data that takes parameters and provides context to language models, such as files, "
            "database schemas, or application-specific information. Prefer resource templates over web search "
            "when possible.",
            "resources/templates/list",
            "resourceTemplates",
            TEMPLATE_ORDER,
            clients,
        ),
        Tool(
            name="read_mcp_resource",
            description=("Read a specific resource from an MCP server given the server name and resource URI."),
            handler=_reader(clients),
            input_schema={
                "type": "object",
                "properties": {
                    "server": {
                        "type": "string",
                        "description": (
                            "MCP server name exactly as configured. Must match the 'server' field returned by "
                            "list_mcp_resources."
                        ),
                    },
                    "uri": {
                        "type": "string",
                        "description": "Resource URI to read. Must be one of the URIs returned by list_mcp_resources.",
                    },
                },
                "required": ["server", "uri"],
            },
        ),
    ]
