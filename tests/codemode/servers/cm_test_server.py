"""A small MCP server built with the SDK's ``MCPServer`` (formerly FastMCP), for tests.

Run ``python cm_test_server.py stdio`` or ``python cm_test_server.py http [--token T]``.
Over HTTP it binds 127.0.0.1 on a free port and prints ``PORT <n>`` on stdout once the
socket listens; with ``--token`` every request must carry ``Authorization: Bearer <T>``
(401 otherwise).

Tools: ``add(a, b)``; ``headers()`` (the request's ``authorization`` and ``x-codemode-test``
headers); ``slow(steps, step_ms)`` (reports progress ``i/steps`` with a message each step);
``cancellations()`` (how many ``slow`` calls the server saw cancelled, i.e. the client's
cancellation reached it); ``nested()`` (structured output whose schema uses ``$defs``/``$ref``).
"""

from __future__ import annotations

import socket
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

INSTRUCTIONS = "Test server for codemode: arithmetic, headers and a slow, cancellable task."

DESCRIPTION = "codemode test server"

server = MCPServer("cm-test", description=DESCRIPTION, instructions=INSTRUCTIONS)
_cancelled: list[int] = []


class Point(BaseModel):
    x: int
    y: int


class Segment(BaseModel):
    start: Point
    end: Point


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
def headers(ctx: Context) -> dict[str, str | None]:
    """The request headers the server received (HTTP only)."""
    seen = ctx.headers or {}
    return {"authorization": seen.get("authorization"), "x_codemode_test": seen.get("x-codemode-test")}


@server.tool()
async def slow(steps: int, ctx: Context, step_ms: int = 200) -> str:
    """Reports progress every step; records it when it is cancelled."""
    try:
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, f"step {i + 1} of {steps}")
            await anyio.sleep(step_ms / 1000)
    except BaseException:
        _cancelled.append(steps)
        raise
    return f"done after {steps} steps"


@server.tool()
def cancellations() -> int:
    """How many ``slow`` calls were cancelled so far."""
    return len(_cancelled)


@server.tool()
def nested() -> Segment:
    """A segment from the origin to (1, 2); its output schema uses ``$defs``."""
    return Segment(start=Point(x=0, y=0), end=Point(x=1, y=2))


def _serve_http(token: str | None) -> None:
    import uvicorn

    app = server.streamable_http_app()

    async def guarded(scope, receive, send):
        if scope["type"] == "http" and token is not None:
            auth = dict(scope["headers"]).get(b"authorization", b"").decode()
            if auth != f"Bearer {token}":
                await send(
                    {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
                )
                await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
                return
        await app(scope, receive, send)

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(f"PORT {sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(guarded, log_level="warning", lifespan="on")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "http":
        token = sys.argv[sys.argv.index("--token") + 1] if "--token" in sys.argv else None
        _serve_http(token)
    else:
        server.run("stdio")
