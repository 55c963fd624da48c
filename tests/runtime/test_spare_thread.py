"""The host's spare cell thread: prepared ahead, taken by the next cell, never shared."""

from __future__ import annotations

import threading

from codemode.runtime.spare_thread import SpareThreads

TIMEOUT_S = 10


class Recorder:
    """A prepare function that records the thread it ran on, and a target that records what
    it was handed and where."""

    def __init__(self) -> None:
        self.prepared_on: list[int] = []
        self.ran: list[tuple[object, int, str]] = []
        self.done = threading.Event()

    def prepare(self) -> object:
        self.prepared_on.append(threading.get_ident())
        return ("prepared", len(self.prepared_on))

    def target(self, prepared: object) -> None:
        self.ran.append((prepared, threading.get_ident(), threading.current_thread().name))
        self.done.set()


def _run(spares: SpareThreads, recorder: Recorder, prepare) -> tuple[object, int, str]:
    recorder.done.clear()
    thread = spares.run(recorder.target, "codemode-cell-7", prepare)
    assert recorder.done.wait(TIMEOUT_S)
    thread.join(TIMEOUT_S)
    return recorder.ran[-1]


def test_a_cell_takes_the_spare_prepared_on_its_own_thread():
    spares, recorder = SpareThreads(count=1), Recorder()
    spares.refill(recorder.prepare)
    prepared, ident, name = _run(spares, recorder, recorder.prepare)
    assert prepared == ("prepared", 1)
    assert recorder.prepared_on == [ident]
    assert name == "codemode-cell-7"


def test_without_a_spare_the_cell_prepares_inline():
    spares, recorder = SpareThreads(), Recorder()
    prepared, _, name = _run(spares, recorder, recorder.prepare)
    assert (prepared, name) == (None, "codemode-cell-7")
    assert recorder.prepared_on == []


def test_each_spare_serves_one_cell_and_refill_tops_up_to_the_count():
    spares, recorder = SpareThreads(count=2), Recorder()
    spares.refill(recorder.prepare)
    spares.refill(recorder.prepare)  # already two: this starts none
    first, second, third = (_run(spares, recorder, recorder.prepare)[0] for _ in range(3))
    assert sorted([first, second]) == [("prepared", 1), ("prepared", 2)]
    assert third is None
    assert len(recorder.prepared_on) == 2


def test_a_spare_prepared_for_another_engine_is_not_used():
    spares, recorder, other = SpareThreads(count=1), Recorder(), Recorder()
    spares.refill(other.prepare)
    assert _run(spares, recorder, recorder.prepare)[0] is None
    assert other.ran == []
