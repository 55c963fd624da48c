"""The runtime host against Codex's own host: cell and tool-call round trips, as ratios.

    CODEMODE_REFERENCE_HOST=<codex-code-mode-host of @openai/codex@0.171.0> python bench/host.py [--cells 300]

Both hosts are driven by the same client (``CodeModeSession``) in the same run, one after
the other. Measured per host (median seconds over ``--cells`` cells, after a warm-up):
- ``cell``: ``text(1)`` from execute to its Result;
- ``tool``: ``await tools.echo({n: 1})``, i.e. one delegate round trip in the cell;
- ``fan-out``: ``await Promise.all`` over 50 echo calls;
- ``start``: spawning the host and answering the first cell.
Prints milliseconds and the codemode/Codex ratio. Without ``CODEMODE_REFERENCE_HOST`` only
codemode's numbers are printed. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import time
from collections.abc import AsyncIterator

from codemode.config import SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.session import CodeModeSession
from codemode.tools.registry import ToolRegistry

PROGRAMS = {
    "cell": "text(1)",
    "tool": "await tools.echo({n: 1})",
    "fan-out": "await Promise.all(Array.from({length: 50}, (_, n) => tools.echo({n})))",
}


async def run_cell(session: CodeModeSession, source: str) -> float:
    """Seconds from ``session.execute(source)`` to the cell's ``Result``; raises ``RuntimeError`` for
    any other outcome (a yield, a terminate, an error text)."""
    started = time.perf_counter()
    cell = await session.execute(source)
    response = await cell.initial_response
    if response.kind != "Result" or response.error_text:
        raise RuntimeError(f"{source!r} gave {response}")
    return time.perf_counter() - started


@contextlib.asynccontextmanager
async def host_session(command: list[str], defaults: SessionDefaults | None = None) -> AsyncIterator[CodeModeSession]:
    """A ``CodeModeSession`` with the built-in tools on the host whose full argv is ``command``
    (``[..., "--listen", "stdio"]``); the host is spawned by the first cell and shut down on exit."""
    registry = await ToolRegistry.create()
    session = CodeModeSession(
        registry=registry,
        dispatcher=ToolCallRuntime(registry),
        defaults=defaults or SessionDefaults(),
        host_command=command,
    )
    try:
        yield session
    finally:
        await session.shutdown()
        await registry.aclose()


async def measure(command: list[str], cells: int) -> dict[str, float]:
    """Median seconds of each program (and of start-up) on the host run by ``command``."""
    async with host_session(command) as session:
        results = {"start": await run_cell(session, "text(0)")}
        for name, source in PROGRAMS.items():
            await run_cell(session, source)  # warm-up
            results[name] = statistics.median([await run_cell(session, source) for _ in range(cells)])
        return results


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=300)
    args = parser.parse_args(argv)
    ours = asyncio.run(measure([sys.executable, "-m", "codemode.runtime", "--listen", "stdio"], args.cells))
    reference = os.environ.get("CODEMODE_REFERENCE_HOST")
    peer = asyncio.run(measure([reference, "--listen", "stdio"], args.cells)) if reference else None
    print(f"{'metric':<10}{'codemode ms':>14}{'Codex ms':>12}{'ratio':>8}")
    for key, value in ours.items():
        if peer:
            print(f"{key:<10}{value * 1e3:>14.2f}{peer[key] * 1e3:>12.2f}{value / peer[key]:>8.2f}")
        else:
            print(f"{key:<10}{value * 1e3:>14.2f}{'-':>12}{'-':>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
