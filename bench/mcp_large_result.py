"""A large MCP tool result through codemode's stdio transport vs the SDK's ``stdio_client``.

    python -m bench.mcp_large_result [--chars 30000000] [--runs 1]

Both transports talk to the same hand-written server (``tests/codemode/servers/cm_raw_server.py``)
with the SDK's ``ClientSession``, in this process, alternating (A then B, then B then A:
:func:`bench.pairing.order`) for ``--runs`` pairs: initialize, then the tool ``big`` returning
one text of ``--chars`` characters (mixed ASCII and multi-byte UTF-8), timed from the request
to the parsed ``CallToolResult`` (median of ``--runs``). Also timed:
how much of that the event loop was blocked - the longest gap seen by a 10 ms ticker task,
which is what other cells of the kernel wait for. Prints seconds and the min / median of the
per-pair ratio codemode/SDK (< 1: codemode is faster). Nothing is asserted: ``codemode.tools.stdio_transport``
explains why the SDK's reader is quadratic in the line length.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from bench.pairing import compare, order
from codemode.tools.stdio_transport import stdio_transport

SERVER = Path(__file__).resolve().parents[1] / "tests" / "codemode" / "servers" / "cm_raw_server.py"


async def _one(transport, chars: int) -> tuple[float, float]:
    """Seconds for one ``big`` call and the longest event-loop stall during it."""
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])
    longest = 0.0

    async def ticker() -> None:
        nonlocal longest
        last = time.perf_counter()
        while True:
            await anyio.sleep(0.01)
            now = time.perf_counter()
            longest = max(longest, now - last - 0.01)
            last = now

    async with transport(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        async with anyio.create_task_group() as tg:
            tg.start_soon(ticker)
            started = time.perf_counter()
            result = await session.call_tool("big", {"chars": chars})
            elapsed = time.perf_counter() - started
            tg.cancel_scope.cancel()
        if len(result.content[0].text) != chars:
            raise RuntimeError("the result arrived cut or joined wrongly")
    return elapsed, longest


async def main(chars: int, runs: int) -> None:
    transports = {"codemode stdio_transport": stdio_transport, "mcp SDK stdio_client": stdio_client}
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label in transports}
    for index in range(runs):
        for label in order(list(transports), index):
            samples[label].append(await _one(transports[label], chars))
    rows = {
        label: (statistics.median(s[0] for s in found), statistics.median(s[1] for s in found))
        for label, found in samples.items()
    }
    print(f"{chars:,} characters in one tool result, median of {runs} run(s):")
    print(f"{'transport':<26}{'call (s)':>10}{'longest loop stall (s)':>25}")
    for label, (call_s, stall_s) in rows.items():
        print(f"{label:<26}{call_s:>10.2f}{stall_s:>25.2f}")
    found = compare(*([call for call, _ in samples[label]] for label in transports))
    print(f"ratio codemode/SDK: min {found.ratio_min:.3f}, median {found.ratio_median:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=30_000_000)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    anyio.run(main, args.chars, args.runs)
