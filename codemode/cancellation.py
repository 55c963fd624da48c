"""A cancellation token for asyncio, like tokio-util's ``CancellationToken``.

Tool handlers and delegate calls receive one; cancelling it is how a terminated cell or a
``delegate/cancel`` reaches the tool.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


class CancellationToken:
    """A one-way flag that can be awaited or watched. Cancelling twice is harmless.

    Must be used from the event loop thread it was created on. A token is made for every tool
    call, so it holds nothing until someone waits on it or watches it.
    """

    __slots__ = ("_cancelled", "_event", "_callbacks")

    def __init__(self) -> None:
        self._cancelled = False
        self._event: asyncio.Event | None = None
        self._callbacks: list[Callable[[], None]] | None = None

    def cancel(self) -> None:
        """Set the flag, wake every waiter and call every watcher (once, in the order they
        were added)."""
        if self._cancelled:
            return
        self._cancelled = True
        if self._event is not None:
            self._event.set()
        callbacks, self._callbacks = self._callbacks, None
        for callback in callbacks or ():
            callback()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` ran."""
        return self._cancelled

    async def wait(self) -> None:
        """Return when the token is cancelled (at once if it already is)."""
        if self._cancelled:
            return
        if self._event is None:
            self._event = asyncio.Event()
        await self._event.wait()

    def watch(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` when the token is cancelled (at once if it already is); returns
        the function that stops watching (harmless after the call)."""
        if self._cancelled:
            callback()
            return _nothing
        if self._callbacks is None:
            self._callbacks = []
        callbacks = self._callbacks
        callbacks.append(callback)

        def unwatch() -> None:
            if callback in callbacks:
                callbacks.remove(callback)

        return unwatch


def _nothing() -> None:
    return None


async def first_of(task: asyncio.Future[Any], token: CancellationToken) -> None:
    """Return when ``task`` is done or ``token`` is cancelled, whichever comes first (at once if
    either already is); cancelling the caller leaves ``task`` running. Unlike ``asyncio.wait``
    on the task and a task waiting on the token, it makes no task of its own."""
    if task.done() or token.cancelled:
        return
    waiter = asyncio.get_running_loop().create_future()

    def wake(_: object = None) -> None:
        if not waiter.done():
            waiter.set_result(None)

    task.add_done_callback(wake)
    unwatch = token.watch(wake)
    try:
        await waiter
    finally:
        task.remove_done_callback(wake)
        unwatch()


__all__ = ["CancellationToken", "first_of"]
