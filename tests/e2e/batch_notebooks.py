"""What the batch tests (``test_batch_run.py``, ``test_batch_dask.py``,
``test_enterprise_gateway.py``) share: small notebooks, a cell that hangs, the mixed batch whose
summary every executor must give, and the kernels running under a process."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import psutil
from e2e_servers import alive, cmdline
from nbformat.v4 import new_code_cell, new_notebook

HANG = '// @exec: {"yield_time_ms": 600000}\nawait new Promise(() => {});'
"""A cell that never ends and, with a yield time far past any limit, never yields either."""


def write_notebook(path: Path, *sources: str, kernelspec: str = "codemode") -> Path:
    """A notebook of one code cell per source at ``path`` (its folder made), on the kernelspec
    named ``kernelspec``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nb = new_notebook(cells=[new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": kernelspec, "display_name": "Code Mode (JavaScript)", "language": "javascript"}
    nbformat.write(nb, path)
    return path


def marker_then_hang(
    folder: Path, name: str, *, kernelspec: str = "codemode", marker: Path | None = None, content: str = '"yes"'
) -> Path:
    """A notebook in ``folder`` whose first cell writes ``marker`` (default ``folder/started``)
    holding the JavaScript expression ``content``'s value (and shows ``started``) and whose
    second hangs."""
    marker = marker if marker is not None else folder / "started"
    write = f'await tools.write_file({{path: {str(marker)!r}, content: {content}}}); text("started")'
    return write_notebook(folder / name, write, HANG, kernelspec=kernelspec)


def kernels_under(process: psutil.Process) -> list[psutil.Process]:
    """The live codemode kernels among ``process``'s descendants."""
    try:
        children = process.children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [child for child in children if "-m codemode.kernel" in cmdline(child) and alive(child)]


MIXED_TIMEOUT_S = 20
"""``--timeout`` of the mixed batch: well over what a small notebook takes on a loaded machine,
so only the hanging notebook passes it."""

MIXED_ARGS = ("hang/f_hang.ipynb", "killed/g_killed.ipynb", "notebooks", "--timeout", str(MIXED_TIMEOUT_S))
"""The command's arguments for :func:`mixed_batch`'s notebooks, run from its folder: the two long
runs first, beside the others."""

MIXED_ROWS = [
    ("hang/f_hang.ipynb", "timed out"),
    ("killed/g_killed.ipynb", "failed"),
    ("notebooks/a_text.ipynb", "passed"),
    ("notebooks/b_store.ipynb", "passed"),
    ("notebooks/c_exec.ipynb", "passed"),
    ("notebooks/d_throw.ipynb", "failed"),
    ("notebooks/e_unreadable.ipynb", "failed"),
    ("notebooks/h_error_allowed.ipynb", "passed"),
]
"""The summary's rows (notebook, status) for :func:`mixed_batch` once its killed notebook's
kernel was killed, whatever runs it."""

MIXED_COUNTS = "8 notebooks: 4 passed, 3 failed, 0 diverged, 1 timed out\n"
"""The summary's last line for :func:`mixed_batch`."""

MIXED_DETAILS = (
    "── killed/g_killed.ipynb: failed\nThe kernel died while a cell ran; the cells after it did not run.\n",
    f"── hang/f_hang.ipynb: timed out\nThe notebook ran longer than the time limit of {MIXED_TIMEOUT_S} s and its "
    "running cell was stopped. Raise the limit with --timeout SECONDS if the notebook is meant to run that long.\n",
    "── notebooks/d_throw.ipynb: failed\n",
    "TypeError: bad input",
    "── notebooks/e_unreadable.ipynb: failed\n",
)
"""Texts the summary of :func:`mixed_batch` holds."""


def summary_rows(stdout: str) -> list[tuple[str, str]]:
    """The (notebook, status) rows of a batch's summary table."""
    return re.findall(r"^\s+(\S+\.ipynb)\s+(passed|failed|diverged|timed out|stopped)\s+\d+\.\d\s*$", stdout, re.M)


def mixed_batch(folder: Path, kernelspec: str = "codemode", marker: Path | None = None, content: str = '"yes"') -> Path:
    """The mixed batch of eight notebooks (on the kernelspec ``kernelspec``) under ``folder``:
    ``notebooks/`` holds four that pass (one with a cell tagged ``raises-exception``), one that
    throws and one that is not JSON; ``hang/f_hang.ipynb`` hangs past the time limit and
    ``killed/g_killed.ipynb`` writes ``marker`` (default ``killed/started``; holding the
    JavaScript expression ``content``'s value) then hangs, for the test to kill its kernel.
    Returns the marker's path."""
    runs = folder / "notebooks"
    write_notebook(runs / "a_text.ipynb", "text(1 + 1)", kernelspec=kernelspec)
    write_notebook(runs / "b_store.ipynb", 'store("n", 20)', 'text(load("n") + 22)', kernelspec=kernelspec)
    exec_cell = 'const r = await tools.exec_command({cmd: "echo from-shell"}); text(r.output.trim())'
    write_notebook(runs / "c_exec.ipynb", exec_cell, kernelspec=kernelspec)
    write_notebook(runs / "d_throw.ipynb", 'throw new TypeError("bad input")', 'text("never")', kernelspec=kernelspec)
    (runs / "e_unreadable.ipynb").write_text("this is not JSON")
    write_notebook(folder / "hang" / "f_hang.ipynb", 'text("before")', HANG, 'text("never")', kernelspec=kernelspec)
    marker = marker if marker is not None else folder / "killed" / "started"
    marker_then_hang(folder / "killed", "g_killed.ipynb", kernelspec=kernelspec, marker=marker, content=content)
    allowed = write_notebook(
        runs / "h_error_allowed.ipynb", 'throw new Error("expected")', 'text("passes")', kernelspec=kernelspec
    )
    nb = nbformat.read(allowed, 4)
    nb.cells[0].metadata["tags"] = ["raises-exception"]
    nbformat.write(nb, allowed)
    return marker


def kernel_in(parent: psutil.Process, folder: Path) -> psutil.Process | None:
    """The codemode kernel among ``parent``'s descendants working in ``folder``, if it runs."""
    for process in kernels_under(parent):
        try:
            if process.cwd() == str(folder):
                return process
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return None
