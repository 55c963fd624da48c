"""A cell's events reach the loop in the order its thread posted them, content items included.

Content items do not wake the loop by themselves (``runtime/events.py``): a response that
takes the cell's output first runs the items posted so far (``EventPipe.run_quiet``), and
those never overtake an event posted before them.
"""

from __future__ import annotations

import asyncio
import threading

from codemode.runtime.events import PUMP_BATCH, EventPipe


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
