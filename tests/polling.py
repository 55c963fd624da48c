"""Bounded polling, for the conditions of a test that no event reports.

A test waits for an event where one exists (an ``asyncio.Event`` set by a callback, a future, a
message). Some conditions have none the test can await: a frame handed to a pipe, a file or a
process that another process makes or ends, state a worker thread changes. For those,
:func:`poll_until` checks the condition again and again until it holds. Its bound only turns a
hang into a failure that names the condition; no test relies on how long the wait takes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

BOUND_S = 60.0
"""How long :func:`poll_until` waits before it fails (seconds); generous, for a loaded machine."""


async def poll_until(
    predicate: Callable[[], object], what: str, *, interval_s: float = 0.02, within_s: float = BOUND_S
) -> None:
    """Return once ``predicate()`` is true, checking it every ``interval_s`` seconds (``0``: at
    every turn of the event loop, for state the loop's own tasks change).

    Raises ``AssertionError("<what>: still false after <within_s> s")`` at the bound.
    """
    try:
        async with asyncio.timeout(within_s):
            while not predicate():
                await asyncio.sleep(interval_s)
    except TimeoutError:
        raise AssertionError(f"{what}: still false after {within_s} s") from None
