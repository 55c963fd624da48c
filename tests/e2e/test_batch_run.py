"""``python -m codemode run`` with many notebooks: a pool of kernels, a summary, nothing left running.

The batch mixes notebooks that pass, fail, lose their kernel (killed from here by pid, once its
first cell has written a marker file) and hang past the time limit, and runs them through
``--jobs 2``. The summary is pinned, and afterwards no process started for the batch may be
left: none of the command's descendants seen while it ran, and no process at all whose working
folder is inside the test's folder (each kernel, its runtime host and their commands work in
their notebook's folder). Ctrl-C (``SIGINT`` to the command's process group) mid-batch stops
every kernel the same way, and so does Ctrl-C pressed twice (the second ``SIGINT`` arriving while
the batch stops its runs).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import psutil
import pytest
from batch_notebooks import (
    MIXED_ARGS,
    MIXED_COUNTS,
    MIXED_DETAILS,
    MIXED_ROWS,
    kernel_in,
    marker_then_hang,
    mixed_batch,
    summary_rows,
)
from e2e_servers import alive
from polling import poll_until

pytestmark = pytest.mark.timeout(240)


def _working_in(folder: Path) -> list[psutil.Process]:
    """Live processes whose working folder is ``folder`` or inside it."""
    found = []
    for process in psutil.process_iter():
        try:
            cwd = process.cwd()
        except (psutil.NoSuchProcess, psutil.AccessDenied, FileNotFoundError):
            continue
        if (cwd == str(folder) or cwd.startswith(f"{folder}/")) and alive(process):
            found.append(process)
    return found


class Batch:
    """The command started in a session of its own, its descendants recorded while it runs."""

    def __init__(self, folder: Path, *args: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "codemode", "run", *args],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.command = psutil.Process(self.process.pid)
        self.seen: dict[int, psutil.Process] = {}

    def descendants(self) -> list[psutil.Process]:
        try:
            found = self.command.children(recursive=True)
        except psutil.NoSuchProcess:
            found = []
        self.seen.update((p.pid, p) for p in found)
        return found

    def ended(self) -> bool:
        """Whether the command has ended (its descendants recorded first)."""
        self.descendants()
        return self.process.poll() is not None

    def finish(self, timeout_s: float = 60) -> tuple[str, str]:
        """The command's stdout and stderr once it ends; past ``timeout_s`` (a stop that hangs)
        it is killed with every descendant seen and the test fails."""
        try:
            return self.process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.descendants()
            for process in [self.command, *self.seen.values()]:
                with contextlib.suppress(psutil.NoSuchProcess):
                    process.kill()
            stdout, stderr = self.process.communicate()
            raise AssertionError(f"the command did not end within {timeout_s:g} s:\n{stdout}{stderr}") from None

    def left_running(self) -> list[psutil.Process]:
        return [p for p in self.seen.values() if alive(p)]


async def hanging(batch: Batch, folder: Path, *names: str) -> None:
    """Wait until the :func:`marker_then_hang` notebook in each of ``folder``'s subfolders
    ``names`` runs its hanging cell (its marker exists), recording the command's descendants."""
    await poll_until(
        lambda: batch.descendants() and all((folder / name / "started").exists() for name in names),
        f"{len(names)} kernel(s) to run their hanging cells",
        interval_s=0.2,
        within_s=180,
    )
    batch.descendants()


async def test_a_mixed_batch_gives_each_notebook_its_own_result_and_leaves_nothing_running(tmp_path):
    marker = mixed_batch(tmp_path)
    killed = marker.parent
    saved = tmp_path / "saved"
    junit = tmp_path / "junit.xml"
    batch = Batch(
        tmp_path,
        *MIXED_ARGS,
        "--jobs",
        "2",
        "--save-to",
        str(saved),
        "--junit",
        str(junit),
    )
    await poll_until(
        lambda: batch.descendants() and marker.exists() and kernel_in(batch.command, killed),
        "the notebook to be killed started its hanging cell",
        interval_s=0.2,
        within_s=180,
    )
    kernel = kernel_in(batch.command, killed)
    assert kernel is not None
    kernel.kill()
    await poll_until(batch.ended, "the batch to end", interval_s=0.2, within_s=180)
    stdout, stderr = batch.process.communicate()
    assert batch.process.returncode == 1, stdout + stderr
    assert summary_rows(stdout) == MIXED_ROWS, stdout
    assert stdout.endswith(MIXED_COUNTS), stdout
    for detail in MIXED_DETAILS:
        assert detail in stdout, (detail, stdout)
    # Each notebook that ran is saved with its outputs, the killed one and the hanging one too.
    outputs = {
        path.name: [
            [o.get("text", o["output_type"]) for o in cell.get("outputs", [])] for cell in nbformat.read(path, 4).cells
        ]
        for path in saved.glob("*.ipynb")
    }
    assert outputs["b_store.ipynb"] == [[], ["42\n"]]
    assert outputs["c_exec.ipynb"] == [["from-shell\n"]]
    assert outputs["f_hang.ipynb"] == [["before\n"], ["error"], []]
    assert outputs["h_error_allowed.ipynb"] == [["error"], ["passes\n"]]
    assert outputs["g_killed.ipynb"] == [["started\n"], []]
    assert "e_unreadable.ipynb" not in outputs
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "8",
        "failures": "3",
        "errors": "1",
        "skipped": "0",
    }
    assert batch.left_running() == []
    assert _working_in(tmp_path) == []


