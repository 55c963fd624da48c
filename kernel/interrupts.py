"""Which execute request an interrupt that found no running cell is meant for, without clocks.

A client may interrupt right after sending an execute request (``jupyter_client``'s
``interrupt_kernel`` after ``execute``): the SIGINT can arrive before ipykernel has started
the request's handler. That request was already on its way, and the interrupt is meant for
it. A request sent after the interrupt is not, whatever the clocks of client and kernel say.

How shell requests reach the kernel (ipykernel 7): the shell channel thread reads the shell
socket (a ``ZMQStream`` on its own loop) and forwards each message to the main thread, which
handles them one at a time. :class:`QueuedInterrupts` numbers every message as the shell
channel thread receives it (:meth:`stamp`). When a SIGINT finds no running cell, the main
thread asks the shell channel thread to read everything already waiting in the shell socket
(``ZMQStream.flush``), once at once and once more :data:`IN_FLIGHT_S` later for a message that
was sent before the interrupt but was still in transit; the highest number then received
becomes the interrupt's *mark* (:meth:`mark_queued`). When an execute request numbered at or
below the mark had not been dispatched yet (it had reached this process when the interrupt
came), the first such request is interrupted when it is handled (:meth:`consume`); every
request received later runs normally. When none was waiting, the kernel was idle: the
interrupt is meant for what still runs in the background, the cells that yielded, and
``on_idle`` is called (the kernel terminates them). Until the mark is known, the
kernel holds new shell requests back (:meth:`settled`), so a request sent after the
interrupt's effect was observed (any reply after it) is never taken for a queued one; only a
request sent within that short grace without waiting for anything is indistinguishable from
one sent just before the interrupt, and is treated as such. No clock of the client is used.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

import zmq

log = logging.getLogger(__name__)

MAX_REMEMBERED_ARRIVALS = 1024
"""How many received shell messages keep their arrival number (oldest forgotten)."""
IN_FLIGHT_S = 0.1
"""After reading what waits in the shell socket, how long the kernel's own clock gives a
message sent before the interrupt but still in transit (client socket, TCP, ZeroMQ's I/O
thread) to arrive, before the mark is taken."""
SETTLE_TIMEOUT_S = 5.0
"""Longest a shell request waits for an interrupt's mark (the shell channel thread is stuck)."""


def read_waiting(kernel: Any) -> None:
    """On the shell channel thread: read every message waiting in ``kernel``'s shell socket
    (each is numbered and forwarded to the main thread as ipykernel does)."""
    stream = kernel.shell_stream
    try:
        if stream is not None and not stream.closed():
            stream.flush(zmq.POLLIN)
    except Exception:
        log.debug("reading the queued shell messages failed", exc_info=True)


