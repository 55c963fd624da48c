"""Following a yielded cell by events: one long ``session/wait`` at a time, never polling.

A cell that yielded keeps running after its execute_reply, and the kernel must learn at once
when it prints, yields again or ends (status display, ``%wait``). A session allows one
observer per cell at a time (a second ``wait`` gets ``exec cell <id> already has an active
observer``), and Codex's host sends ``cell/closed`` only after the cell's final response was
delivered to an observer, so the cell must be observed to be seen ending. The kernel therefore
is the cell's only observer: a :class:`CellObserver` task keeps exactly one ``session.wait`` in
flight, as long as the session allows (:data:`LONG_WAIT_MS`, clamped by
``max_yield_time_ms``), and starts the next one as soon as the previous is answered. A wait is
answered by an event of the cell, never by a clock of the kernel:

- ``yield_control()`` in the cell: ``Yielded`` with the output so far (Codex's semantics for a
  wait); it ends a ``%wait`` that is collecting;
- the cell's end: ``Result`` (or ``Terminated``), the last answer;
- ``%wait``'s deadline: the kernel sends ``operation/yield`` for the wait in flight
  (``CodeModeSession.yield_wait``), which the host answers at once with ``Yielded`` and
  everything buffered, so ``%wait`` returns exactly what Codex's wait returns at that moment;
- the wait's own time running out (``Yielded``, usually with nothing): the next wait starts.

``%wait`` reads the items buffered in the :class:`~codemode.kernel.cells.CellRecord`
(:meth:`CellObserver.collect`); ``%terminate`` and interrupts go through terminate
(:mod:`codemode.kernel.termination`). The observer is the reader of the cell's events after
the execute (:mod:`codemode.kernel.cell_reader`): it handles them in the host's order while
its wait is in flight, and takes no event after an answer that ends a collecting ``%wait``
until that ``%wait`` has shown it (:meth:`CellObserver.release`), so a notification sent after
it goes to the status display, not under the ``%wait``. Where a ``%wait`` begins is placed in
the host's order too: it first yields the wait in flight, and observes from that answer on, so
a notification the host sent before the ``%wait`` began goes to the status display. Once the
cell ended, its later events are handled as they come.

Cost, measured with ``bench/background_cell.py`` (a yielded cell awaiting a timer, observed
for 30 s, on the shared 2-core development machine; ranges over several runs):

=====================  ================  =================
measured               polling (500 ms)  one wait per cell
=====================  ================  =================
kernel CPU             0.16-0.17 s       0.11-0.14 s
host CPU               0.04 s            0.00-0.01 s
frames written / read  60-65 / 60-67     5 / 5
=====================  ================  =================

The 5 frames each way are the client's liveness probes of a host silent for 5 s while a
request waits; the kernel CPU left is mostly the status display's running time, refreshed
every second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codemode.cell_events import WaitAnswer
from codemode.kernel.cell_reader import CellReader
from codemode.kernel.cells import CellRecord
from codemode.kernel.deadlines import ANSWER_S, PROBE_S
from codemode.kernel.host_loss import HostLoss
from codemode.responses import RuntimeResponse, WaitOutcome

if TYPE_CHECKING:
    from codemode.session import CodeModeSession

log = logging.getLogger(__name__)

LONG_WAIT_MS = 600_000
"""Yield time of the observer's waits when the session sets no ``max_yield_time_ms`` (the
default clamp, 10 minutes); otherwise that clamp."""
TIMER_SLACK_S = 0.05
"""A ``Yielded`` answered this close to the wait's own time ran out (not a ``yield_control()``
or ``operation/yield``)."""
YIELD_ANSWER_S = 5.0
"""How long ``%wait`` waits for the answer to its ``operation/yield`` from a host that answers
probes (it answers in milliseconds; one that does not answer within
:data:`~codemode.kernel.deadlines.ANSWER_S` is probed, and a stopped host fails the probe)."""


def wait_time_ms(max_yield_time_ms: int | None) -> int:
    """The observer's wait length for a session clamped at ``max_yield_time_ms``."""
    return LONG_WAIT_MS if max_yield_time_ms is None else max(1, max_yield_time_ms)


