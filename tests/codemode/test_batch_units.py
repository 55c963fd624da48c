"""The batch runner's pure parts: which files arguments name, the summary and the JUnit XML."""

from __future__ import annotations

import io
import pickle
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from codemode.batch.inputs import UsageError, files_named, names_one_file, targets
from codemode.batch.job import Job, Outcome
from codemode.batch.report import counts_line, junit_xml, print_summary

pytestmark = pytest.mark.unit

OUTCOMES = [
    Outcome("a.ipynb", "passed", 1.25),
    Outcome("b.ipynb", "failed", 2.0, "TypeError: bad input"),
    Outcome("c.jsonl", "diverged", 3.5, "4 cells: 2 same, 1 differ, 1 not run"),
    Outcome("d.ipynb", "timed out", 30.0, "The notebook ran longer than the time limit of 30 s"),
    Outcome("e.ipynb", "stopped", 0.0, "the batch was stopped before this run ended"),
]


def test_jobs_and_outcomes_cross_processes_as_pickles():
    job = Job("run", "/tmp/x.ipynb", "x.ipynb", 12.5)
    outcome = Outcome("x.ipynb", "passed", 1.0, "", "text", b'{"cells": []}', {"summary": {}})
    assert pickle.loads(pickle.dumps(job)) == job
    assert pickle.loads(pickle.dumps(outcome)) == outcome


def test_the_count_line_names_every_status_and_stopped_only_when_one_was():
    assert counts_line(OUTCOMES, "notebook") == "5 notebooks: 1 passed, 1 failed, 1 diverged, 1 timed out, 1 stopped"
    assert counts_line(OUTCOMES[:1], "session") == "1 session: 1 passed, 0 failed, 0 diverged, 0 timed out"


def test_the_summary_is_a_row_per_run_then_each_reason_then_the_counts():
    out = io.StringIO()
    print_summary(OUTCOMES, "notebook", out)
    assert out.getvalue().splitlines() == [
        " " * 34,
        "  notebook   status      seconds  ",
        " " + "─" * 32 + " ",
        "  a.ipynb    passed          1.2  ",
        "  b.ipynb    failed          2.0  ",
        "  c.jsonl    diverged        3.5  ",
        "  d.ipynb    timed out      30.0  ",
        "  e.ipynb    stopped         0.0  ",
        " " * 34,
        "── b.ipynb: failed",
        "TypeError: bad input",
        "── c.jsonl: diverged",
        "4 cells: 2 same, 1 differ, 1 not run",
        "── d.ipynb: timed out",
        "The notebook ran longer than the time limit of 30 s",
        "5 notebooks: 1 passed, 1 failed, 1 diverged, 1 timed out, 1 stopped",
    ]


def test_junit_has_a_case_per_run_with_failures_errors_and_skips_counted():
    suite = ET.fromstring(junit_xml(OUTCOMES, "codemode run"))[0]
    assert dict(suite.attrib) == {
        "name": "codemode run",
        "tests": "5",
        "failures": "2",
        "errors": "1",
        "skipped": "1",
        "time": "36.750",
    }
    assert [(c.get("name"), c.get("time"), [(e.tag, e.get("message"), e.text) for e in c]) for c in suite] == [
        ("a.ipynb", "1.250", []),
        ("b.ipynb", "2.000", [("failure", "failed", "TypeError: bad input")]),
        ("c.jsonl", "3.500", [("failure", "diverged", "4 cells: 2 same, 1 differ, 1 not run")]),
        ("d.ipynb", "30.000", [("error", "timed out", "The notebook ran longer than the time limit of 30 s")]),
        ("e.ipynb", "0.000", [("skipped", "stopped", "the batch was stopped before this run ended")]),
    ]


def test_paths_folders_and_globs_name_each_file_once_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("b.ipynb", "a.ipynb", "sub/c.ipynb", "sub/d.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("{}")
    found = files_named(["sub/c.ipynb", ".", "*.ipynb", "**/*.ipynb"], ".ipynb", "notebook")
    assert [str(p) for p in found] == ["sub/c.ipynb", "a.ipynb", "b.ipynb"]
    assert names_one_file(["a.ipynb"]) and not names_one_file(["sub"]) and not names_one_file(["a.ipynb", "b.ipynb"])
    assert not names_one_file(["*.ipynb"])
    with pytest.raises(UsageError, match=r"^The folder sub holds no notebook \(\*\.jsonl\)\.$"):
        files_named(["sub"], ".jsonl", "notebook")
    with pytest.raises(UsageError, match=r"^No file matches x\*\.ipynb\.$"):
        files_named(["x*.ipynb"], ".ipynb", "notebook")
    with pytest.raises(UsageError, match=r"^missing\.ipynb does not exist\.$"):
        files_named(["missing.ipynb"], ".ipynb", "notebook")


def test_several_outputs_go_into_a_folder_and_may_not_share_a_name(tmp_path):
    files = [tmp_path / "x" / "a.ipynb", tmp_path / "y" / "b.ipynb"]
    assert targets(files, "out", True, "notebooks", "--save-to") == {
        files[0]: Path("out/a.ipynb"),
        files[1]: Path("out/b.ipynb"),
    }
    with pytest.raises(UsageError, match=r"^2 notebooks need a folder for --save-to, not the notebook o\.ipynb\.$"):
        targets(files, "o.ipynb", True, "notebooks", "--save-to")
    with pytest.raises(UsageError, match="would both be written to out/a.ipynb"):
        targets([files[0], tmp_path / "y" / "a.ipynb"], "out", True, "notebooks", "--save-to")


def test_a_notebooks_time_limit_is_shared_by_its_cells(monkeypatch):
    """``--timeout`` bounds the whole notebook: each cell may run what is left (at least 1 s)."""
    import codemode.notebook as notebook

    now = [1000.0]
    monkeypatch.setattr(notebook.time, "monotonic", lambda: now[0])
    cell_limit = notebook.time_left(30)
    assert cell_limit(None) == 30
    now[0] += 12.5
    assert cell_limit(None) == 18
    now[0] += 17.9
    assert cell_limit(None) == 1
    now[0] += 100
    assert cell_limit(None) == 1
