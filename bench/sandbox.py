"""What the sandbox costs a trivial ``exec_command``: sandboxed (bubblewrap + seccomp) against
the same call with no sandbox (``sandbox_mode = "danger-full-access"``).

    python -m bench.sandbox [--pairs 15] [--cmd true]

Both calls go through the dispatcher as a cell's would (``ToolCallRuntime.handle_tool_call``,
schema check, the launcher, ``bash -c``), in a scratch workspace; A (sandboxed) and B (no
sandbox) alternate (A then B, then B then A: :func:`bench.pairing.order`), after one warm-up
call each (the sandbox's one-off probe and filter build happen there). Prints, for each side, the min and median wall time per call in milliseconds,
and the min and median of the per-pair ratio A/B. The cost is per command: a fixed start-up
(the ``bwrap`` process, its namespaces and mounts), independent of what the command does.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time

from bench.pairing import compare, order
from codemode.cancellation import CancellationToken
from codemode.config import Config, SandboxSettings
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry


async def _dispatcher(mode: str) -> tuple[ToolRegistry, ToolCallRuntime]:
    registry = await ToolRegistry.create(Config(sandbox=SandboxSettings(sandbox_mode=mode)))
    return registry, ToolCallRuntime(registry)


async def _one(dispatcher: ToolCallRuntime, cmd: str) -> float:
    started = time.perf_counter()
    result = await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": "exec_command", "namespace": None}, "function", {"cmd": cmd}, CancellationToken()
    )
    elapsed = time.perf_counter() - started
    if result.outcome != "completed" or result.value["exit_code"] != 0:
        raise RuntimeError(f"the benchmark command failed: {result}")
    return elapsed


async def measure(pairs: int, cmd: str) -> dict[str, list[float]]:
    """Per-call seconds of each side, A and B alternating (see the module docstring)."""
    os.chdir(tempfile.mkdtemp(prefix="codemode-bench-sandbox-"))
    sandboxed, sandboxed_dispatcher = await _dispatcher("workspace-write")
    bare, bare_dispatcher = await _dispatcher("danger-full-access")
    try:
        await _one(sandboxed_dispatcher, cmd)
        await _one(bare_dispatcher, cmd)
        dispatchers = {"sandboxed": sandboxed_dispatcher, "unsandboxed": bare_dispatcher}
        times: dict[str, list[float]] = {name: [] for name in dispatchers}
        for index in range(pairs):
            for name in order(list(dispatchers), index):
                times[name].append(await _one(dispatchers[name], cmd))
        return times
    finally:
        await sandboxed.aclose()
        await bare.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--cmd", default="true")
    args = parser.parse_args()
    times = asyncio.run(measure(args.pairs, args.cmd))
    found = compare(times["sandboxed"], times["unsandboxed"])
    load = os.getloadavg()[0]
    print(f"exec_command({args.cmd!r}), {args.pairs} pairs, load average {load:.2f}")
    for side, values in times.items():
        print(f"  {side:<12} min {min(values) * 1000:7.1f} ms   median {statistics.median(values) * 1000:7.1f} ms")
    print(f"  ratio sandboxed/unsandboxed: min {found.ratio_min:.2f}, median {found.ratio_median:.2f}")
    extra = found.a_median - found.b_median
    print(f"  the sandbox adds about {extra * 1000:.1f} ms per command (fixed, whatever the command does)")


if __name__ == "__main__":
    main()
