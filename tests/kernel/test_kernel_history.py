"""The input history through real kernels: history_request kinds, restarts, the console's up-arrow."""

from __future__ import annotations

import signal
import sqlite3
from pathlib import Path
from typing import Any

import psutil
import pytest
from console_driver import Console
from kernel_driver import (
    Kernel,
    execute,
    send_execute,
    shell_reply,
    start_kernel,
    start_kernels,
    stop_kernel,
    wait_for_iopub,
)


def _history(kernel: Kernel, **content: Any) -> list[list[Any]]:
    reply = shell_reply(kernel.kc, kernel.kc.history(**{"raw": True, "output": False, **content}), timeout=30)
    assert reply["content"]["status"] == "ok", reply["content"]
    return reply["content"]["history"]


def _ok(kernel: Kernel, code: str, **kwargs: Any) -> None:
    assert execute(kernel.kc, code, **kwargs).content["status"] == "ok"


def test_history_keeps_stored_inputs_across_restarts(codemode_kernelspec, tmp_path):
    env = {"CODEMODE_HISTORY_FILE": str(tmp_path / "history.sqlite")}
    first = start_kernel(tmp_path, env)
    try:
        _ok(first, 'text("one")')
        _ok(first, 'text("two")')
        _ok(first, 'text("not kept")', store_history=False)
        _ok(first, 'text("silent")', silent=True)
        _ok(first, "  ")
        _ok(first, "%cells")
        _ok(first, 'text("two")')
        assert _history(first, hist_access_type="tail", n=10) == [
            [1, 1, 'text("one")'],
            [1, 2, 'text("two")'],
            [1, 3, "%cells"],
            [1, 4, 'text("two")'],
        ]
    finally:
        stop_kernel(first)
    second = start_kernel(tmp_path, env)
    try:
        _ok(second, 'text("three")')
        # The newest last; this kernel is session 2.
        assert _history(second, hist_access_type="tail", n=3) == [
            [1, 3, "%cells"],
            [1, 4, 'text("two")'],
            [2, 1, 'text("three")'],
        ]
        assert _history(second, hist_access_type="range", session=0, start=1) == [[2, 1, 'text("three")']]
        assert _history(second, hist_access_type="range", session=-1, start=2, stop=4) == [
            [1, 2, 'text("two")'],
            [1, 3, "%cells"],
        ]
        assert _history(second, hist_access_type="range", session=1, start=4) == [[1, 4, 'text("two")']]
        assert _history(second, hist_access_type="search", pattern='text("t*') == [
            [1, 2, 'text("two")'],
            [1, 4, 'text("two")'],
            [2, 1, 'text("three")'],
        ]
        assert _history(second, hist_access_type="search", pattern='text("t*', unique=True) == [
            [1, 4, 'text("two")'],
            [2, 1, 'text("three")'],
        ]
        assert _history(second, hist_access_type="search", pattern="*o*", n=1) == [[1, 4, 'text("two")']]
        assert _history(second, hist_access_type="tail", n=1, output=True) == [[2, 1, ['text("three")', None]]]
    finally:
        stop_kernel(second)


RUNNING = 'notify("started"); await tools.sleep({ms: 60000})'
"""A cell still running (no response yet) that shows at once that it runs (notify)."""


def test_sigterm_writes_the_last_inputs_before_the_kernel_ends(codemode_kernelspec, tmp_path):
    """Lines wait half a second to be written in one batch; SIGTERM (jupyter_client's when a
    kernel does not end after shutdown_request, or a ``kill``) writes them first, and the
    kernel still ends of the signal."""
    history = tmp_path / "history.sqlite"
    kernel = start_kernel(tmp_path, {"CODEMODE_HISTORY_FILE": str(history)})
    try:
        _ok(kernel, 'text("first")')
        _ok(kernel, 'text("second")')
        # The cell that runs when SIGTERM comes (the one a user kills a kernel for) is kept too.
        running = send_execute(kernel.kc, RUNNING)
        wait_for_iopub(kernel.kc, running, lambda m: m["msg_type"] not in ("status", "execute_input"))
        process = psutil.Process(kernel.km.provisioner.pid)
        kernel.km.signal_kernel(signal.SIGTERM)
        assert process.wait(timeout=30) == -signal.SIGTERM
    finally:
        kernel.kc.stop_channels()
        kernel.km.cleanup_resources()
    with sqlite3.connect(history) as db:
        rows = db.execute("SELECT line, source FROM history ORDER BY line").fetchall()
    assert rows == [(1, 'text("first")'), (2, 'text("second")'), (3, RUNNING)]


def test_history_lives_in_the_jupyter_data_directory_by_default(codemode_kernelspec, tmp_path, monkeypatch):
    monkeypatch.delenv("CODEMODE_HISTORY_FILE", raising=False)
    data = tmp_path / "data"
    kernel = start_kernel(tmp_path, {"JUPYTER_DATA_DIR": str(data)})
    try:
        _ok(kernel, 'text("where am I kept")')
        assert _history(kernel, hist_access_type="tail") == [[1, 1, 'text("where am I kept")']]
    finally:
        stop_kernel(kernel)
    assert (data / "codemode" / "history.sqlite").is_file()


