"""``python -m codemode run NOTEBOOK``: the README's main job, on small notebooks made here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

pytestmark = pytest.mark.timeout(180)


def _notebook(path: Path, *sources: str, kernel: str = "codemode") -> Path:
    nb = new_notebook(cells=[new_code_cell(s) for s in sources])
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": "Code Mode (JavaScript)", "language": "javascript"}
    nbformat.write(nb, path)
    return path


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codemode", "run", *args],
        capture_output=True,
        text=True,
        timeout=150,
    )


def test_outputs_are_printed_and_the_notebook_saved(tmp_path):
    path = _notebook(tmp_path / "ok.ipynb", 'store("n", 20); text("first")', 'text(load("n") + 22)')
    saved = tmp_path / "saved.ipynb"
    done = _run(str(path), "--save-to", str(saved))
    assert done.returncode == 0, done.stderr
    rule = "─" * 40
    assert done.stdout == (
        f'── cell 1 {rule}\nstore("n", 20); text("first")\n── output\nfirst\n'
        f'── cell 2 {rule}\ntext(load("n") + 22)\n── output\n42\n'
    )
    outputs = [cell.outputs for cell in nbformat.read(saved, as_version=4).cells]
    assert outputs[1][0]["text"] == "42\n"
    # The kernel's sockets are encrypted (CurveZMQ): its application has nothing to warn about.
    assert "WARNING" not in done.stderr, done.stderr


@pytest.mark.parametrize(("kernel", "engine"), [("codemode-v8", "v8"), ("", "quickjs")])
def test_the_notebooks_codemode_kernelspec_is_used(tmp_path, kernel, engine):
    """A notebook made for ``codemode-v8`` runs on V8; one that names no kernel runs on codemode's
    default (one naming another kernel is refused: :func:`test_a_notebook_of_another_kernel_is_refused`)."""
    path = _notebook(tmp_path / "engine.ipynb", "%config", kernel=kernel)
    done = _run(str(path))
    assert done.returncode == 0, done.stderr
    assert f"\nengine = {engine}\n" in done.stdout


def test_long_sources_are_shortened(tmp_path):
    long_line = 'text("' + "x" * 300 + '")'
    many = "\n".join(f"text({n});" for n in range(1, 21))
    path = _notebook(tmp_path / "long.ipynb", long_line, many)
    done = _run(str(path))
    assert done.returncode == 0, done.stderr
    rule = "─" * 40
    shown_many = "\n".join(
        [*(f"text({n});" for n in range(1, 9)), "… (9 more lines)", "text(18);", "text(19);", "text(20);"]
    )
    outputs = "".join(f"{n}\n" for n in range(1, 21))
    assert done.stdout == (
        f"── cell 1 {rule}\n{long_line[:99]}…\n── output\n{'x' * 300}\n"
        f"── cell 2 {rule}\n{shown_many}\n── output\n{outputs}"
    )


def test_a_failing_cell_stops_the_run_and_later_cells_show_as_not_run(tmp_path):
    path = _notebook(tmp_path / "fail.ipynb", 'throw new TypeError("bad input")', 'text("never")')
    done = _run(str(path))
    assert done.returncode == 1
    rule = "─" * 40
    assert done.stdout == (
        f'── cell 1 {rule}\nthrow new TypeError("bad input")\n── output\nTypeError: bad input\n'
        f'── cell 2 {rule}\ntext("never")\n── not run\n'
        "\nA cell failed:\nAn error occurred while executing the following cell:\n------------------\n"
        'throw new TypeError("bad input")\n------------------\n\n\n'
        "TypeError: bad input\n    at exec_main.mjs:1:7\n\n"
    )


def test_a_cell_over_the_time_limit_is_reported_without_a_traceback(tmp_path):
    path = _notebook(tmp_path / "loop.ipynb", "while (true) {}", 'text("after")')
    done = _run(str(path), "--timeout", "3")
    assert done.returncode == 1
    assert "longer than the time limit of 3 s" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_svg_and_image_displays_are_described_by_their_size(tmp_path):
    """An SVG is text (its size in characters), a PNG base64 (its size in bytes)."""
    path = _notebook(
        tmp_path / "svg.ipynb",
        "svg('<svg a/>')",
        'svg(\'<svg xmlns="http://www.w3.org/2000/svg" width="4"/>\')\nimage("data:image/png;base64,iVBORw0KGgo=")',
        kernel="codemode-notebook",
    )
    saved = tmp_path / "saved.ipynb"
    done = _run(str(path), "--save-to", str(saved))
    assert done.returncode == 0, done.stderr
    assert "── output\n[image/svg+xml, 8 characters]\n" in done.stdout
    assert "── output\n[image/svg+xml, 51 characters]\n[image/png, 8 bytes]\n" in done.stdout
    # The saved notebook (outputs as lists of lines) is described the same way.
    import io

    from codemode.notebook import print_notebook

    out = io.StringIO()
    print_notebook(nbformat.read(saved, as_version=4), out)
    assert out.getvalue() == done.stdout


def test_cells_after_a_failing_one_drop_their_saved_outputs(tmp_path):
    # A notebook saved by an earlier run keeps its later cells' outputs: they are not this run's.
    path = _notebook(tmp_path / "stale.ipynb", 'throw new TypeError("bad input")', 'text("never")', 'text("nor")')
    nb = nbformat.read(path, 4)
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="stale\n")]
    nb.cells[1].execution_count = 2
    nb.cells[2].execution_count = 3  # ran once, showed nothing
    nbformat.write(nb, path)
    saved = tmp_path / "saved.ipynb"
    done = _run(str(path), "--save-to", str(saved))
    assert done.returncode == 1, done.stderr
    rule = "─" * 40
    assert done.stdout.startswith(
        f'── cell 1 {rule}\nthrow new TypeError("bad input")\n── output\nTypeError: bad input\n'
        f'── cell 2 {rule}\ntext("never")\n── not run\n'
        f'── cell 3 {rule}\ntext("nor")\n── not run\n'
        "\nA cell failed:\n"
    ), done.stdout
    cells = nbformat.read(saved, 4).cells
    assert [(c.execution_count, c.outputs) for c in cells[1:]] == [(None, []), (None, [])]


def test_an_unreadable_notebook_could_not_be_run(tmp_path):
    # The reading's variants are unit tests: tests/codemode/test_read_notebook.py.
    path = tmp_path / "bad.ipynb"
    path.write_text('{"cells": 3}')
    done = _run(str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == f"The notebook could not be run: {path} is not a notebook: it has no nbformat version.\n"


def test_a_notebook_of_another_kernel_is_refused(tmp_path):
    path = _notebook(tmp_path / "py.ipynb", "print('hello')", kernel="python3")
    done = _run(str(path))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "The notebook could not be run: The notebook's kernelspec is 'python3', not a codemode kernel "
        "(codemode, codemode-v8, codemode-notebook): run it with its own kernel (jupyter execute), or set its "
        "kernelspec to codemode.\n"
    )
