"""The shared/exclusive execution gate of a cell (tokio ``RwLock`` in Codex's ``parallel.rs``).

Tools that support parallel calls hold it shared; every other tool holds it exclusively, so it
never overlaps another call of the same cell. Waiters are
served first come, first served, like tokio's fair lock: a queued exclusive waiter blocks later
shared ones, so exclusive calls are never starved.
"""

from __future__ import annotations

import asyncio
from collections import deque


class SharedExclusiveGate:
    """A fair asyncio readers-writer lock. Use ``await acquire(exclusive)`` / ``release(exclusive)``
    or ``async with gate.hold(exclusive)``. Cancelling a waiter never leaks a grant."""

    def __init__(self) -> None:
        self._shared = 0
        self._exclusive = False
        self._waiters: deque[tuple[bool, asyncio.Future[None]]] = deque()

    @property
    def idle(self) -> bool:
        """True when nobody holds or waits for the gate."""
        return not self._shared and not self._exclusive and not self._waiters

    def _admissible(self, exclusive: bool) -> bool:
        if exclusive:
            return not self._exclusive and self._shared == 0
        return not self._exclusive

    def _grant(self, exclusive: bool) -> None:
        if exclusive:
            self._exclusive = True
        else:
            self._shared += 1

    def _wake(self) -> None:
        while self._waiters:
            exclusive, future = self._waiters[0]
            if future.done():
                self._waiters.popleft()
                continue
            if not self._admissible(exclusive):
                return
            self._waiters.popleft()
            self._grant(exclusive)
            future.set_result(None)

    async def acquire(self, exclusive: bool) -> None:
        """Wait for the gate; ``exclusive`` selects the write side."""
        if not self._waiters and self._admissible(exclusive):
            self._grant(exclusive)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        entry = (exclusive, future)
        self._waiters.append(entry)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(exclusive)
            else:
                try:
                    self._waiters.remove(entry)
                except ValueError:
                    pass
                self._wake()
            raise

    def release(self, exclusive: bool) -> None:
        """Give the gate back (same ``exclusive`` as the acquire)."""
        if exclusive:
            self._exclusive = False
        else:
            self._shared -= 1
        self._wake()

    def hold(self, exclusive: bool) -> _Hold:
        """An async context manager around :meth:`acquire` / :meth:`release`."""
        return _Hold(self, exclusive)


class _Hold:
    def __init__(self, gate: SharedExclusiveGate, exclusive: bool) -> None:
        self.gate = gate
        self.exclusive = exclusive

    async def __aenter__(self) -> None:
        await self.gate.acquire(self.exclusive)

    async def __aexit__(self, *exc: object) -> None:
        self.gate.release(self.exclusive)
