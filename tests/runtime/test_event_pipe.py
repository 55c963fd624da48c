"""A cell's events reach the loop in the order its thread posted them, content items included,
and a window holds the thread back while it is full.

Content items do not wake the loop by themselves (``runtime/events.py``): a response that
takes the cell's output first runs the items posted so far (``EventPipe.run_quiet``), and
those never overtake an event posted before them. ``Window`` counts without a lock while
there is room; the bound and the release still hold.
"""

from __future__ import annotations

import asyncio
import threading

import pytest

from codemode.runtime.events import PUMP_BATCH, EventPipe, Window

pytestmark = pytest.mark.unit


def _pipe(ran: list[tuple[str, int]]):
    def item(n: int) -> None:
        ran.append(("item", n))

    def other(n: int) -> None:
        ran.append(("other", n))

    pipe = EventPipe(asyncio.get_running_loop(), lambda: False, threading.Condition(), quiet=item)
    return pipe, item, other


async def test_items_posted_by_a_thread_run_when_the_output_is_taken():
    ran: list[tuple[str, int]] = []
    pipe, item, _other = _pipe(ran)
    await asyncio.to_thread(lambda: [pipe.post(item, n) for n in range(3)])
    pipe.run_quiet()
    assert ran == [("item", 0), ("item", 1), ("item", 2)]


async def test_items_never_overtake_an_event_posted_before_them():
    ran: list[tuple[str, int]] = []
    pipe, item, other = _pipe(ran)
    for post in ((item, 1), (item, 2), (other, 3), (item, 4)):
        pipe.post(*post)
    pipe.run_quiet()  # before the pump that `other` scheduled
    assert ran == [("item", 1), ("item", 2)]
    await asyncio.sleep(0)
    assert ran == [("item", 1), ("item", 2), ("other", 3), ("item", 4)]


async def test_an_event_that_takes_the_output_mid_batch_keeps_the_order():
    """The event running in a batch (a ``yield_control()``) asks for the items: those queued
    after the batch must not run before the rest of it."""
    ran: list[tuple[str, int]] = []
    pipe, item, _other = _pipe(ran)

    def taker(n: int) -> None:
        ran.append(("taker", n))
        pipe.run_quiet()

    pipe.post(taker, 0)
    count = 2 * PUMP_BATCH
    for n in range(1, count):
        pipe.post(item, n)
    for _ in range(4):
        await asyncio.sleep(0)
    assert ran == [("taker", 0)] + [("item", n) for n in range(1, count)]


def test_a_full_window_holds_the_thread_until_enough_is_released():
    window = Window(100, lambda: False, threading.Condition())
    window.acquire(60)
    window.acquire(40)  # exactly full: still room
    done = threading.Event()
    thread = threading.Thread(target=lambda: (window.acquire(1), done.set()))
    thread.start()
    assert not done.wait(0.3)  # a guard: the thread must still be held
    window.release(1)
    assert done.wait(10)
    thread.join()


def test_a_release_never_takes_the_count_below_zero():
    window = Window(100, lambda: False, threading.Condition())
    window.acquire(10)
    window.release(1000)
    window.acquire(100)
    done = threading.Event()
    thread = threading.Thread(target=lambda: (window.acquire(1), done.set()))
    thread.start()
    assert not done.wait(0.3)  # 100 used: the extra release was not credited
    window.release(100)
    assert done.wait(10)
    thread.join()


def test_a_full_window_says_so_before_the_thread_waits():
    """``on_full`` runs once when an acquire must wait (the loop then has the output taken);
    ``full()`` holds while the thread waits and ends with the release that lets it go."""
    fulls: list[bool] = []
    said = threading.Event()
    window = Window(
        100, lambda: False, threading.Condition(), on_full=lambda: (fulls.append(window.full()), said.set())
    )
    window.acquire(60)
    window.acquire(40)  # exactly full: still room, nothing said
    assert fulls == [] and not window.full()
    done = threading.Event()
    thread = threading.Thread(target=lambda: (window.acquire(1), done.set()), daemon=True)
    thread.start()
    try:
        assert said.wait(10)  # on the acquiring thread, before it waits
        assert fulls == [True] and window.full() and not done.is_set()
    finally:
        window.release(100)
    assert done.wait(10)
    thread.join()
    assert fulls == [True] and not window.full()
