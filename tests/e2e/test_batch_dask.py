"""``python -m codemode run ... --dask ADDRESS``: a batch on a real Dask cluster on localhost.

A ``dask scheduler`` and a ``dask worker`` (two threads, so two notebooks at once) run as
processes of their own, as on a cluster; the command only submits. Each notebook runs on the
worker in its own worker process and kernel, and its outcome, the executed notebook included,
comes back. The mixed batch of ``test_batch_run.py`` (passing, failing, a killed kernel, a
notebook past its time limit) gives the local pool's summary, and no kernel is left on the
worker. Ctrl-C mid-batch stops the kernels running on the worker.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
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
    kernels_under,
    marker_then_hang,
    mixed_batch,
    summary_rows,
)
from polling import poll_until

from codemode.batch.isolated import kill_tree

pytestmark = pytest.mark.timeout(240)

DASK = Path(sys.executable).with_name("dask")


def _address(scheduler: subprocess.Popen[str]) -> str:
    """The address the scheduler logs once it listens (``Scheduler at: tcp://...``); the rest of
    its log is drained by a thread so that it never blocks on a full pipe."""
    assert scheduler.stderr is not None
    for line in scheduler.stderr:
        found = re.search(r"Scheduler at:\s+(tcp://\S+)", line)
        if found:
            threading.Thread(target=scheduler.stderr.read, daemon=True).start()
            return found.group(1)
    raise AssertionError("the Dask scheduler ended without listening")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, psutil.Process]]:
    """The scheduler's address and the ``dask worker`` process (one cluster for the module);
    both are stopped afterwards."""
    from distributed import Client

    home = tmp_path_factory.mktemp("dask")
    started: list[subprocess.Popen[str]] = []
    try:

        def start(*args: str, log: int) -> subprocess.Popen[str]:
            process = subprocess.Popen(
                [str(DASK), *args, "--no-dashboard", "--host", "127.0.0.1"],
                cwd=home,
                stdout=subprocess.DEVNULL,
                stderr=log,
                text=True,
                start_new_session=True,
            )
            started.append(process)
            return process

        address = _address(start("scheduler", "--port", "0", log=subprocess.PIPE))
        worker = start("worker", address, "--nthreads", "2", log=subprocess.DEVNULL)
        with Client(address, timeout=120) as client:
            client.wait_for_workers(1, timeout=120)
        yield address, psutil.Process(worker.pid)
    finally:
        for process in reversed(started):
            kill_tree(process.pid)
            process.wait()


async def test_the_mixed_batch_on_a_dask_cluster_gives_the_local_summary_and_leaves_no_kernel(tmp_path, cluster):
    """The mixed batch of ``test_batch_run.py``: its notebooks run on the worker, the killed
    one's kernel (a descendant of the ``dask worker`` process, in its notebook's folder) is
    killed from here, and the summary is the local pool's."""
    address, worker = cluster
    marker = mixed_batch(tmp_path)
    killed = marker.parent
    saved = tmp_path / "saved"
    command = subprocess.Popen(
        [sys.executable, "-m", "codemode", "run", *MIXED_ARGS, "--dask", address, "--save-to", str(saved)],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    kernels_seen: set[int] = set()

    def seen() -> list[psutil.Process]:
        kernels = kernels_under(worker)
        kernels_seen.update(k.pid for k in kernels)
        return kernels

    await poll_until(
        lambda: seen() and marker.exists() and kernel_in(worker, killed),
        "the notebook to be killed started its hanging cell on the worker",
        interval_s=0.2,
        within_s=180,
    )
    kernel = kernel_in(worker, killed)
    assert kernel is not None
    kernel.kill()

    def ended() -> bool:
        seen()
        return command.poll() is not None

    await poll_until(ended, "the batch to end", interval_s=0.2, within_s=200)
    stdout, stderr = command.communicate()
    assert command.returncode == 1, stdout + stderr
    assert summary_rows(stdout) == MIXED_ROWS, stdout
    assert stdout.endswith(MIXED_COUNTS), stdout
    for detail in MIXED_DETAILS:
        assert detail in stdout, (detail, stdout)
    # The executed notebooks came back from the worker, where their kernels ran.
    stored = nbformat.read(saved / "b_store.ipynb", 4)
    assert [[o.get("text") for o in cell.outputs] for cell in stored.cells] == [[], ["42\n"]]
    assert len(kernels_seen) >= 2, "no kernels ran under the Dask worker"
    assert kernels_under(worker) == []


async def test_ctrl_c_stops_the_kernels_running_on_the_dask_worker(tmp_path, cluster):
    address, worker = cluster
    for name in ("one", "two", "three"):
        marker_then_hang(tmp_path / name, f"{name}.ipynb")
    command = subprocess.Popen(
        [sys.executable, "-m", "codemode", "run", "one", "two", "three", "--dask", address, "--timeout", "120"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    await poll_until(
        lambda: sum((tmp_path / name / "started").exists() for name in ("one", "two", "three")) == 2,
        "two notebooks to run their hanging cells on the worker",
        interval_s=0.2,
        within_s=180,
    )
    assert len(kernels_under(worker)) == 2
    os.killpg(command.pid, signal.SIGINT)
    stdout, stderr = command.communicate(timeout=60)
    assert command.returncode == 130, stdout + stderr
    assert stdout.endswith("3 notebooks: 0 passed, 0 failed, 0 diverged, 0 timed out, 3 stopped\n"), stdout
    # Each task sees the batch's stop event within half a second and kills its kernel.
    await poll_until(lambda: kernels_under(worker) == [], "the worker's kernels to be stopped", within_s=30)
    assert sum((tmp_path / name / "started").exists() for name in ("one", "two", "three")) == 2
