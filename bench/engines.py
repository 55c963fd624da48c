"""QuickJS, V8 and Codex's host side by side on CPU-bound cells, as per-round ratios.

    CODEMODE_REFERENCE_HOST=<codex-code-mode-host of @openai/codex@0.171.0> python -m bench.engines [--rounds 9]

Hosts: codemode's host on QuickJS and on V8 (``codemode.host.default_host_command(engine)``,
the command the kernel runs) and, when ``CODEMODE_REFERENCE_HOST`` is set, Codex's host;
without it only the two engines are compared. All are driven by the project's client
(``CodeModeSession``, :mod:`bench.hosts`) in one process, with one session per host kept across the rounds.

Each round runs every cell once on every host, in an order reversed every other round
(:func:`bench.pairing.order`), so in every pair A and B alternate which runs first; a pair's
ratio (QuickJS / Codex, V8 / Codex, V8 / QuickJS) is taken within one round; min and median over the rounds are printed, with the median milliseconds
of each host and the machine's load average (``os.getloadavg``) at start and end.

The time of a cell is the client's wall clock from ``session.execute`` to the cell's
``Result`` (:func:`bench.hosts.run_cell`), so it includes a round trip of the protocol
(the ``trivial`` row shows how much); ``start`` is spawning a host and answering its first
cell. Each sized cell also runs at a fifth of its size, and its growth is the slope between
the two sizes' medians (per step, per MB of 10^6 bytes, per million numbers; sorting grows
as n log n, so its figure holds near these sizes). The cells build their own data, and that
is part of what is timed. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass

from bench import machine
from bench.hosts import NO_YIELD, codemode_host, host_session, host_start, reference_host, run_cell
from bench.pairing import order, ratio_text, slope

SMALL = 5
"""The second size of a cell is its full size divided by this."""
_ROW = {"id": 0, "name": "item 0", "tags": ["alpha", "beta", "gamma"], "score": 0, "ok": True}
_LINE = "user42 mailed alice.smith@example.com about order 12345 on 2024-05-06\n"


@dataclass(frozen=True)
class Cell:
    """One benchmark cell at one size: ``source(size)`` is its JavaScript; ``amount(size)``
    is the work in ``unit`` (for the growth), ``scale`` turns ms per unit into the printed one."""

    name: str
    size: int
    source: Callable[[int], str]
    amount: Callable[[int], float]
    growth_unit: str
    scale: float

    def at(self, size: int) -> Cell:
        return Cell(self.name, size, self.source, self.amount, self.growth_unit, self.scale)

    @property
    def label(self) -> str:
        return f"{self.name} {_describe(self.name, self.size, self.amount(self.size))}"


def _describe(name: str, size: int, amount: float) -> str:
    if name in ("loop", "sort"):
        return f"{size / 1e6:g} M"
    return f"{amount:.1f} MB"


@functools.cache
def _json_bytes(rows: int) -> float:
    """MB of ``JSON.stringify`` of the JSON cell's rows (the same text Python writes here)."""
    text = json.dumps(
        [{**_ROW, "id": i, "name": f"item {i}", "score": i % 1000, "ok": i % 2 == 0} for i in range(rows)],
        separators=(",", ":"),
    )
    return len(text) / 1e6


CELLS = (
    Cell(
        "loop",
        10_000_000,
        lambda n: f"let s = 0; for (let i = 0; i < {n}; i++) s += i % 7; text(s);",
        lambda n: n,
        "ns/step",
        1e6,
    ),
    Cell(
        "json",
        60_000,
        lambda n: (
            f"const rows = []; for (let i = 0; i < {n}; i++) rows.push({{id: i, name: 'item ' + i, "
            "tags: ['alpha', 'beta', 'gamma'], score: i % 1000, ok: i % 2 === 0}); "
            "const s = JSON.stringify(rows); const back = JSON.parse(s); text(s.length + ' ' + back.length);"
        ),
        _json_bytes,
        "ms/MB",
        1.0,
    ),
    Cell(
        "sort",
        1_000_000,
        lambda n: (
            f"let x = 1; const a = []; for (let i = 0; i < {n}; i++) {{ x = (x * 48271) % 2147483647; a.push(x); }} "
            "a.sort((p, q) => p - q); text(a[0] + ' ' + a[a.length - 1]);"
        ),
        lambda n: n / 1e6,
        "ms/M numbers",
        1.0,
    ),
    Cell(
        "regex",
        57_000,
        lambda n: (
            f"const s = {json.dumps(_LINE)}.repeat({n}); "
            r"const m = s.match(/\b[\w.]+@[\w.]+\.\w+\b/g).length; const r = s.replace(/\d+/g, '#').length; "
            "text(s.length + ' ' + m + ' ' + r);"
        ),
        lambda n: len(_LINE) * n / 1e6,
        "ms/MB",
        1.0,
    ),
    Cell(
        "text()",
        5_000_000,
        lambda n: f"text('x'.repeat({n}));",
        lambda n: n / 1e6,
        "ms/MB",
        1.0,
    ),
)
TRIVIAL = "text(1)"
PAIRS = (("quickjs", "codex"), ("v8", "codex"), ("v8", "quickjs"))


