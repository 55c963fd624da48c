"""A hidden file that vanishes while a command starts: bubblewrap mounts ``/dev/null`` over
each hidden file the command line names, and one deleted in between made bubblewrap fail the
whole command (``Can't create file at PATH: Read-only file system``), as SQLite's journal and
other kernels' connection files in ``/tmp`` are deleted at any moment. Each start now retries
when bubblewrap failed before running the command (:mod:`codemode.tools.spawn`)."""

from __future__ import annotations

import shutil
import subprocess
import threading

import pytest
from sandbox_helpers import require_bwrap, run

from codemode.tools.spawn import marked

STARTS = 30
CHURNS = 10**6


@pytest.fixture(autouse=True)
def _bwrap():
    require_bwrap()


@pytest.mark.parametrize(
    ("args", "starts"),
    [({}, STARTS), ({"timeout_ms": 60_000}, 10), ({"tty": True}, 10)],
    ids=["yielding", "to-the-end", "tty"],
)
async def test_a_hidden_file_deleted_and_made_again_fails_no_command(dispatchers, tmp_path, args, starts):
    """Made and deleted as fast as a thread can: about every other start finds the file on the
    command line and gone (or back) when bubblewrap mounts over it."""
    secret = tmp_path / "elsewhere" / "kernel-9.json"
    secret.parent.mkdir()
    secret.write_text('{"key": "secret"}')
    dispatcher = await dispatchers.make(sandbox_mode="read-only")
    dispatchers.registries[-1].sandbox.protect(hidden=[secret])
    shown = await run(dispatcher, f"cat {secret}; echo read=$?")
    assert (shown["exit_code"], shown["output"]) == (0, f"cat: {secret}: Permission denied\nread=1\n")

    stop = threading.Event()

    def churn() -> None:
        for _ in range(CHURNS):
            if stop.is_set():
                return
            secret.write_text('{"key": "secret"}')
            secret.unlink()

    churner = threading.Thread(target=churn)
    churner.start()
    try:
        results = [await run(dispatcher, "true", **args) for _ in range(starts)]
    finally:
        stop.set()
        churner.join()
    assert [(r["exit_code"], r["output"]) for r in results] == [(0, "")] * starts


def test_the_start_mark_unwritten_runs_nothing(tmp_path):
    """Without the status pipe the first step exits 126 before the command: a start that looks
    failed was never run, so starting it again cannot run it twice."""
    bash = shutil.which("bash")
    assert bash is not None
    done = subprocess.run(
        marked(bash, 99, ["touch", str(tmp_path / "ran")]), capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (126, "", "bash: line 1: 99: Bad file descriptor\n")
    assert not (tmp_path / "ran").exists()


async def test_the_default_history_folder_looks_empty_inside(dispatchers, tmp_path, monkeypatch):
    """A tmpfs over the whole folder: the history and any journal are out of sight, and no
    mount point per file can vanish."""
    from codemode.history_file import history_hidden

    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CODEMODE_HISTORY_FILE", raising=False)
    folder = tmp_path / "data" / "codemode"
    folder.mkdir(parents=True)
    (folder / "history.sqlite").write_text("every cell anyone ran")
    (folder / "history.sqlite-journal").write_text("pages being stored")
    dispatcher = await dispatchers.make(sandbox_mode="read-only")
    dispatchers.registries[-1].sandbox.protect(hidden=history_hidden())
    result = await run(dispatcher, f"ls -A {folder}; echo listed=$?; cat {folder}/history.sqlite; echo read=$?")
    assert result["output"] == f"listed=0\ncat: {folder}/history.sqlite: No such file or directory\nread=1\n"