class QueuedInterrupts:
    """Arrival numbers of shell messages and the marks of interrupts (module docstring).

    ``kernel`` is the ipykernel ``Kernel`` (``session``, ``shell_stream``,
    ``shell_channel_thread``); ``on_idle()`` is called for an interrupt that found the kernel
    idle. :meth:`stamp` runs on the shell channel thread; everything else on the kernel's main
    loop, :meth:`signalled` inside the SIGINT handler.
    """

    def __init__(self, kernel: Any, on_idle: Callable[[], None] | None = None) -> None:
        self._kernel = kernel
        self._on_idle = on_idle
        self._lock = threading.Lock()
        self._arrivals: OrderedDict[str, int] = OrderedDict()
        self._executes: deque[int] = deque(maxlen=MAX_REMEMBERED_ARRIVALS)  # not dispatched yet
        self._received = 0
        self._signalled = 0
        self._answered = 0
        self._mark = 0
        self._armed = False
        self._starting: int | None = None
        self._for_starting = False
        self._settled = asyncio.Event()
        self._settled.set()
        self._loop: asyncio.AbstractEventLoop | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """The kernel's main loop (where marks are delivered)."""
        self._loop = loop

    def _header(self, frames: list[Any]) -> dict[str, Any] | None:
        """The header of the shell message ``frames`` (identities included), or None when it
        cannot be read."""
        session = self._kernel.session
        try:
            _, rest = session.feed_identities(frames, copy=False)
            return dict(session.deserialize(rest, content=False, copy=False)["header"])
        except Exception:
            return None

    # -- shell channel thread --------------------------------------------------------
    def stamp(self, frames: list[Any]) -> None:
        """Number the shell message ``frames`` (as read from the shell socket). A message whose
        header cannot be read is left unnumbered (ipykernel rejects it anyway)."""
        header = self._header(frames)
        if header is None:
            return
        with self._lock:
            self._received += 1
            self._arrivals[str(header.get("msg_id"))] = self._received
            while len(self._arrivals) > MAX_REMEMBERED_ARRIVALS:
                self._arrivals.popitem(last=False)
            if header.get("msg_type") == "execute_request":
                self._executes.append(self._received)

    def _start_mark(self, ticket: int) -> None:
        read_waiting(self._kernel)
        self._kernel.shell_channel_thread.io_loop.call_later(IN_FLIGHT_S, self._mark_in_shell_thread, ticket)

    def _mark_in_shell_thread(self, ticket: int) -> None:
        read_waiting(self._kernel)
        with self._lock:
            mark = self._received
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.answer, ticket, mark)

    # -- main thread -----------------------------------------------------------------
    def signalled(self) -> int:
        """A SIGINT arrived (called in the handler): returns its ticket. Shell requests wait
        (:meth:`settled`) until every ticket is answered with :meth:`answer`."""
        self._signalled += 1
        self._settled.clear()
        return self._signalled

    def mark_queued(self, ticket: int) -> None:
        """The interrupt ``ticket`` found no running cell: find what was queued then (on the
        shell channel thread) and arm the mark. Without a shell channel thread nothing counts
        as queued."""
        thread = getattr(self._kernel, "shell_channel_thread", None)
        if thread is None:
            with self._lock:
                mark = self._received
            self.answer(ticket, mark)
            return
        thread.io_loop.add_callback(self._start_mark, ticket)

    def dispatched(self, frames: list[Any]) -> None:
        """The shell message ``frames`` is being handled now (messages are handled in the order
        they arrived): the execute requests up to it are no longer waiting. An execute request
        is *starting* until its work begins (:meth:`consume`) or its handling ends
        (:meth:`dispatch_done`)."""
        header = self._header(frames)
        with self._lock:
            number = self._arrivals.get(str(header.get("msg_id"))) if header is not None else None
            while number is not None and self._executes and self._executes[0] <= number:
                self._executes.popleft()
        is_execute = header is not None and header.get("msg_type") == "execute_request"
        self._starting = number if is_execute else None
        self._for_starting = False

    def dispatch_done(self) -> None:
        """The shell message being handled is done: no execute request is starting."""
        self._starting = None
        self._for_starting = False

    def take_for_starting(self, ticket: int) -> bool:
        """Give interrupt ``ticket``, which found no running work, to the execute request that
        is starting (dispatched, its work not begun: ipykernel publishing its input, or the
        request waiting for an earlier interrupt's mark), which takes it when its work begins.
        False when none is starting. Without this the interrupt would be taken for one that
        found the kernel idle, and stop the yielded cells instead."""
        if self._starting is None:
            return False
        self._for_starting = True
        self.answer(ticket, None)
        return True

    def answer(self, ticket: int, mark: int | None) -> None:
        """Ticket ``ticket`` is resolved: ``mark`` is the highest arrival number it reaches, or
        None when a running cell took the interrupt. With a mark, an execute request waiting
        then takes the interrupt; with none waiting, ``on_idle`` is called."""
        if mark is not None:
            with self._lock:
                waiting = any(number <= mark for number in self._executes)
            if waiting:
                self._mark = max(self._mark, mark)
                self._armed = True
            elif self._on_idle is not None:
                self._on_idle()
        self._answered = max(self._answered, ticket)
        if self._answered >= self._signalled:
            self._settled.set()

    async def settled(self) -> None:
        """Return once every interrupt so far has its mark (bounded by :data:`SETTLE_TIMEOUT_S`)."""
        if self._settled.is_set():
            return
        try:
            async with asyncio.timeout(SETTLE_TIMEOUT_S):
                await self._settled.wait()
        except TimeoutError:
            log.warning("an interrupt's queued requests were not known within %.0f s", SETTLE_TIMEOUT_S)
            self._answered = self._signalled
            self._settled.set()

    def arrival(self, msg_id: str) -> int | None:
        """The arrival number of the shell message ``msg_id`` (None if unknown); forgotten
        once asked for (each request asks once, when it starts)."""
        with self._lock:
            return self._arrivals.pop(msg_id, None)

    def consume(self, arrival: int | None) -> bool:
        """The work of the request that arrived as number ``arrival`` begins: True (once) when
        an interrupt is meant for it, because it was queued when the interrupt found no running
        cell (once per armed mark), or because it was starting then (:meth:`take_for_starting`)."""
        for_starting = self._for_starting and arrival is not None and arrival == self._starting
        self._starting = None
        self._for_starting = False
        if for_starting:
            return True
        if self._armed and arrival is not None and arrival <= self._mark:
            self._armed = False
            return True
        return False
