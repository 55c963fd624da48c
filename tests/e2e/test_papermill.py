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


def _notebook(
    path: Path,
    parameters_source: str = 'store("city", "Paris");  // where\nstore("days", 1);',
    use_source: str = 'text(`${load("city")} for ${load("days") + 1} days`);\ntext(JSON.stringify(load("options")))',
    kernel: str = "codemode",
) -> Path:
    parameters = new_code_cell(parameters_source)
    parameters.metadata["tags"] = ["parameters"]
    nb = new_notebook(cells=[parameters, new_code_cell(use_source)])
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": "Code Mode (JavaScript)", "language": "javascript"}
    nbformat.write(nb, path)
    return path


NOTEBOOK_PARAMETERS = 'const city = "Paris";  // where\nstore("days", 1); const days = load("days");'
"""A notebook-profile parameters cell: a declaration, and the injected cell's own form."""


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


def test_in_the_notebook_profile_parameters_are_bindings_and_stored(tmp_path):
    source = _notebook(
        tmp_path / "in.ipynb",
        NOTEBOOK_PARAMETERS,
        'text(`${city} for ${days + 1} days, stored: ${load("city")}, ${load("my-id")}`)',
        kernel="codemode-notebook",
    )
    out = tmp_path / "out.ipynb"
    done = _papermill(
        str(source), str(out), "--cwd", str(tmp_path), "-p", "city", "Berlin", "-p", "days", "3", "-p", "my-id", "7"
    )
    assert done.returncode == 0, done.stderr
    cells = nbformat.read(out, as_version=4).cells
    assert cells[1].source == (
        "// Parameters\n"
        'store("city", "Berlin"); const city = load("city");\n'
        'store("days", 3); const days = load("days");\n'
        'store("my-id", 7);\n'
    )
    assert [o["text"] for o in cells[2].outputs] == ["Berlin for 4 days, stored: Berlin, 7\n"]
    assert "Passed unknown parameter: my-id" in done.stderr
    assert "Passed unknown parameter: city" not in done.stderr


def test_help_notebook_lists_the_notebook_profiles_parameters(tmp_path):
    source = _notebook(tmp_path / "in.ipynb", NOTEBOOK_PARAMETERS, "", kernel="codemode-notebook")
    done = _papermill("--help-notebook", str(source))
    assert done.returncode == 0, done.stderr
    listing = [line.strip() for line in done.stdout.split("inferred for notebook", 1)[1].splitlines()[1:]]
    assert listing == ['city: string (default "Paris")', "where", "days: number (default 1)"]


@pytest.mark.unit
def test_a_parameter_binding_never_hides_a_helper_or_breaks_the_cell():
    import papermill  # noqa: F401  (importing papermill loads the translator through its entry point)

    from codemode.kernel.helpers import HELPER_NAMES, NOTEBOOK_HELPERS
    from codemode.papermill_parameters import UNBOUND_NAMES, binds

    assert HELPER_NAMES | {h.name for h in NOTEBOOK_HELPERS} <= UNBOUND_NAMES
    assert [n for n in ("city", "text", "tools", "display", "class", "my-id", "_x$1", "2nd") if binds(n)] == [
        "city",
        "_x$1",
    ]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("parameters", "held"),
    [
        ({"limit": float("inf")}, "inf"),
        ({"ok": 1, "limit": float("-inf")}, "-inf"),
        ({"ratio": float("nan")}, "nan"),
        ({"ratio": {"a": [1.5, float("nan")]}}, "nan at ratio['a'][1]"),
        ({"ratio": [{"b": float("inf")}]}, "inf at ratio[0]['b']"),
    ],
)
def test_a_number_json_cannot_hold_is_refused_naming_the_parameter(parameters, held):
    """store() keeps JSON: inf and nan became null without a word."""
    from papermill.exceptions import PapermillException

    from codemode.papermill_parameters import CodeModeTranslator, NotebookTranslator

    name = next(n for n in parameters if n != "ok")
    for translator in (CodeModeTranslator, NotebookTranslator):
        with pytest.raises(PapermillException) as info:
            translator.codify(parameters)
        assert str(info.value) == (
            f"Parameter {name!r} holds {held}: JSON, which store() keeps, has no infinity or NaN (it would become "
            "null). Pass a finite number, or the text with -r to store it as a string."
        )
    assert CodeModeTranslator.codify({"limit": 1e308, "text": "inf"}) == (
        '// Parameters\nstore("limit", 1e+308);\nstore("text", "inf");\n'
    )
