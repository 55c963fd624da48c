"""Counting the answers the host sent about each cell, so callers can put a cell's callbacks and
its answers back into the order of the host's frames.

An answer reaches its caller a few event-loop steps after its frame was read (futures,
``asyncio.shield``, the caller's task waking up), a delegate call's callbacks one step after
(the call runs as a task), and ``cell/closed`` at once. Frames read in one batch are therefore
seen out of order: a notification sent right after a ``Yielded`` reaches ``on_notify`` before
the execute's caller has the ``Yielded``. :class:`AnswerCounts` counts, per cell, the answers
read so far (initial responses, and the waits and terminates whose caller still waits,
connection failures included); a delegate call's first step sees, through
:func:`delegate_answers`, the count as it was when the host's request was read. A caller that
counts the answers it has handled knows which callbacks must wait for which answer.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections import OrderedDict
from dataclasses import dataclass

MAX_COUNTED_CELLS = 4096
"""Cells whose counts are kept per connection (the oldest are forgotten and read as 0); the
kernel also forgets each cell's count once it stops ordering the cell's callbacks."""


class AnswerCounts:
    """Answers read per ``(session id, host cell id)``."""

    def __init__(self) -> None:
        self._counts: OrderedDict[tuple[str, str], int] = OrderedDict()

    def count(self, session_id: str, cell_id: str) -> None:
        """One more answer about the cell was read (or failed with the connection)."""
        key = (session_id, cell_id)
        self._counts[key] = self._counts.get(key, 0) + 1
        self._counts.move_to_end(key)
        while len(self._counts) > MAX_COUNTED_CELLS:
            self._counts.popitem(last=False)

    def get(self, session_id: str, cell_id: str) -> int:
        return self._counts.get((session_id, cell_id), 0)

    def forget(self, session_id: str, cell_id: str) -> None:
        """Drop the cell's count (its caller no longer needs it): :meth:`get` reads 0 again."""
        self._counts.pop((session_id, cell_id), None)


@dataclass
class _Stamp:
    owner: object
    session_id: str
    cell_id: str
    answers: int
    live: bool = True


_STAMP: contextvars.ContextVar[_Stamp | None] = contextvars.ContextVar("codemode_delegate_stamp", default=None)


def stamp_delegate(owner: object, session_id: str, cell_id: str, answers: int) -> None:
    """Called at the start of a delegate call's task by its connection's ``owner``: until the
    task's first step ends, the cell's count reads as ``answers`` (the count when the host's
    request was read)."""
    stamp = _Stamp(owner, session_id, cell_id, answers)
    _STAMP.set(stamp)
    asyncio.get_running_loop().call_soon(setattr, stamp, "live", False)


def delegate_answers(owner: object, session_id: str, cell_id: str) -> int | None:
    """The count ``owner`` stamped for the cell in the first step of the current delegate call,
    or None (not in such a step, or another cell's)."""
    stamp = _STAMP.get()
    if stamp is None or not stamp.live or stamp.owner is not owner:
        return None
    if (stamp.session_id, stamp.cell_id) != (session_id, cell_id):
        return None
    return stamp.answers
