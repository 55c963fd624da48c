"""Every headless notebook runner runs a slow cell to its end (:mod:`codemode.kernel.headless`).

The notebook: cell 1 sleeps longer than its default yield (300 ms, from the ``codemode.toml``
beside it) and stores 42; cell 2 loads it and prints it. nbclient (in this process), papermill,
``jupyter nbconvert --execute``, nbval (``pytest --nbval``, comparing with the outputs saved
in the notebook) and ``python -m codemode run`` each run it (the command-line runners side by
side): cell 2 must print 42 and cell 1's final output must be saved. A notebook whose last
cell leaves a yielded cell running fails ``codemode run`` naming that cell, and a ``%finished``
last cell fails any runner. ``jupyter console``, JupyterLab and the Kernel Gateway are pinned
in their own tests (``test_kernel_lifecycle.py``, ``test_jupyterlab.py``, ``test_gateway.py``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

pytestmark = pytest.mark.timeout(180)

BIN = Path(sys.executable).parent
SLOW_CELL = 'await tools.sleep({ms: 1000});\nstore("answer", 42);\ntext("stored");'
LOAD_CELL = 'text(load("answer"));'


def _notebook(folder: Path, *sources: str, outputs: list[str] | None = None) -> Path:
    """``folder/in.ipynb`` with one code cell per source (``outputs``: each cell's saved
    stdout, for nbval), beside a ``codemode.toml`` whose default yield is 300 ms."""
    folder.mkdir(exist_ok=True)
    (folder / "codemode.toml").write_text("[session]\nyield_time_ms = 300\n")
    cells = [new_code_cell(source) for source in sources]
    for count, (cell, text) in enumerate(zip(cells, outputs or [], strict=False), start=1):
        cell.execution_count = count
        cell.outputs = [new_output("stream", name="stdout", text=text)]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "codemode", "display_name": "Code Mode (JavaScript)", "language": "javascript"}
    path = folder / "in.ipynb"
    nbformat.write(nb, path)
    return path


def _stdout_of(path: Path) -> list[list[str]]:
    """Each code cell's outputs of the notebook at ``path``, as ``output_type:text``."""
    return [
        [f"{o['output_type']}:{o.get('text', o.get('data', {}).get('text/plain', ''))}" for o in cell.outputs]
        for cell in nbformat.read(path, as_version=4).cells
    ]


RUNNERS = {
    "papermill": lambda nb, out: [str(BIN / "papermill"), str(nb), str(out), "-k", "codemode", "--cwd", str(nb.parent)],
    "nbconvert": lambda nb, out: [
        sys.executable,
        "-m",
        "jupyter",
        "nbconvert",
        "--to",
        "notebook",
        "--execute",
        str(nb),
        "--output",
        str(out),
    ],
    "codemode run": lambda nb, out: [sys.executable, "-m", "codemode", "run", str(nb), "--save-to", str(out)],
    "nbval": lambda nb, out: [sys.executable, "-m", "pytest", "--nbval", str(nb), "-p", "no:cacheprovider", "-q"],
}
"""Each command-line runner's command for the notebook ``nb``, saving to ``out`` (nbval saves
nothing: it compares the outputs with those saved in the notebook)."""


def test_every_headless_runner_runs_the_slow_cell_to_its_end(tmp_path):
    expected = [["stream:stored\n"], ["stream:42\n"]]
    started = {}
    for name, command in RUNNERS.items():
        folder = tmp_path / name.replace(" ", "-")
        source = _notebook(folder, SLOW_CELL, LOAD_CELL, outputs=["stored\n", "42\n"])
        out = folder / "out.ipynb"
        proc = subprocess.Popen(command(source, out), cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        started[name] = (proc, out)

    from nbclient import NotebookClient

    source = _notebook(tmp_path / "nbclient", SLOW_CELL, LOAD_CELL)
    nb = nbformat.read(source, as_version=4)
    NotebookClient(nb, kernel_name="codemode", resources={"metadata": {"path": str(source.parent)}}).execute()
    nbformat.write(nb, source.parent / "out.ipynb")
    assert _stdout_of(source.parent / "out.ipynb") == expected

    for name, (proc, out) in started.items():
        output, _ = proc.communicate(timeout=150)
        assert proc.returncode == 0, f"{name}:\n{output.decode(errors='replace')}"
        if name != "nbval":
            assert _stdout_of(out) == expected, name


def test_a_run_ending_with_a_yielded_cell_still_running_fails_naming_it(tmp_path):
    yielding = '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 5000});'
    source = _notebook(tmp_path / "run", 'store("x", 1);', yielding)
    done = subprocess.run(
        [sys.executable, "-m", "codemode", "run", str(source)], capture_output=True, text=True, timeout=150
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.endswith(
        "\nThe run failed:\ncell 2 (In [2]: `await tools.sleep({ms: 5000});`) yielded and was still running "
        "when the notebook's last cell had run. Wait for it in a later cell (%wait 2), or let the cell run to "
        "its end: no yield_time_ms in its pragma, no yield_control().\n"
    )

    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(_notebook(tmp_path / "finished", yielding, "%finished"), as_version=4)
    with pytest.raises(CellExecutionError) as raised:
        NotebookClient(nb, kernel_name="codemode", resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert "CellsStillRunning: cell 1 (In [1]: `await tools.sleep({ms: 5000});`) yielded" in str(raised.value)