@pytest.mark.parametrize("problem", ["parent is a file", "not a database"])
def test_an_unusable_history_file_leaves_the_kernel_working(codemode_kernelspec, tmp_path, problem):
    if problem == "parent is a file":
        (tmp_path / "plain-file").write_text("x")
        location = tmp_path / "plain-file" / "history.sqlite"  # cannot be created, even by root
    else:
        location = tmp_path / "history.sqlite"
        location.write_text("this is not an SQLite database, " * 100)
    kernel = start_kernel(tmp_path, {"CODEMODE_HISTORY_FILE": str(location)})
    try:
        assert execute(kernel.kc, 'text("still runs")').stdout == "still runs\n"
        assert _history(kernel, hist_access_type="tail", n=5) == []
        assert execute(kernel.kc, 'text("and again")').content["execution_count"] == 2
    finally:
        stop_kernel(kernel)


def test_console_up_arrow_recalls_the_previous_kernels_input(codemode_kernelspec, tmp_path: Path):
    env = {"CODEMODE_HISTORY_FILE": str(tmp_path / "history.sqlite")}
    with Console(tmp_path, env) as console:
        console.wait_for("In [1]")
        console.keys('text("remembered " + 42)', "Enter")
        console.wait_for("remembered 42")
        console.quit()
    with Console(tmp_path, env) as console:
        console.wait_for("In [1]")
        console.keys("Up")
        console.wait_for('In [1]: text("remembered " + 42)')
        console.keys("Enter")  # runs it again in this kernel
        console.wait_for("remembered 42")
        console.quit()


def test_a_long_input_keeps_its_first_mebibyte_and_a_marker(codemode_kernelspec, tmp_path):
    """Twenty cells of 5 MB made a 95 MB history file: an entry keeps at most 1 MiB."""
    path = tmp_path / "history.sqlite"
    kernel = start_kernel(tmp_path, {"CODEMODE_HISTORY_FILE": str(path)})
    try:
        big = "// " + "é" * 600_000 + '\ntext("big")'  # 1 200 015 bytes; é is two
        assert execute(kernel.kc, big).stdout == "big\n"
        _ok(kernel, 'text("small")')
        [[_, first, kept], [_, second, small]] = _history(kernel, hist_access_type="tail", n=2)
        assert (first, second, small) == (1, 2, 'text("small")')
        marker = "\n// [history: only the first 1048576 of this input's 1200015 bytes are kept]"
        assert kept == "// " + "é" * 524_286 + marker  # 3 + 2 * 524 286 = 1 048 575 bytes: é not split
    finally:
        stop_kernel(kernel)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT max(length(CAST(source AS BLOB))) FROM history").fetchone()[0] < 2**20 + 100


@pytest.fixture(scope="module")
def three_sessions(codemode_kernelspec, tmp_path_factory) -> list[Kernel]:
    """Three kernels running at once on one history file: sessions 1, 2 and 3, in that order,
    each with the lines ``text("<x>1")``, ``text("same")``, ``text("<x>2")``, ``text("<x>3")``
    (x: a, b, c), written by the time the fixture returns (a history request writes a
    kernel's own lines)."""
    folder = tmp_path_factory.mktemp("three-sessions")
    env = {"CODEMODE_HISTORY_FILE": str(folder / "history.sqlite")}
    kernels = start_kernels(3, folder, env)
    try:
        for kernel, name in zip(kernels, "abc", strict=True):
            _ok(kernel, f'text("{name}1")')
            _history(kernel, hist_access_type="tail", n=1)  # numbers its session now
        for kernel in kernels:
            _ok(kernel, 'text("same")')
        for kernel, name in zip(kernels, "abc", strict=True):
            _ok(kernel, f'text("{name}2")')
            _ok(kernel, f'text("{name}3")')
            _history(kernel, hist_access_type="tail", n=1)
        yield kernels
    finally:
        for kernel in kernels:
            stop_kernel(kernel)


def _lines(session: int, name: str) -> list[list[Any]]:
    """The four lines session ``session`` (its kernel runs cells named ``name``) keeps."""
    return [
        [session, 1, f'text("{name}1")'],
        [session, 2, 'text("same")'],
        [session, 3, f'text("{name}2")'],
        [session, 4, f'text("{name}3")'],
    ]


