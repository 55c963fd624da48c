"""``python -m bench``: every path of the speed issue against its peer, in one run.

    python -m bench [--pairs 7] [--rows start,cell,...] [--output docs/benchmarks.md | -]

Run from the repository root in the test venv, with ``$CODEMODE_REFERENCE_HOST`` naming Codex's
host for the host rows. Prints the machine's load, then the tables (see :mod:`bench.report`),
and writes them to ``--output`` (``-``: print only). Progress goes to stderr. Exits 1 when a row
failed or lost output, else 0 (a missing peer is said in the table, not an error).
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

from bench import batch_rows, host_rows, kernel_rows, machine, replay_rows
from bench.kernels import DENO_KERNEL, LOG
from bench.report import RunInfo, document
from bench.rows import Row, run_row

ROWS: tuple[Row, ...] = (
    kernel_rows.start_row(),
    kernel_rows.cell_row(),
    host_rows.HOST_START,
    host_rows.TEXT,
    host_rows.TOOL,
    kernel_rows.SLEEPS,
    kernel_rows.LINES,
    kernel_rows.MEMORY,
    kernel_rows.start_row(DENO_KERNEL),
    kernel_rows.cell_row(DENO_KERNEL),
    replay_rows.REPLAY,
)
"""Every row in the issue's order; ``start-deno`` and ``cell-deno`` have Deno's kernel as the
peer; ``replay`` (issue 26) converts a Codex session file."""
NAMED_ROWS: tuple[Row, ...] = (batch_rows.BATCH_1, batch_rows.BATCH_N)
"""Rows run only when ``--rows`` names them: ``batch-1`` and ``batch-n`` (issue 27) run a folder
of 50 notebooks against a papermill loop, minutes per pair."""
DEFAULT_PAIRS = 7
DEFAULT_OUTPUT = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"


def _rows(names: str | None) -> list[Row]:
    if not names:
        return list(ROWS)
    known = {row.name: row for row in (*ROWS, *NAMED_ROWS)}
    wanted = [name.strip() for name in names.split(",") if name.strip()]
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise SystemExit(f"unknown rows: {', '.join(unknown)}; rows are {', '.join(known)}")
    return [known[name] for name in wanted]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=DEFAULT_PAIRS, help=f"pairs per row (default {DEFAULT_PAIRS})")
    names = ", ".join(row.name for row in (*ROWS, *NAMED_ROWS))
    parser.add_argument("--rows", help=f"comma-separated subset of: {names} (the batch rows only when named)")
    parser.add_argument("--output", default=str(DEFAULT_OUTPUT), help="Markdown file to write, - to print only")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error("--pairs must be at least 1")
    rows = _rows(args.rows)

    command = "python -m bench"
    if args.rows:
        command += f" --rows {','.join(row.name for row in rows)}"
    if args.pairs != DEFAULT_PAIRS:
        command += f" --pairs {args.pairs}"
    load_start = machine.load()
    print(f"load average at start: {load_start}", flush=True)
    print(f"(kernels' own output: {LOG})", file=sys.stderr, flush=True)
    results = []
    for row in rows:
        print(f"{row.name}: {row.path}", file=sys.stderr, flush=True)
        results.append(run_row(row, args.pairs))
    load_end = machine.load()
    print(f"load average at end:   {load_end}\n", flush=True)

    info = RunInfo(
        command=command,
        date=datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z"),
        machine=machine.describe(),
        load_start=load_start,
        load_end=load_end,
        pairs=args.pairs,
    )
    text = document(results, info)
    print(text, end="")
    if args.output != "-":
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"\nwritten to {args.output}")
    return 1 if any(result.failure or result.lossy for result in results) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