def commands() -> dict[str, list[str]]:
    """The hosts by name: ``quickjs``, ``v8`` and, with ``CODEMODE_REFERENCE_HOST``, ``codex``."""
    hosts = {engine: codemode_host(engine) for engine in ("quickjs", "v8")}
    reference = reference_host()
    if reference:
        hosts["codex"] = reference
    return hosts


async def measure(hosts: dict[str, list[str]], rounds: int) -> dict[str, dict[str, list[float]]]:
    """Seconds per row label, per host, one value per round (see the module docstring)."""
    cells = [(cell.label, cell.source(cell.size)) for full in CELLS for cell in (full, full.at(full.size // SMALL))]
    times: dict[str, dict[str, list[float]]] = {}
    async with contextlib.AsyncExitStack() as stack:
        sessions = {name: await stack.enter_async_context(host_session(cmd, NO_YIELD)) for name, cmd in hosts.items()}
        for session in sessions.values():  # warm-up: the host is spawned, every cell runs once
            for _, source in [("trivial", TRIVIAL), *cells]:
                await run_cell(session, source)
        names = list(hosts)
        for index in range(rounds):
            for name in order(names, index):
                times.setdefault("start", {}).setdefault(name, []).append(await host_start(hosts[name], NO_YIELD))
            for label, source in [("trivial", TRIVIAL), *cells]:
                for name in order(names, index):
                    times.setdefault(label, {}).setdefault(name, []).append(await run_cell(sessions[name], source))
            print(f"round {index + 1}/{rounds} done", file=sys.stderr, flush=True)
    return times


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.1f}"


def report(times: dict[str, dict[str, list[float]]], names: list[str]) -> list[str]:
    """The printed tables: median ms per host, ratio min / median per pair, growth per host."""
    pairs = [pair for pair in PAIRS if set(pair) <= set(names)]
    header = f"{'cell':<18}" + "".join(f"{name + ' ms':>12}" for name in names)
    header += "".join(f"{f'{a}/{b} min/med':>22}" for a, b in pairs)
    lines = [header]
    for label, per_host in times.items():
        row = f"{label:<18}" + "".join(f"{_ms(per_host[name]):>12}" for name in names)
        row += "".join(f"{ratio_text(per_host[a], per_host[b]):>22}" for a, b in pairs)
        lines.append(row)
    lines += ["", f"{'growth':<26}" + "".join(f"{name:>12}" for name in names)]
    for full in CELLS:
        small = full.at(full.size // SMALL)
        row = f"{full.name + ' (' + full.growth_unit + ')':<26}"
        for name in names:
            big_s = statistics.median(times[full.label][name])
            small_s = statistics.median(times[small.label][name])
            per_unit = slope((full.amount(small.size), small_s), (full.amount(full.size), big_s)) * 1e3
            row += f"{per_unit * full.scale:>12.2f}"
        lines.append(row)
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="rounds, i.e. pairs per ratio (default 9)")
    args = parser.parse_args(argv)
    hosts = commands()
    print(f"machine: {machine.describe()}")
    print(f"load average at start: {machine.load()}")
    times = asyncio.run(measure(hosts, args.rounds))
    print(f"load average at end:   {machine.load()}")
    print(f"{args.rounds} rounds; time = execute to Result on the client's clock; ratio < 1: the first is faster\n")
    print("\n".join(report(times, list(hosts))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