def test_tail_across_sessions_puts_the_asking_kernels_own_lines_last(three_sessions):
    """ipykernel answers ``tail`` with IPython's ``HistoryAccessor.get_tail(include_latest=True)``:
    the asking session's last lines are taken first, then the other sessions' newest first
    (by session number, then line), and the whole returned oldest first."""
    first, middle, last = three_sessions
    a, b, c = _lines(1, "a"), _lines(2, "b"), _lines(3, "c")
    assert _history(middle, hist_access_type="tail", n=100) == a + c + b
    assert _history(first, hist_access_type="tail", n=100) == b + c + a
    assert _history(last, hist_access_type="tail", n=100) == a + b + c
    # A short tail: the asking session's lines first, then the newest session's.
    assert _history(middle, hist_access_type="tail", n=5) == c[3:] + b
    assert _history(first, hist_access_type="tail", n=6) == c[2:] + a
    assert _history(middle, hist_access_type="tail", n=2) == b[2:]
    # Without n, ten (IPython's default); n=0, none (SQLite's LIMIT 0).
    assert _history(middle, hist_access_type="tail") == a[2:] + c + b
    assert _history(middle, hist_access_type="tail", n=0) == []


def test_range_defaults_to_the_whole_session(three_sessions):
    """``range`` from line ``start`` (1 when missing) up to ``stop`` (excluded; missing or 0:
    to the end, as IPython's ``get_range``) of a session (0: the asking kernel's)."""
    middle = three_sessions[1]
    b = _lines(2, "b")
    # jupyter_client's history() sends start=0 for a range; a request may leave it out.
    kc = middle.kc
    request = kc.session.msg("history_request", {"hist_access_type": "range", "session": 0, "output": False})
    kc.shell_channel.send(request)
    assert shell_reply(kc, request["header"]["msg_id"], timeout=30)["content"]["history"] == b
    assert _history(middle, hist_access_type="range", session=0) == b
    assert _history(middle, hist_access_type="range", session=0, start=3) == b[2:]
    assert _history(middle, hist_access_type="range", session=0, start=2, stop=0) == b[1:]
    assert _history(middle, hist_access_type="range", session=-1, start=2, stop=3) == [[1, 2, 'text("same")']]
    assert _history(middle, hist_access_type="range", session=3) == _lines(3, "c")


def test_search_matches_a_case_sensitive_glob_and_everything_without_one(three_sessions):
    kernel = three_sessions[2]
    assert _history(kernel, hist_access_type="search") == _lines(1, "a") + _lines(2, "b") + _lines(3, "c")
    assert _history(kernel, hist_access_type="search", pattern='TEXT("*') == []
    assert _history(kernel, hist_access_type="search", pattern='text("b[23]")') == _lines(2, "b")[2:]


def test_search_returns_the_n_latest_matches_oldest_first(three_sessions):
    """IPython's ``HistoryAccessor.search``: the ``n`` most recent matches, oldest first; all of
    them when ``n`` is at least their number (a larger ``n`` once dropped the oldest)."""
    kernel = three_sessions[1]
    firsts = [[1, 1, 'text("a1")'], [2, 1, 'text("b1")'], [3, 1, 'text("c1")']]
    assert _history(kernel, hist_access_type="search", pattern='text("?1")') == firsts
    assert _history(kernel, hist_access_type="search", pattern='text("?1")', n=4) == firsts
    assert _history(kernel, hist_access_type="search", pattern='text("?1")', n=5) == firsts
    assert _history(kernel, hist_access_type="search", pattern='text("?1")', n=100) == firsts
    assert _history(kernel, hist_access_type="search", pattern='text("?1")', n=3) == firsts
    assert _history(kernel, hist_access_type="search", pattern='text("?1")', n=2) == firsts[1:]
    assert _history(kernel, hist_access_type="search", pattern='text("?1")', n=0) == []
    assert _history(kernel, hist_access_type="search", pattern="nothing*", n=5) == []


def test_unique_search_keeps_each_text_at_its_latest_line(three_sessions):
    kernel = three_sessions[0]
    same = [3, 2, 'text("same")']
    assert _history(kernel, hist_access_type="search", pattern='text("same")', unique=True) == [same]
    assert _history(kernel, hist_access_type="search", pattern='text("same")', unique=True, n=1) == [same]
    assert _history(kernel, hist_access_type="search", pattern='text("same")', unique=True, n=2) == [same]
    a, b, c = _lines(1, "a"), _lines(2, "b"), _lines(3, "c")
    everything = [a[0], *a[2:], b[0], *b[2:], *c]
    assert len(everything) == 10
    assert _history(kernel, hist_access_type="search", pattern="text(*", unique=True) == everything
    assert _history(kernel, hist_access_type="search", pattern="text(*", unique=True, n=11) == everything
    assert _history(kernel, hist_access_type="search", pattern="text(*", unique=True, n=19) == everything
    assert _history(kernel, hist_access_type="search", pattern="text(*", unique=True, n=10) == everything
    assert _history(kernel, hist_access_type="search", pattern="text(*", unique=True, n=3) == everything[-3:]
    # Without unique the same text comes once a line.
    assert _history(kernel, hist_access_type="search", pattern='text("same")', n=2) == [[2, 2, 'text("same")'], same]
