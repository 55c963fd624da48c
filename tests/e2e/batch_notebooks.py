"""What the batch tests (``test_batch_run.py``, ``test_batch_dask.py``) share: small notebooks
on the ``codemode`` kernel, a cell that hangs, and the kernels running under a process."""

from __future__ import annotations

from pathlib import Path

import nbformat
import psutil
from e2e_servers import alive, cmdline
from nbformat.v4 import new_code_cell, new_notebook

HANG = '// @exec: {"yield_time_ms": 600000}\nawait new Promise(() => {});'
"""A cell that never ends and, with a yield time far past any limit, never yields either."""


def write_notebook(path: Path, *sources: str) -> Path:
    """A notebook of one code cell per source at ``path`` (its folder made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nb = new_notebook(cells=[new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": "codemode", "display_name": "Code Mode (JavaScript)", "language": "javascript"}
    nbformat.write(nb, path)
    return path


def marker_then_hang(folder: Path, name: str) -> Path:
    """A notebook in ``folder`` whose first cell writes ``folder/started`` (and shows
    ``started``) and whose second hangs."""
    write = f'await tools.write_file({{path: {str(folder / "started")!r}, content: "yes"}}); text("started")'
    return write_notebook(folder / name, write, HANG)


def kernels_under(process: psutil.Process) -> list[psutil.Process]:
    """The live codemode kernels among ``process``'s descendants."""
    try:
        children = process.children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [child for child in children if "-m codemode.kernel" in cmdline(child) and alive(child)]