async def test_ctrl_c_stops_every_kernel_of_the_batch_and_leaves_no_process(tmp_path):
    for name in ("one", "two", "three"):
        marker_then_hang(tmp_path / name, f"{name}.ipynb")
    batch = Batch(tmp_path, "one/one.ipynb", "two/two.ipynb", "three/three.ipynb", "--jobs", "2", "--timeout", "120")
    await hanging(batch, tmp_path, "one", "two")
    assert len(_working_in(tmp_path)) >= 4  # two kernels and their runtime hosts, at least
    os.killpg(batch.process.pid, signal.SIGINT)
    stdout, stderr = batch.process.communicate(timeout=60)
    assert batch.process.returncode == 130, stdout + stderr
    rows = re.findall(r"^\s+(\S+\.ipynb)\s+(\w[\w ]*?)\s+\d+\.\d\s*$", stdout, re.M)
    assert rows == [("one/one.ipynb", "stopped"), ("two/two.ipynb", "stopped"), ("three/three.ipynb", "stopped")]
    assert stdout.endswith("3 notebooks: 0 passed, 0 failed, 0 diverged, 0 timed out, 3 stopped\n"), stdout
    assert "The batch was stopped; every kernel it started was stopped too." in stderr
    assert not (tmp_path / "three" / "started").exists()
    assert batch.left_running() == []
    assert _working_in(tmp_path) == []


async def test_a_second_ctrl_c_while_the_batch_stops_does_not_interrupt_the_stop(tmp_path):
    # GNU timeout -s INT sends SIGINT to the command and then to its group: the command gets it
    # twice, the second while it kills its workers' trees. That stop must go on to its end.
    for name in ("one", "two"):
        marker_then_hang(tmp_path / name, f"{name}.ipynb")
    batch = Batch(tmp_path, "one/one.ipynb", "two/two.ipynb", "--jobs", "2", "--timeout", "120")
    await hanging(batch, tmp_path, "one", "two")
    os.kill(batch.process.pid, signal.SIGINT)
    time.sleep(0.2)  # the gap between the two signals is the input, not a synchronisation
    os.kill(batch.process.pid, signal.SIGINT)
    stdout, stderr = batch.finish()
    assert batch.process.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr, stderr
    assert stdout.endswith("2 notebooks: 0 passed, 0 failed, 0 diverged, 0 timed out, 2 stopped\n"), stdout
    assert "The batch was stopped; every kernel it started was stopped too." in stderr
    assert batch.left_running() == []
    assert _working_in(tmp_path) == []


async def test_ctrl_c_stops_a_single_notebook_and_its_kernel(tmp_path):
    # One notebook runs as a batch's would, in a worker of its own: Ctrl-C (to the terminal's
    # process group) kills it with its kernel and the command says so. (A second SIGINT is
    # ignored as in a batch: test_a_second_ctrl_c_while_the_batch_stops_does_not_interrupt_the_stop.)
    marker_then_hang(tmp_path / "one", "one.ipynb")
    batch = Batch(tmp_path, "one/one.ipynb", "--timeout", "120")
    await hanging(batch, tmp_path, "one")
    os.killpg(batch.process.pid, signal.SIGINT)
    stdout, stderr = batch.finish()
    assert batch.process.returncode == 130, stdout + stderr
    assert stdout == ""
    assert stderr.strip().splitlines()[-1] == "The run was stopped; its kernel was stopped too.", stderr
    assert "Traceback" not in stderr and "could not be run" not in stderr, stderr
    assert batch.left_running() == []
    assert _working_in(tmp_path) == []
