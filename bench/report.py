"""The text ``python -m bench`` prints and writes to ``docs/benchmarks.md``: Markdown tables."""

from __future__ import annotations

from dataclasses import dataclass

from bench.rows import RowResult

INTRO = """\
# Benchmarks

Speed of codemode on the paths of the speed issue, each against a peer doing the same work on
the same machine in the same run: ipykernel's `python3` kernel for the kernel paths, Codex's own
runtime host for the host paths (the `codex-code-mode-host` program of the npm package
`@openai/codex@0.171.0`: `npm install --prefix /tmp/codex @openai/codex@0.171.0`, then
`CODEMODE_REFERENCE_HOST=/tmp/codex/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex-code-mode-host`),
and Deno's kernel (`deno jupyter`) as a second peer of the first two rows when `deno` is on `PATH`.
In each row codemode (A) and its peer (B) alternate, A then B, then B then A, and so on; a
pair's ratio is codemode / peer (< 1: codemode is faster or leaner), and the table gives both
medians and the min / median of the per-pair ratios. A row whose peer is missing says so and has
no ratio. Nothing here is asserted in tests (`tests/test_bench.py` only checks that the command
runs and writes a ratio); `bench/README.md` says what each row measures.
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
    return "\n".join(parts) + "\n"