class CellObserver:
    """Owns the observation of one yielded cell (see the module docstring).

    ``code_mode`` is the code-mode session; ``on_change(record)`` is called (on the loop) when
    the record's buffer or final response changed; ``reader`` reads the cell's events;
    ``wait_ms`` is each wait's yield time and ``max_output_tokens`` its budget;
    ``explain(cell_id, exc)`` tells whether a failed wait means the runtime host stopped.
    """

    def __init__(
        self,
        code_mode: CodeModeSession,
        record: CellRecord,
        on_change: Callable[[CellRecord], None],
        reader: CellReader,
        *,
        wait_ms: int = LONG_WAIT_MS,
        max_output_tokens: int | None = None,
        explain: Callable[[str, BaseException], HostLoss | None] | None = None,
    ) -> None:
        self.code_mode = code_mode
        self.record = record
        self.on_change = on_change
        self.reader = reader
        self.wait_ms = wait_ms
        self.max_output_tokens = max_output_tokens
        self.explain = explain
        self._changed = asyncio.Event()
        self._answers = 0
        self._yields = 0
        self._collecting = False
        self._handover: asyncio.Event | None = None
        self._begin: Callable[[], None] | None = None
        self.terminating = False
        """Set by a terminate: the answers still coming are the terminate's business."""
        self.terminated_items: list[dict[str, Any]] = []
        """The items of a ``Terminated`` answering the observer's wait during a terminate."""
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start following the cell (idempotent)."""
        if self._task is None:
            self._task = asyncio.ensure_future(self._run())

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def aclose(self) -> None:
        """Stop following (the cell itself is left alone; a wait in flight is cancelled)."""
        self.release()
        if self._task is not None and not self._task.done():
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass

    def _signal(self) -> None:
        self._changed.set()
        try:
            self.on_change(self.record)
        except Exception:  # a display problem must not stop the observation
            log.exception("status update for cell %s failed", self.record.cell_id)

    async def _run(self) -> None:
        record = self.record
        while record.final is None and not self.terminating:
            started = time.monotonic()
            request = asyncio.ensure_future(
                self.code_mode.wait(
                    record.cell_id, yield_time_ms=self.wait_ms, max_output_tokens=self.max_output_tokens
                )
            )
            try:
                answer = await self.reader.answer(WaitAnswer, request)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # host gone, session shut down, ...
                if not self.terminating and record.final is None:
                    record.lost = self.explain(record.cell_id, exc) if self.explain is not None else None
                    record.finish(RuntimeResponse("Result", record.cell_id, [], error_text=str(exc)))
                    await self._answered(ends_collect=True)
                    self.reader.release()
                return
            finally:
                if not request.done():
                    request.cancel()  # the observer was stopped: the wait is abandoned
            outcome: WaitOutcome = answer.outcome if answer is not None else request.result()
            if self.terminating:
                if outcome.response.kind == "Terminated":
                    self.terminated_items = list(outcome.response.content_items)
                return
            await self._answered(ends_collect=self._take_answer(outcome, started))
        if record.final is not None and not self.terminating:
            self.reader.release()  # the cell ended: its later events are handled as they come

    def _take_answer(self, outcome: WaitOutcome, started: float) -> bool:
        """Apply one wait answer to the record; True when it ends a collecting ``%wait``."""
        record, response = self.record, outcome.response
        if not outcome.live:
            record.finish(response)  # the cell was already gone
            return True
        record.buffer.extend(response.content_items)
        if response.finished:
            record.finish(response)
            return True
        if self._begin is not None:
            return False  # the Yielded that marks where a %wait begins
        if time.monotonic() - started < self.wait_ms / 1000 - TIMER_SLACK_S:
            self._yields += 1
            return True
        return False

    async def _answered(self, *, ends_collect: bool) -> None:
        """An answer was applied: show it, and count it as handled now, or (when it ends a
        collecting ``%wait``) once that ``%wait`` has shown it."""
        self._answers += 1
        handover = asyncio.Event() if ends_collect and self._collecting else None
        self._handover = handover
        self._signal()
        self._began()
        if handover is not None:
            await handover.wait()

    def _began(self) -> None:
        """A ``%wait`` that was waiting for the host to mark its beginning now observes."""
        begin, self._begin = self._begin, None
        if begin is not None:
            begin()

    def release(self) -> None:
        """The ``%wait`` that collected the last answer has shown it (idempotent)."""
        handover, self._handover = self._handover, None
        if handover is not None:
            handover.set()

    async def collect(
        self, yield_time_ms: int, begin: Callable[[], None] | None = None
    ) -> tuple[list[dict[str, Any]], RuntimeResponse | None]:
        """Wait like Codex's ``wait``: until the cell ends, ``yield_control()`` runs, or
        ``yield_time_ms`` passes (then the wait in flight is yielded, see the module
        docstring); then take the buffered items.

        ``begin()`` is called where the ``%wait`` begins in the host's order of the cell's
        events: the wait in flight is yielded first, and ``begin()`` runs as its answer is
        handled (before the events the host sent after it); at once when no wait is in
        flight. Returns ``(items, final)``; ``final`` is None while the cell still runs. The
        caller must call :meth:`release` once it has shown them. Raises
        ``asyncio.CancelledError`` when cancelled (the buffer is left intact).
        """
        record = self.record
        deadline = time.monotonic() + yield_time_ms / 1000
        if begin is not None:
            self._begin = begin
            if record.final is None and self.running:
                await self._yield_now()
            self._began()
        yields_before = self._yields
        self._collecting = True
        try:
            while record.final is None and self._yields == yields_before and self.running:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    await self._yield_now()
                    break
                await self._next_change(remaining)
        finally:
            self._collecting = False
        return self.take()

    async def _yield_now(self) -> None:
        """End the wait in flight (``operation/yield``) and wait for its answer to be applied;
        nothing to do when no wait is in flight (everything received is buffered)."""
        answers = self._answers
        if not self.code_mode.yield_wait(self.record.cell_id):
            return
        if await self._answer_within(answers, ANSWER_S):
            return
        # A stopped host fails the probe: the wait in flight fails at once with it, and the cell
        # ends as lost with its host (HostStopped) instead of "still running".
        await self.code_mode.probe_host(PROBE_S)
        await self._answer_within(answers, YIELD_ANSWER_S - ANSWER_S)

    async def _answer_within(self, answers: int, timeout_s: float) -> bool:
        """True once an answer after the first ``answers`` was applied (or the observation
        ended) within ``timeout_s`` seconds, else False."""
        deadline = time.monotonic() + timeout_s
        while self._answers == answers and self.running:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            await self._next_change(remaining)
        return True

    async def _next_change(self, timeout_s: float) -> None:
        """Return at the next answer or end applied, or after ``timeout_s`` seconds."""
        self._changed.clear()
        try:
            async with asyncio.timeout(timeout_s):
                await self._changed.wait()
        except TimeoutError:
            pass

    def take(self) -> tuple[list[dict[str, Any]], RuntimeResponse | None]:
        """Remove and return the buffered items and the final response (if the cell ended)."""
        items, self.record.buffer = self.record.buffer, []
        return items, self.record.final
