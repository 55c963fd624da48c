"""A cancellation token for asyncio, like tokio-util's ``CancellationToken``.

Tool handlers and delegate calls receive one; cancelling it is how a terminated cell or a
``delegate/cancel`` reaches the tool.
"""

from __future__ import annotations

import asyncio


class CancellationToken:
    """A one-way flag that can be awaited. Cancelling twice is harmless.

    Must be used from the event loop thread it was created on.
    """

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def cancel(self) -> None:
        """Set the flag and wake every waiter."""
        self._event.set()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` ran."""
        return self._event.is_set()

    async def wait(self) -> None:
        """Return when the token is cancelled (at once if it already is)."""
        await self._event.wait()
