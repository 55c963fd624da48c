"""An MCP server that fails while it starts: it writes a few lines to stderr, then raises
at import time, before it reads anything (for the start-up error test)."""

import sys

for i in range(30):
    print(f"crash server: preparing step {i}", file=sys.stderr)
raise RuntimeError("cm_crash_server cannot start: the setting CM_CRASH_TOKEN is missing")
