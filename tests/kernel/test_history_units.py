"""The input history is written in batches off the event loop: one write for the lines of a
burst of cells, the lines a request or the kernel's end needs written at once."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest

from codemode.kernel.history import WRITE_DELAY_S, History

pytestmark = pytest.mark.unit


def rows(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT line, source FROM history ORDER BY line").fetchall()


async def until(condition, deadline_s=5.0):
    """Poll ``condition()`` on the loop until it holds (a real condition, bounded)."""
    end = time.monotonic() + deadline_s
    while not condition():
        assert time.monotonic() < end, "condition not met in time"
        await asyncio.sleep(0.01)


async def test_a_burst_of_lines_is_one_write_made_after_the_delay(tmp_path):
    path = str(tmp_path / "history.sqlite")
    history = History(path)
    writes = []
    store = history._store
    history._store = lambda lines: (store(lines), writes.append(list(lines)))  # noted once written
    started = time.monotonic()
    for line in (1, 2, 3):
        history.store(line, f"text({line})")
    await until(lambda: writes)
    waited = time.monotonic() - started
    assert rows(path) == [(1, "text(1)"), (2, "text(2)"), (3, "text(3)")]
    assert writes == [[(1, "text(1)"), (2, "text(2)"), (3, "text(3)")]]
    assert waited >= WRITE_DELAY_S * 0.9
    history.close()


async def test_a_history_request_sees_the_lines_not_written_yet(tmp_path):
    history = History(str(tmp_path / "history.sqlite"))
    history.store(1, 'text("one")')
    assert await history.request({"hist_access_type": "tail", "n": 5}) == [[1, 1, 'text("one")']]
    history.close()


async def test_closing_writes_the_lines_still_waiting(tmp_path):
    path = str(tmp_path / "history.sqlite")
    history = History(path)
    history.store(1, 'text("last words")')
    history.close()
    history._worker.shutdown(wait=True)
    assert rows(path) == [(1, 'text("last words")')]


def test_an_entry_is_cut_at_a_character_within_its_bound():
    from codemode.kernel.history import MAX_ENTRY_BYTES, bounded, marker

    assert bounded("x" * MAX_ENTRY_BYTES) == "x" * MAX_ENTRY_BYTES
    assert bounded("x" * MAX_ENTRY_BYTES + "y") == "x" * MAX_ENTRY_BYTES + marker(MAX_ENTRY_BYTES + 1)
    four = "😀" * (MAX_ENTRY_BYTES // 4) + "x"  # the bound falls right after the last emoji
    assert bounded(four) == "😀" * (MAX_ENTRY_BYTES // 4) + marker(MAX_ENTRY_BYTES + 1)
    shifted = "ab" + "😀" * (MAX_ENTRY_BYTES // 4)  # the bound falls inside the last emoji
    assert bounded(shifted) == "ab" + "😀" * (MAX_ENTRY_BYTES // 4 - 1) + marker(MAX_ENTRY_BYTES + 2)
