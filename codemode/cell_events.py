"""One ordered stream of typed events per cell: what the host and the dispatcher report about it.

Codex's host runs one task per cell that sends the cell's initial response, its delegate
requests and its close in order, and Codex's client handles them in arrival order
(``codex-rs/code-mode``). codemode does the same by construction: the host connection puts
each event of a cell into that cell's :class:`CellStream` while it reads the frame, in the
order it reads them, and one reader takes them out in that order. Nothing is reordered later.

The events (:data:`CellEvent`), each a frozen dataclass naming its cell by public id:

- :class:`InitialAnswer`: the execute's ``execute/initialResponse``;
- :class:`WaitAnswer` and :class:`TerminateAnswer`: the answer to a ``session/wait`` or
  ``session/terminate`` whose caller still waits for it (the answer to a wait abandoned by its
  caller is not an event);
- :class:`Notification`: a ``notify()`` text (a ``notification/send`` delegate request);
- :class:`ToolInvoked`: a ``tool/invoke`` delegate request, the first event of a tool call;
- :class:`~codemode.dispatch.ToolCallEvent`: the dispatcher's ``started``, ``progress``,
  ``output`` and ``finished`` for that call, put in when they happen (from the event loop, or
  brought onto it from a tool's thread), so always after the call's :class:`ToolInvoked`;
- :class:`Closed`: ``cell/closed``, or the cell lost with its connection (once per cell).

``session/storedValues`` names no cell: it is :class:`StoredValuesCommitted`, a
:data:`SessionEvent` the session merges into its copy of the stored values.

A reader takes events with :meth:`CellStream.next` (waits) or :meth:`CellStream.take` (does
not), or hands them to a function as they come (:meth:`CellStream.deliver_to`).
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire.messages import ToolInvocation

if TYPE_CHECKING:  # the host layer imports this module, and not the dispatcher
    from codemode.dispatch.dispatcher import ToolCallEvent

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class InitialAnswer:
    """The execute's initial response (``execute/initialResponse``: ``Yielded``, ``Result``
    or ``Terminated``), the first of the three answers (:data:`Answer`)."""

    cell_id: str
    response: RuntimeResponse


@dataclass(frozen=True)
class WaitAnswer:
    """The answer to a ``session/wait`` on the cell (``outcome.live`` False: ``MissingCell``)."""

    cell_id: str
    outcome: WaitOutcome


@dataclass(frozen=True)
class TerminateAnswer:
    """The answer to a ``session/terminate`` of the cell."""

    cell_id: str
    outcome: WaitOutcome


@dataclass(frozen=True)
class Notification:
    """A ``notify(value)`` text of the cell."""

    cell_id: str
    text: str


@dataclass(frozen=True)
class ToolInvoked:
    """The host asked for a tool call (``tool/invoke``); ``invocation`` is its wire form
    (``runtime_tool_call_id``, ``tool_name``, ``tool_kind``, ``input``; ``cell_id`` is the
    host's id)."""

    cell_id: str
    invocation: ToolInvocation


@dataclass(frozen=True)
class Closed:
    """The cell is closed: it ended and its final response was delivered, its session was shut
    down, or its connection failed. The last event from the host; tool-call events of calls
    still cleaning up may follow."""

    cell_id: str


@dataclass(frozen=True)
class StoredValuesCommitted:
    """A cell committed these ``store()`` writes (``session/storedValues``, codemode's
    extension; the message names no cell)."""

    values: dict[str, Any]


Answer = InitialAnswer | WaitAnswer | TerminateAnswer
"""The events that answer a request of the client."""
CellEvent: TypeAlias = (
    "InitialAnswer | WaitAnswer | TerminateAnswer | Notification | ToolInvoked | ToolCallEvent | Closed"
)
"""Every event of one cell's stream."""
SessionEvent: TypeAlias = "CellEvent | StoredValuesCommitted"
"""What a host connection reports to a remote session (cell ids are the host's there)."""


class CellStream:
    """The events of one cell, in the order they happened (see the module docstring).

    Filled by the session on the event loop (:meth:`put`); read by one reader. Events wait in
    the stream until read (unbounded: a cell's answers, notifications and tool-call events).
    """

    def __init__(self, cell_id: str) -> None:
        self.cell_id = cell_id
        self._events: collections.deque[CellEvent] = collections.deque()
        self._arrived = asyncio.Event()
        self._handler: Callable[[CellEvent], None] | None = None
        self._put = 0
        self._taken = 0
        self._progress = asyncio.Event()
        self.subscribed = False
        """The stream was handed to a reader (``CodeModeSession.execute``): :meth:`caught_up`
        then waits for that reader."""

    def put(self, event: CellEvent) -> None:
        """Append ``event`` (on the event loop); a reader set by :meth:`deliver_to` gets it now."""
        self._put += 1
        if self._handler is not None:
            self._taken += 1
            _call(self._handler, event)
            return
        self._events.append(event)
        self._arrived.set()

    def take(self) -> CellEvent | None:
        """The next event, or None when none is waiting."""
        if not self._events:
            return None
        self._taken += 1
        self._progress.set()
        return self._events.popleft()

    async def next(self) -> CellEvent:
        """The next event, waiting for it. Cancelling the caller loses no event."""
        while True:
            event = self.take()
            if event is not None:
                return event
            await self.arrival()

    def wake(self) -> None:
        """Wake a reader waiting in :meth:`arrival` (something else it waits for happened)."""
        self._arrived.set()

    async def arrival(self) -> None:
        """Return once an event is waiting (at once if one is) or :meth:`wake` is called."""
        if not self._events:
            self._arrived.clear()
            await self._arrived.wait()

    def deliver_to(self, handler: Callable[[CellEvent], None]) -> None:
        """From now on ``handler(event)`` gets every event as it is put, beginning with those
        waiting (in order); for a reader that no longer waits for answers."""
        self._handler = handler
        while self._events:
            self._taken += 1
            _call(handler, self._events.popleft())
        self._progress.set()

    async def caught_up(self) -> None:
        """Return once the reader has taken every event put before this call (at once when
        the stream was not handed to a reader). Work started on the cell's behalf (an approval
        question) so sees what the events before it did."""
        target = self._put
        while self.subscribed and self._taken < target:
            self._progress.clear()
            await self._progress.wait()


def _call(handler: Callable[[CellEvent], None], event: CellEvent) -> None:
    try:
        handler(event)
    except Exception:  # noqa: BLE001 - one broken event must not stop the cell's others
        log.exception("handling a code-mode event failed")
