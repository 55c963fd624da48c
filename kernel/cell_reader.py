"""The kernel's one reader of a cell's events, in the order the host sent them.

The code-mode session puts each event of a cell into the cell's stream as the host's frame is
read (:mod:`codemode.cell_events`). The kernel reads each stream with one :class:`CellReader`:
first the execute (until the cell's first answer), then the cell's
:class:`~codemode.kernel.observer.CellObserver` (its wait answers), then, once the cell's
record is closed, every event as it comes (:meth:`CellReader.release`). Only one of them reads
at a time, and an answer is handled (output shown, reply status set, status display opened)
before the next event is taken. A cell so renders in the host's order every time: a
notification the host sent after a ``Yielded`` goes to the status display, one sent before it
is shown under the execute, before the yielded output.

Events that are not answers go to one handler as they are taken (``handle``: notifications,
tool-call events, the close). Answers go to the reader that asked for them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, TypeVar

from codemode.cell_events import Answer, CellEvent, CellStream, InitialAnswer, TerminateAnswer, WaitAnswer

log = logging.getLogger(__name__)

A = TypeVar("A", InitialAnswer, WaitAnswer, TerminateAnswer)
ANSWERS = (InitialAnswer, WaitAnswer, TerminateAnswer)


class CellReader:
    """Reads ``stream`` (one cell's) for the kernel; ``handle(event)`` shows an event that is not
    an answer (on the event loop)."""

    def __init__(self, stream: CellStream, handle: Callable[[CellEvent], None]) -> None:
        self.stream = stream
        self.handle = handle
        self.released = False

    @property
    def cell_id(self) -> str:
        return self.stream.cell_id

    async def answer(self, kind: type[A], request: asyncio.Future[Any] | None = None) -> A | None:
        """Handle the cell's events in order until an answer of ``kind`` comes, and return it.

        ``request`` is the future of the request that answer belongs to: when it fails, its
        error is raised once every event put before it was handled; when it ends without its
        answer in the stream (it cannot, short of a bug), None is returned. Answers of another
        kind are skipped (an answer nobody waits for any more). Cancelling the caller loses no
        event."""
        if request is not None:
            request.add_done_callback(lambda _done: self.stream.wake())
        while True:
            event = self.stream.take()
            if event is None:
                if request is not None and request.done():
                    if request.cancelled():
                        raise asyncio.CancelledError
                    exc = request.exception()
                    if exc is not None:
                        raise exc
                    return None
                await self.stream.arrival()
                continue
            if isinstance(event, kind):
                return event
            if isinstance(event, ANSWERS):
                log.debug("answer %s for cell %s skipped: nobody waits for it", type(event).__name__, self.cell_id)
                continue
            self.handle(event)

    def drain(self) -> list[Answer]:
        """Handle every event waiting now, in order; return the answers among them."""
        answers: list[Answer] = []
        while (event := self.stream.take()) is not None:
            if isinstance(event, ANSWERS):
                answers.append(event)
            else:
                self.handle(event)
        return answers

    def release(self) -> None:
        """The kernel waits for no more answers of the cell (its record was closed): handle every
        event now and as it comes (answers are dropped). Idempotent."""
        if not self.released:
            self.released = True
            self.stream.deliver_to(self._handle_any)

    def _handle_any(self, event: CellEvent) -> None:
        if not isinstance(event, ANSWERS):
            self.handle(event)
