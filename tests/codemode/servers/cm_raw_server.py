"""A hand-written MCP stdio server (plain JSON-RPC lines, no SDK), for transport tests.

``python cm_raw_server.py [--bad-tool]``. It answers ``initialize`` with the client's
protocol version, ``tools/list`` and ``tools/call``; notifications are ignored.

Tools: ``echo(text)`` returns ``text``; ``big(chars)`` returns one text item of ``chars``
characters: a repeated pattern mixing ASCII and multi-byte UTF-8 (``é``, ``€``, ``😀``), so a
line cut or joined wrongly shows. With ``--bad-tool`` the listing also holds ``broken``, whose
``inputSchema.required`` is a string - which the MCP schema forbids.

``fail()`` answers with a JSON-RPC error (code -32000) whose message mentions a closed
connection. ``hold()`` is answered only when a ``release()`` call arrives (both are answered then, the
held one first). ``bad(kind)`` answers with the line :data:`BAD_LINES` holds for ``kind``
(``{id}`` is the request's id; ``noise`` is written before a normal answer).
"""

from __future__ import annotations

import json
import sys

PATTERN = 'abcé€😀\\"\n'


def pattern_text(chars: int) -> str:
    """``chars`` characters of :data:`PATTERN`, repeated."""
    reps, rest = divmod(chars, len(PATTERN))
    return PATTERN * reps + PATTERN[:rest]


FILLER = "x" * 100
BAD_LINES = {
    # JSON for Python's parser, but pydantic's rejects the escapes of lone surrogates.
    "surrogate": '{"jsonrpc":"2.0","id":{id},"result":{"content":[{"type":"text","text":"cut \\ud83d, \\udc00 too"}]}}',
    # A whole object, then more: not JSON. The id is found among the "id" members of the text.
    "not_json": '{"result":{"content":[{"type":"text","text":"' + FILLER + '","id":12345}]}} garbage,"id":{id}}',
    # Latin-1, not UTF-8.
    "not_utf8": '{"result":{"content":[{"type":"text","text":"caf\xe9 ' + FILLER + '"}]},"jsonrpc":"2.0","id":{id}}',
    # JSON, but neither a result nor an error.
    "not_jsonrpc": '{"jsonrpc":"2.0","outcome":{"detail":"' + FILLER + '"},"id":{id}}',
    # A line for no request at all, before the real answer.
    "noise": "server log: started " + FILLER,
}


def bad_line(kind: str, request_id: int | str) -> bytes:
    """The line ``bad(kind)`` writes for ``request_id`` (without its newline)."""
    text = BAD_LINES[kind].replace("{id}", json.dumps(request_id))
    return text.encode("latin-1") if kind == "not_utf8" else text.encode("utf-8")


TOOLS = [
    {
        "name": "echo",
        "description": "Returns its text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    },
    {"name": "hold", "description": "Answered at the next release call.", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "Answers with a JSON-RPC error.", "inputSchema": {"type": "object"}},
    {"name": "release", "description": "Answers the held calls.", "inputSchema": {"type": "object"}},
    {
        "name": "bad",
        "description": "Answers with a bad line.",
        "inputSchema": {"type": "object", "properties": {"kind": {"enum": list(BAD_LINES)}}, "required": ["kind"]},
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


def write(out, data: bytes) -> None:
    out.write(data + b"\n")
    out.flush()


def main() -> None:
    tools = TOOLS + ([BROKEN] if "--bad-tool" in sys.argv else [])
    out = sys.stdout.buffer
    held: list[dict] = []
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        request = json.loads(line)
        if "id" not in request or "method" not in request:
            continue  # a notification or a response
        params = request.get("params") or {}
        name = params.get("name") if request["method"] == "tools/call" else None
        if name == "hold":
            held.append(request)
            continue
        if name == "release":
            for waiting in held:
                write(out, json.dumps(answer(waiting, tools) | {"result": ok("held")}).encode())
            held.clear()
            write(out, json.dumps(answer(request, tools) | {"result": ok("released")}).encode())
            continue
        if name == "fail":
            error = {"code": -32000, "message": "the database connection was closed"}
            write(out, json.dumps({"jsonrpc": "2.0", "id": request["id"], "error": error}).encode())
            continue
        if name == "bad":
            kind = (params.get("arguments") or {}).get("kind")
            write(out, bad_line(kind, request["id"]))
            if kind == "noise":
                write(out, json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": ok("after noise")}).encode())
            continue
        write(out, json.dumps(answer(request, tools), ensure_ascii=False).encode("utf-8"))


def ok(text: str) -> dict:
    return {"content": [{"type": "text", "text": text}], "isError": False}


if __name__ == "__main__":
    main()
