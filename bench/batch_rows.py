"""The batch rows: many notebooks through ``python -m codemode run DIR --jobs N``.

A folder holds :func:`notebook_count` small notebooks (two cells: ``store`` then ``load`` and
``text``, on the ``codemode`` kernel). codemode's side runs the whole folder with one command at
``--jobs 1`` (row ``batch-1``) or ``--jobs`` the machine's cores (row ``batch-n``); the peer is
what a CI script does without it, papermill run once per notebook in a shell loop (``for nb in
DIR/*.ipynb; do papermill --no-progress-bar "$nb" OUT/...; done``), on the same kernel. A sample is the wall
time of the whole folder; the notes give notebooks per minute. A run whose summary does not say
that every notebook passed, or a loop that did not write every output notebook, is lossy.

``CODEMODE_BENCH_NOTEBOOKS`` sets the count (default :data:`NOTEBOOKS`; a few, to check the
rows work).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.rows import Goal, Lossy, Row, Side

NOTEBOOKS = 50
"""Notebooks in the batch, as the issue asks of ``bench/``."""


def notebook_count() -> int:
    """``CODEMODE_BENCH_NOTEBOOKS`` or :data:`NOTEBOOKS`."""
    return int(os.environ.get("CODEMODE_BENCH_NOTEBOOKS", NOTEBOOKS))


def write_notebooks(folder: Path, count: int) -> None:
    """``count`` two-cell notebooks ``nb000.ipynb``... in ``folder``."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    folder.mkdir(parents=True, exist_ok=True)
    for index in range(count):
        nb = new_notebook(cells=[new_code_cell(f'store("n", {index})'), new_code_cell('text(load("n") + 1)')])
        nb.metadata["kernelspec"] = {"name": "codemode", "display_name": "Code Mode", "language": "javascript"}
        nbformat.write(nb, folder / f"nb{index:03d}.ipynb")


def _per_minute(count: int, seconds: list[float]) -> str:
    best = sorted(seconds)[len(seconds) // 2] if seconds else float("nan")
    return f"{count / best * 60:.1f} notebooks per minute (median of {len(seconds)})"


class CodemodeBatch(Side):
    """``python -m codemode run FOLDER --jobs N``."""

    def __init__(self, folder: Path, jobs: int, count: int) -> None:
        self.folder, self.jobs, self.count = folder, jobs, count
        self.seconds: list[float] = []

    def sample(self, size: int) -> float:
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "codemode", "run", str(self.folder), "--jobs", str(self.jobs), "--timeout", "300"],
            capture_output=True,
            text=True,
        )
        seconds = time.perf_counter() - started
        expected = f"{self.count} notebooks: {self.count} passed, 0 failed"
        if done.returncode != 0 or expected not in done.stdout:
            raise Lossy(f"codemode run --jobs {self.jobs}: {done.stdout[-500:]}{done.stderr[-500:]}")
        self.seconds.append(seconds)
        return seconds

    def notes(self) -> list[str]:
        return [f"codemode `run --jobs {self.jobs}`: {_per_minute(self.count, self.seconds)}"]


class PapermillLoop(Side):
    """papermill once per notebook, in a shell loop."""

    def __init__(self, folder: Path, out: Path, count: int) -> None:
        self.folder, self.out, self.count = folder, out, count
        self.seconds: list[float] = []

    def sample(self, size: int) -> float:
        shutil.rmtree(self.out, ignore_errors=True)
        self.out.mkdir()
        papermill = Path(sys.executable).with_name("papermill")
        script = (
            f'for nb in "$1"/*.ipynb; do "{papermill}" --no-progress-bar "$nb" "$2/$(basename "$nb")" || exit 1; done'
        )
        started = time.perf_counter()
        done = subprocess.run(["bash", "-c", script, "loop", str(self.folder), str(self.out)], capture_output=True)
        seconds = time.perf_counter() - started
        written = len(list(self.out.glob("*.ipynb")))
        if done.returncode != 0 or written != self.count:
            raise Lossy(f"the papermill loop wrote {written} of {self.count}: {done.stderr[-500:]!r}")
        self.seconds.append(seconds)
        return seconds

    def notes(self) -> list[str]:
        return [f"papermill loop: {_per_minute(self.count, self.seconds)}"]


def _cores() -> int:
    from codemode.batch.command import default_jobs

    return default_jobs()


def _setup(jobs: int) -> Callable[[contextlib.ExitStack, bool], tuple[Side, Side | None]]:
    def setup(stack: contextlib.ExitStack, with_peer: bool) -> tuple[Side, Side | None]:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="codemode-bench-batch-")))
        count = notebook_count()
        write_notebooks(root / "notebooks", count)
        peer = PapermillLoop(root / "notebooks", root / "papermill-out", count) if with_peer else None
        return CodemodeBatch(root / "notebooks", jobs, count), peer

    return setup


def _row(name: str, jobs: int) -> Row:
    return Row(
        name=name,
        path=f"a folder of small notebooks, --jobs {jobs}",
        ours=f"`python -m codemode run DIR --jobs {jobs}`",
        peer="`papermill` once per notebook in a shell loop",
        goal=Goal(1.0),
        setup=_setup(jobs),
    )


BATCH_1 = _row("batch-1", 1)
BATCH_N = _row("batch-n", _cores())
