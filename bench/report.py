"""The text ``python -m bench`` prints and writes to ``docs/benchmarks.md``: Markdown tables."""

from __future__ import annotations

from dataclasses import dataclass

from bench.rows import RowResult

INTRO = """\
# Benchmarks

`python -m bench` measures each everyday path of codemode against a peer, in one run.
Run it from the repository root, in the test venv.
`bench/README.md` says how to run it and what each row measures.

Each peer does the same work on the same machine in the same run:

- ipykernel's `python3` kernel, for the kernel paths;
- Codex's own runtime host, for the host paths: the `codex-code-mode-host` program of the npm
  package `@openai/codex@0.171.0`;
- Deno's kernel (`deno jupyter`), as a second peer of the first two rows, when `deno` is on `PATH`.

Codex's host is found through `CODEMODE_REFERENCE_HOST`:

```sh
npm install --prefix /tmp/codex @openai/codex@0.171.0
export CODEMODE_REFERENCE_HOST=/tmp/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex-code-mode-host
```

In each row codemode (A) and its peer (B) alternate: A then B, then B then A, and so on.
A pair's ratio is codemode / peer; below 1, codemode is faster or leaner.
The table gives both medians, and the min and median of the per-pair ratios.
A row whose peer is missing says so and has no ratio.
Nothing here is asserted in tests: `tests/test_bench.py` only checks that the command runs and
writes a ratio.
"""

READING = """\
## Reading the figures

The host rows time a cell through the host alone: Codex's host has no kernel.
Through the kernel, large output reaches a Jupyter client paced at about 0.5 MB/s (see
[Reliability](reliability.md)).
So a 10 MB `text()` with its output limit raised takes far longer to arrive.

The growth table gives each host's cost per MB of `text()`.
codemode's host sends long texts beside the response's JSON, and the client reads them without
parsing them.
QuickJS builds a long `'x'.repeat(N)` by doubling, as V8 does; the built-in appended one
character at a time.

The `host-start` row is CPython's cost.
No Python host can meet its 2x goal on this machine.
The same run times what any CPython host on QuickJS must do before it can answer, with no
asyncio and no protocol at all.
It must start the interpreter, import `json`, `threading` and the QuickJS binding, and compile
the prelude.
The notes above give that floor, and the interpreter importing `asyncio` and `json` alone.
Compare them with Codex's whole start and first cell, the peer of the `host-start` row.

In a kernel the host starts with the kernel, so a notebook's first cell does not wait for it
(the `start` row).
A resident server forking pre-loaded hosts would start them sooner.
But its hosts would run outside the process tree, cgroup and resource limits of the program
that asked for them.
codemode does not make that trade for a cost paid once per host.
"""


@dataclass(frozen=True)
class RunInfo:
    """When and where the run happened, and the command that reproduces it."""

    command: str
    date: str
    machine: str
    load_start: str
    load_end: str
    pairs: int


def value_text(value: float | None, unit: str) -> str:
    """A median in its printed unit: seconds as ms (precision by size), bytes as B/cell."""
    if value is None:
        return "-"
    if unit == "B":
        return f"{value:,.0f} B/cell"
    ms = value * 1e3
    return f"{ms:,.0f} ms" if ms >= 100 else f"{ms:.1f} ms" if ms >= 10 else f"{ms:.2f} ms"


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table(results: list[RowResult]) -> list[str]:
    """The main table: path | codemode | peer | ratio min / median | pairs | goal."""
    lines = ["| path | codemode | peer | ratio min / median | pairs | goal |", "|---|---|---|---|---|---|"]
    for result in results:
        row = result.row
        found = result.comparison
        ours = value_text(result.ours_median(), row.unit)
        if result.failure:
            peer, ratio, goal = f"failed: {result.failure}", "-", row.goal.text
        elif result.lossy:
            peer, ratio, goal = f"lossy run, no ratio: {result.lossy}", "-", row.goal.text
        elif result.missing or found is None:
            peer, ratio, goal = f"peer missing: {result.missing}", "-", row.goal.text
        else:
            peer = value_text(found.b_median, row.unit)
            ratio = f"{found.ratio_min:.2f} / {found.ratio_median:.2f}"
            goal = f"{row.goal.text} ({'met' if row.goal.met(found) else 'not met'})"
        pairs = str(len(result.samples[row.sizes[-1]][0]))
        lines.append(f"| {_cell(row.path)} (`{row.name}`) | {ours} | {_cell(peer)} | {ratio} | {pairs} | {goal} |")
    return lines


def growth_table(results: list[RowResult]) -> list[str]:
    """How each sized row's cost grows: the slope between its two sizes' medians."""
    lines = ["| path | sizes | codemode | peer | unit |", "|---|---|---|---|---|"]
    for result in results:
        row = result.row
        if row.growth_unit is None:
            continue
        ours, peer = result.growth()
        sizes = " and ".join(row.size_text(size) for size in row.sizes)
        if len(row.sizes) == 1:
            sizes = f"{row.size_text(row.sizes[0])} per sample"
        lines.append(f"| {_cell(row.path)} | {sizes} | {_number(ours)} | {_number(peer)} | {row.growth_unit} |")
    return lines


def sides(results: list[RowResult]) -> list[str]:
    """What codemode and its peer run in each row."""
    return [f"- `{r.row.name}`: codemode {r.row.ours}; peer {r.row.peer}." for r in results]


def document(results: list[RowResult], info: RunInfo) -> str:
    """The whole Markdown text of ``docs/benchmarks.md``."""
    notes = [f"- {note}" for result in results for note in result.notes]
    parts = [
        INTRO,
        f"Produced by `{info.command}` on {info.date}, {info.pairs} pair{'s' if info.pairs != 1 else ''} per row.",
        "",
        f"Machine: {info.machine}. Load average (1, 5, 15 min) at start {info.load_start}, at end {info.load_end}.",
        "",
        *table(results),
        "",
        "Growth with the work (slope between the two sizes' medians; fixed costs have none):",
        "",
        *growth_table(results),
        "",
        "What runs:",
        "",
        *sides(results),
    ]
    if notes:
        parts += ["", "Observed along the way:", "", *notes]
    parts += ["", READING]
    return "\n".join(parts)
