"""One ordered path per cell: the kernel takes a cell's events in the order the host sent them.

What the code-mode session reports about a cell comes by several routes, each a different
number of event-loop steps after the host's frame was read: the answers to the kernel's
observations (the execute's initial response, the observer's waits, terminates) reach the
awaiting coroutine a few steps later; ``notify()`` texts and tool calls (delegate requests)
one step later; ``cell/closed`` at once; tool progress and output from other threads. Frames
read together would so be handled out of order: a notification the host sent right after a
``Yielded`` would be shown under the execute request before the kernel knew the cell had
yielded, and a cell would render differently from run to run.

:class:`CellOrder` restores the host's order. Every callback about a cell is stamped with the
number of the cell's answers the connection had read before it
(``CodeModeSession.answers_read``, exact even for frames read in one batch); the kernel counts
the answers it has handled (:meth:`CellOrder.answered`), each after it has finished what that
answer causes (output shown, reply status, status display opened). A callback runs once the
kernel has handled as many answers as its stamp, and after every callback of the cell held
before it. Cells the kernel does not follow (closed, unknown) get their callbacks at once,
except while an execute waits for its new cell's id: the session can report that cell's
events before ``execute`` returns, so they are held until the id is known
(:meth:`cell_started`).
"""

from __future__ import annotations

import asyncio
import bisect
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)

Event = Callable[[], None]


def _no_answers(_cell_id: str) -> int:
    return 0


def _nothing_to_forget(_cell_id: str) -> None:
    return None


class CellOrder:
    """Holds and releases the callbacks of cells (see the module docstring). Used on the
    kernel's event loop only. ``answers_read(cell_id)`` is the session's count
    (``CodeModeSession.answers_read``) and ``forget_answers(cell_id)`` drops it
    (``CodeModeSession.forget_answers``), both set once the session exists."""

    def __init__(self) -> None:
        self.answers_read: Callable[[str], int] = _no_answers
        self.forget_answers: Callable[[str], None] = _nothing_to_forget
        self.starting = False
        """True while an execute waits for the host to admit its cell."""
        self._handled: dict[str, int] = {}
        self._held: dict[str, list[tuple[int, Event]]] = {}

    def event(self, cell_id: str, event: Event) -> None:
        """Run ``event`` (a callback about ``cell_id``) now, or hold it until its turn. Must be
        called from the callback itself, so that its stamp is the one of its host frame."""
        stamp = self.answers_read(cell_id)
        held = self._held.get(cell_id)
        if self._ready(cell_id, stamp) and (not held or held[0][0] > stamp):
            self._run(event)
            return
        if held is None:
            held = self._held[cell_id] = []
        # By stamp, then by arrival: ``cell/closed`` arrives at once, a notification sent before
        # the cell's last answer one loop step later; their stamps tell the host's order.
        held.insert(bisect.bisect_right(held, stamp, key=lambda entry: entry[0]), (stamp, event))

    def _ready(self, cell_id: str, stamp: int) -> bool:
        handled = self._handled.get(cell_id)
        if handled is None:
            return not self.starting
        return handled >= stamp

    def cell_started(self, cell_id: str | None) -> None:
        """The starting execute knows its cell (``cell_id``; None when it started none): follow
        it and run its held events that come before its first answer; drop the held events of
        cells the kernel never learned (logged)."""
        self.starting = False
        if cell_id is not None:
            self._handled.setdefault(cell_id, 0)
            self._drain(cell_id)
        for other in [c for c in self._held if c not in self._handled]:
            dropped = self._held.pop(other)
            log.debug("%d event(s) for unknown cell %s dropped", len(dropped), other)
            for _stamp, event in dropped:
                if isinstance(event, _Turn):
                    event()  # a waiter is told its turn will not come otherwise

    def answered(self, cell_id: str) -> None:
        """The kernel has handled one more answer about ``cell_id``: run what came after it."""
        if cell_id in self._handled:
            self._handled[cell_id] += 1
            self._drain(cell_id)

    def caught_up(self, cell_id: str) -> None:
        """Every answer read so far about ``cell_id`` counts as handled (after the kernel gave
        up on one: an interrupted request, a terminate)."""
        if cell_id in self._handled:
            self._handled[cell_id] = max(self._handled[cell_id], self.answers_read(cell_id))
            self._drain(cell_id)

    def forget(self, cell_id: str) -> None:
        """Stop following ``cell_id`` (its record was closed): its held events run now, in
        order, and later ones at once; the session stops counting its answers (a count kept
        per cell ever run grew the kernel by about 130 bytes a cell)."""
        self._handled.pop(cell_id, None)
        self.forget_answers(cell_id)
        for _stamp, event in self._held.pop(cell_id, ()):
            self._run(event)

    def _drain(self, cell_id: str) -> None:
        held = self._held.get(cell_id)
        while held and self._ready(cell_id, held[0][0]):
            _stamp, event = held.pop(0)
            self._run(event)
        if held is not None and not held:
            del self._held[cell_id]

    async def turn(self, cell_id: str) -> None:
        """Return once every callback about ``cell_id`` read before this call has run (for a
        cell an execute is starting: once the execute knows the cell's id). Work the kernel
        starts on its own for a cell (an approval question) so sees the state those callbacks
        made, as their host frames came first; at once for a cell the kernel does not follow."""
        turn = _Turn()
        self.event(cell_id, turn)
        await turn.future

    @staticmethod
    def _run(event: Event) -> None:
        try:
            event()
        except Exception:  # one broken event must not stop the cell's others
            log.exception("handling a code-mode event failed")

    def following(self) -> list[str]:
        """The cells whose events are being ordered (for tests and diagnostics)."""
        return list(self._handled)


class _Turn:
    """The callback :meth:`CellOrder.turn` holds in the cell's order: it ends the wait."""

    def __init__(self) -> None:
        self.future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def __call__(self) -> None:
        if not self.future.done():
            self.future.set_result(None)
