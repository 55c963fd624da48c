"""papermill runs codemode notebooks with parameters (the package's translator), for real."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

pytestmark = pytest.mark.timeout(180)

PAPERMILL = Path(sys.executable).parent / "papermill"


def _notebook(path: Path) -> Path:
    parameters = new_code_cell('store("city", "Paris");  // where\nstore("days", 1);')
    parameters.metadata["tags"] = ["parameters"]
    use = new_code_cell('text(`${load("city")} for ${load("days") + 1} days`);\ntext(JSON.stringify(load("options")))')
    nb = new_notebook(cells=[parameters, use])
    nb.metadata["kernelspec"] = {"name": "codemode", "display_name": "Code Mode (JavaScript)", "language": "javascript"}
    nbformat.write(nb, path)
    return path


def _papermill(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(PAPERMILL), *args], capture_output=True, text=True, timeout=150)


def test_parameters_are_stored_for_the_cells(tmp_path):
    source = _notebook(tmp_path / "in.ipynb")
    out = tmp_path / "out.ipynb"
    done = _papermill(
        str(source),
        str(out),
        "-k",
        "codemode",
        "--cwd",
        str(tmp_path),
        "-p",
        "city",
        'Berlin "Mitte" ü',
        "-p",
        "days",
        "3",
        "-y",
        "options: {metric: true, langs: [de, en]}",
    )
    assert done.returncode == 0, done.stderr
    cells = nbformat.read(out, as_version=4).cells
    injected = cells[1]
    assert injected.metadata["tags"] == ["injected-parameters"]
    assert injected.source == (  # papermill puts the -y parameters first
        "// Parameters\n"
        'store("options", {"metric": true, "langs": ["de", "en"]});\n'
        'store("city", "Berlin \\"Mitte\\" ü");\n'
        'store("days", 3);\n'
    )
    assert [o["text"] for o in cells[2].outputs] == [
        'Berlin "Mitte" ü for 4 days\n{"metric":true,"langs":["de","en"]}\n'
    ]
    # The parameters cell declares city and days; only options is unknown to it.
    assert "Passed unknown parameter: options" in done.stderr
    assert "Passed unknown parameter: city" not in done.stderr
    assert "does not support parameter introspection" not in done.stderr


def test_help_notebook_lists_the_parameters_cell(tmp_path):
    done = _papermill("--help-notebook", str(_notebook(tmp_path / "in.ipynb")))
    assert done.returncode == 0, done.stderr
    listing = [line.strip() for line in done.stdout.split("inferred for notebook", 1)[1].splitlines()[1:]]
    assert listing == ['city: string (default "Paris")', "where", "days: number (default 1)"]
