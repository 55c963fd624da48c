"""A stdio MCP server (the SDK's ``MCPServer``, formerly FastMCP) that appends a line to the file
named by its first argument each time it starts, so a test can count its starts.

Run ``python start_counter.py STARTS_FILE``. The line is written first, before the SDK is
imported, so a start counts even when the server is stopped while it loads. Tool: ``ping()``
returns ``"pong"``.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    with open(sys.argv[1], "a", encoding="utf-8") as starts:
        starts.write(f"started {os.getpid()}\n")
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("start-counter")

    @server.tool()
    def ping() -> str:
        """Answers pong."""
        return "pong"

    server.run("stdio")


if __name__ == "__main__":
    main()
