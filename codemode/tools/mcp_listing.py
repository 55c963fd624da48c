"""Lenient ``tools/list``: one tool with an invalid definition no longer hides its server's others.

The ``mcp`` SDK validates a ``tools/list`` result as a whole (against the negotiated protocol
version's schema, then its ``ListToolsResult`` model), so a single tool whose ``inputSchema``
has, say, ``"required": "a"`` fails the listing with a raw pydantic dump and the server starts
with no tools at all. Codex loads the valid ones; so do we.

How: :class:`LenientJSONRPCDispatcher` is the SDK's own ``JSONRPCDispatcher`` (handed to
``ClientSession(dispatcher=...)``, a public parameter) that checks each tool of a raw
``tools/list`` result on its own - with the same two validations the session applies, the
version's wire schema (``mcp_types.methods.validate_server_result``) and the SDK's ``Tool``
model - and drops the invalid ones before the session sees the result. The session's listing,
its output-schema cache and its later re-listings (``call_tool`` re-lists to validate results)
thus all work on the valid tools. Each dropped tool becomes a sentence in :attr:`problems`
naming the server, the tool and the field (:func:`tool_problem`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import mcp_types
import pydantic
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp_types import methods as mcp_methods

logger = logging.getLogger(__name__)

_EXPECTED = {
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "string_type": "must be a string",
    "bool_type": "must be a boolean",
    "int_type": "must be an integer",
    "int_from_float": "must be an integer",
    "float_type": "must be a number",
    "missing": "is missing",
    "extra_forbidden": "is not allowed",
}


def _field(loc: tuple[Any, ...]) -> str:
    """A pydantic location as a dotted field path: ``('inputSchema', 'required', 0)`` ->
    ``inputSchema.required[0]``."""
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif not str(part).startswith(("function-", "union[", "tagged-union[")):
            text += ("." if text else "") + str(part)
    return text


def tool_problem(server: str, tool: Any, index: int, error: pydantic.ValidationError) -> str:
    """The sentence for a tool of ``server`` skipped because of ``error`` (its first problem),
    e.g. ``MCP server `raw`: tool `x` was skipped: its inputSchema.required must be a list.``
    ``tool`` is the raw tool object, ``index`` its position in the listing (named when the
    tool has no string ``name``)."""
    name = tool.get("name") if isinstance(tool, Mapping) else None
    label = f"`{name}`" if isinstance(name, str) else f"number {index + 1} of the listing"
    first = error.errors(include_url=False)[0]
    loc = tuple(first.get("loc", ()))
    if loc[:2] and loc[0] == "tools" and isinstance(loc[1], int):
        loc = loc[2:]
    where = _field(loc)
    expected = _EXPECTED.get(first.get("type", ""))
    if not where:
        detail = "it is not an object" if not isinstance(tool, Mapping) else f"it is invalid ({first['msg']})"
    elif expected:
        detail = f"its {where} {expected}"
    else:
        detail = f"its {where} is invalid ({first['msg'].rstrip('.')})"
    return f"MCP server `{server}`: tool {label} was skipped: {detail}."


def check_tool(tool: Any, protocol_version: str | None) -> pydantic.ValidationError | None:
    """Validate one raw tool as the session would validate a listing holding it alone: the wire
    schema of ``protocol_version`` (when known to the SDK), then the SDK's ``Tool`` model.
    Returns the first ``ValidationError``, or None when the tool is valid."""
    try:
        if protocol_version:
            try:
                mcp_methods.validate_server_result("tools/list", protocol_version, {"tools": [tool]})
            except (KeyError, ValueError) as exc:
                if isinstance(exc, pydantic.ValidationError):
                    raise
                # An unknown version or method: the model check below still applies.
        mcp_types.Tool.model_validate(tool, by_name=False)
    except pydantic.ValidationError as exc:
        return exc
    return None


class LenientJSONRPCDispatcher(JSONRPCDispatcher):
    """The SDK's ``JSONRPCDispatcher`` dropping invalid tools from ``tools/list`` results.

    Same constructor as ``JSONRPCDispatcher`` plus ``server`` (the configured server name,
    for the sentences). Set :attr:`protocol_version` once ``initialize`` answered, so the
    tools are checked against that version's wire schema. :attr:`problems` lists one sentence
    per dropped tool (the latest listing's; pages of one listing accumulate until
    :meth:`reset_problems`).
    """

    def __init__(self, *args: Any, server: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.server = server
        self.protocol_version: str | None = None
        self.problems: list[str] = []

    def reset_problems(self) -> None:
        """Forget the problems of earlier listings (call before listing again)."""
        self.problems = []

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None, **kwargs: Any
    ) -> dict[str, Any]:
        """``JSONRPCDispatcher.send_raw_request``; for ``tools/list`` the invalid tools are
        removed from the result (and recorded in :attr:`problems`)."""
        raw = await super().send_raw_request(method, params, opts, **kwargs)
        if method == "tools/list" and isinstance(raw, dict) and isinstance(raw.get("tools"), list):
            kept = []
            for index, tool in enumerate(raw["tools"]):
                error = check_tool(tool, self.protocol_version)
                if error is None:
                    kept.append(tool)
                    continue
                problem = tool_problem(self.server, tool, index, error)
                logger.warning(problem)
                if problem not in self.problems:
                    self.problems.append(problem)
            raw = {**raw, "tools": kept}
        return raw
