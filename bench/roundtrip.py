"""Kernel start-up and cell round-trip time of codemode, as ratios against ipykernel.

    python bench/roundtrip.py [--cells 50] [--runs 3]

Both kernels run in this process's environment, one after the other, in the same run,
so the ratios compare like with like on whatever machine runs it. Measured per kernel:
- start: ``start_kernel`` until the first ``kernel_info_reply`` (median of ``--runs``);
- round trip: an ``execute_request`` that prints one line, until its ``execute_reply``
  (median over ``--cells``), for ``text("x")`` in codemode and ``print("x")`` in python3;
- a tool call (codemode only, no peer): ``await tools.echo({})``.
Prints a table with milliseconds and the codemode/ipykernel ratio. Nothing is asserted:
speed goals are read from here, never from timed test asserts.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from jupyter_client.manager import KernelManager


def _start(kernel_name: str) -> tuple[KernelManager, object, float]:
    started = time.perf_counter()
    km = KernelManager(kernel_name=kernel_name)
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=60)
    return km, kc, time.perf_counter() - started


def _roundtrip(kc, code: str) -> float:
    started = time.perf_counter()
    msg_id = kc.execute(code)
    while True:
        reply = kc.get_shell_msg(timeout=60)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    elapsed = time.perf_counter() - started
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"{code!r} failed: {reply['content']}")
    return elapsed


def measure(kernel_name: str, code: str, cells: int, runs: int) -> dict[str, float]:
    """Median start-up and round-trip seconds of ``kernel_name`` running ``code``."""
    starts, trips = [], []
    for _ in range(runs):
        km, kc, start_s = _start(kernel_name)
        starts.append(start_s)
        try:
            _roundtrip(kc, code)  # warm-up
            trips.extend(_roundtrip(kc, code) for _ in range(cells))
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=False)
    return {"start": statistics.median(starts), "roundtrip": statistics.median(trips)}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)

    peer = measure("python3", 'print("x")', args.cells, args.runs)
    ours = measure("codemode", 'text("x")', args.cells, args.runs)
    tool = measure("codemode", "await tools.echo({})", args.cells, 1)["roundtrip"]

    print(f"{'metric':<22}{'codemode ms':>14}{'ipykernel ms':>14}{'ratio':>8}")
    for key in ("start", "roundtrip"):
        print(f"{key:<22}{ours[key] * 1e3:>14.1f}{peer[key] * 1e3:>14.1f}{ours[key] / peer[key]:>8.2f}")
    print(f"{'tool call (echo)':<22}{tool * 1e3:>14.1f}{'-':>14}{'-':>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
