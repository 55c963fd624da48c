"""A hand-written MCP stdio server (plain JSON-RPC lines, no SDK), for transport tests.

``python cm_raw_server.py [--bad-tool]``. It answers ``initialize`` with the client's
protocol version, ``tools/list`` and ``tools/call``; notifications are ignored.

Tools: ``echo(text)`` returns ``text``; ``big(chars)`` returns one text item of ``chars``
characters: a repeated pattern mixing ASCII and multi-byte UTF-8 (``é``, ``€``, ``😀``), so a
line cut or joined wrongly shows. With ``--bad-tool`` the listing also holds ``broken``, whose
``inputSchema.required`` is a string - which the MCP schema forbids.
"""

from __future__ import annotations

import json
import sys

PATTERN = 'abcé€😀\\"\n'


def pattern_text(chars: int) -> str:
    """``chars`` characters of :data:`PATTERN`, repeated."""
    reps, rest = divmod(chars, len(PATTERN))
    return PATTERN * reps + PATTERN[:rest]


TOOLS = [
    {
        "name": "echo",
        "description": "Returns its text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    {
        "name": "big",
        "description": "Returns a long text.",
        "inputSchema": {"type": "object", "properties": {"chars": {"type": "integer"}}, "required": ["chars"]},
    },
]
BROKEN = {
    "name": "broken",
    "description": "Its schema is invalid.",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"},
}


def answer(request: dict, tools: list[dict]) -> dict | None:
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        result = {
            "protocolVersion": params.get("protocolVersion", "2025-11-25"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "cm-raw", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": tools}
    elif method == "tools/call":
        args = params.get("arguments") or {}
        text = args.get("text", "") if params.get("name") == "echo" else pattern_text(int(args.get("chars", 0)))
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    tools = TOOLS + ([BROKEN] if "--bad-tool" in sys.argv else [])
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = json.loads(line)
        if "id" not in request or "method" not in request:
            continue  # a notification or a response
        out.write(json.dumps(answer(request, tools), ensure_ascii=False).encode("utf-8") + b"\n")
        out.flush()


if __name__ == "__main__":
    main()
