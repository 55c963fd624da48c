"""Terminating cells within a second, whatever the runtime host does.

An interrupt (or ``%terminate``) sends ``session/terminate``. A host answers within
milliseconds for a cell it can interrupt, and after half a second for one it cannot (it then
announces its exit, answers with the output the cell produced before, and exits; the next
cell starts on a new host). A host that was
stopped (``kill -STOP``) or deadlocked never answers: the client would notice only after about
11 s (its liveness probe) or 60 s (the terminate's deadline). So :meth:`Terminations.stop`
waits :data:`ANSWER_S` for the answer, then probes the host (``CodeModeSession.probe_host``,
at most :data:`~codemode.kernel.deadlines.PROBE_S`):

- the probe is not answered: the connection has failed (the host's process group is killed,
  every request pending on it fails at once), and with it the terminate. The cell was lost
  with its host: the kernel shows ``HostStopped`` (:mod:`codemode.kernel.host_loss`); stored
  values are kept and the next cell starts a new host;
- the probe is answered: the host is alive, and the terminate's answer is awaited until
  ``ANSWER_S + PROBE_S`` after the interrupt (a host that must exit to stop the cell answers
  in that time, with the cell's output);
- the answer still has not come: the request ends with ``CellTerminated`` while the terminate
  finishes in the background. The cell's record is closed at once, so whatever the cell still produces
  (output, notifications, tool output) is dropped, and the terminate's late answer too; its
  tool calls were cancelled by the terminate. The next execute waits for such a terminate
  (at most :data:`SETTLE_S`, :meth:`Terminations.settle`): if the host announces its exit to
  stop the cell, that cell starts on the new host instead of one about to exit.

Either way the request ends within ``ANSWER_S + PROBE_S`` (0.9 s) of the interrupt.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from codemode.cell_events import InitialAnswer, WaitAnswer
from codemode.kernel.cell_reader import CellReader
from codemode.kernel.cells import CellRecord
from codemode.kernel.deadlines import ANSWER_S, await_or_probe
from codemode.kernel.observer import CellObserver
from codemode.kernel.services import Services
from codemode.responses import RuntimeResponse, WaitOutcome

log = logging.getLogger(__name__)

SETTLE_S = 2.0
"""How long a new cell waits for a terminate still in flight (the host gives an unstoppable
cell half a second before it announces its exit)."""


@dataclass
class Stopped:
    """How a terminate ended: the host's ``response`` (``Terminated``, or the ``Result`` of a
    cell that completed first) with its ``items``; or the session's ``failure`` (a
    :class:`~codemode.errors.HostConnectionError` when the host went away); or neither when
    the answer did not come in time (``pending``)."""

    response: RuntimeResponse | None = None
    items: list[dict[str, Any]] = field(default_factory=list)
    failure: BaseException | None = None

    @property
    def pending(self) -> bool:
        return self.response is None and self.failure is None


class Terminations:
    """Runs terminates with the bound of the module docstring and keeps those still in flight."""

    def __init__(self) -> None:
        self._unfinished: set[asyncio.Task[Any]] = set()

    async def stop(
        self,
        terminate: Callable[[], Awaitable[WaitOutcome]],
        probe: Callable[[float], Awaitable[bool]],
    ) -> Stopped:
        """Run ``terminate()`` (the session's terminate of one cell); if it has not answered
        within :data:`ANSWER_S`, ``probe(PROBE_S)`` the host, and wait for the answer until
        ``ANSWER_S + PROBE_S`` when the probe is answered. Returns within about
        ``ANSWER_S + PROBE_S`` seconds; a terminate still in flight then goes on in the
        background (see the module docstring)."""
        task = asyncio.ensure_future(terminate())
        self._unfinished.add(task)
        task.add_done_callback(self._finished)
        await await_or_probe(task, probe, wait_while_alive=True)
        if not task.done():
            log.info("terminate not answered within %.1f s; the host answers probes, so it goes on", ANSWER_S)
            return Stopped()
        exc = task.exception()
        if exc is not None:
            return Stopped(failure=exc)
        outcome: WaitOutcome = task.result()
        return Stopped(outcome.response, list(outcome.response.content_items))

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._unfinished.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.debug("terminate failed: %s", task.exception())

    @property
    def in_flight(self) -> int:
        """Terminates not answered yet."""
        return len(self._unfinished)

    async def settle(self, timeout_s: float = SETTLE_S) -> None:
        """Wait until every terminate in flight has ended, at most ``timeout_s`` seconds."""
        if self._unfinished:
            await asyncio.wait(set(self._unfinished), timeout=timeout_s)


def outcome_is_missing(response: RuntimeResponse) -> bool:
    """True for the ``exec cell <id> not found`` answer (the cell was already gone)."""
    text = response.error_text or ""
    return response.kind == "Result" and text.startswith("exec cell ") and text.endswith(" not found")


async def stop_cell(
    terminations: Terminations,
    services: Services,
    record: CellRecord,
    max_tokens: int | None,
    *,
    reader: CellReader | None = None,
    observer: CellObserver | None = None,
    first_unread: bool = False,
) -> list[dict[str, Any]]:
    """Terminate ``record``'s cell (bounded, :meth:`Terminations.stop`) unless it already ended,
    record how it ended and return the output not shown yet (within ``max_tokens`` per the host).

    The end recorded: the host's ``Terminated``; the cell's ``Result`` when it completed first
    (a first response not taken yet, or the ``observer``'s last answer; Codex's terminate
    answers the same); a cell lost with its host (``record.lost``, shown as ``HostStopped``);
    ``Terminated`` when the answer did not come in time or the cell was already gone; any other
    session error as a failed ``Result``. A ``Terminated`` cell whose host exited to stop it
    gets ``record.restart_note`` in the notebook profile (bindings went with the host).
    ``observer`` (a yielded cell's) is closed. Then the events of the cell's stream read so far
    are handled in order by ``reader`` (:meth:`~codemode.kernel.cell_reader.CellReader.drain`);
    with ``first_unread``, a first answer among them was not shown yet: a ``Yielded``'s output
    comes first.
    """
    cell_id = record.cell_id
    if observer is not None:
        observer.terminating = True
        observer.release()
    response: RuntimeResponse | None = None
    items: list[dict[str, Any]] = []
    if record.final is None:

        async def terminate() -> WaitOutcome:
            with services.losses.terminations.terminating(cell_id):
                return await services.code_mode.terminate(cell_id, max_output_tokens=max_tokens)

        stopped = await terminations.stop(terminate, services.code_mode.probe_host)
        response, items = stopped.response, stopped.items
        if stopped.failure is not None:
            record.lost = services.losses.explain(cell_id, stopped.failure)
            response = RuntimeResponse("Result", cell_id, [], error_text=str(stopped.failure))
    if observer is not None:
        await observer.aclose()
    answers = reader.drain() if reader is not None else []
    firsts = [a.response for a in answers if isinstance(a, InitialAnswer)] if first_unread else []
    if firsts:
        first = firsts[0]
        if first.kind == "Yielded":
            # The cell yielded just before the interrupt and its output was not shown yet: it
            # comes before whatever the cell printed after yielding.
            items = list(first.content_items) + items
        elif first.kind == "Terminated" and not items:
            items = list(first.content_items)
        elif first.kind == "Result" and (response is None or response.kind != "Result" or outcome_is_missing(response)):
            response, items = first, list(first.content_items)  # natural completion won the race
    if observer is not None and not items:
        items = observer.terminated_items
    if not items:  # the observer's wait, answered by the terminate after the observer stopped
        ended = [a.outcome.response for a in answers if isinstance(a, WaitAnswer) and a.outcome.live]
        items = [item for response in ended if response.kind == "Terminated" for item in response.content_items]
    if response is None or outcome_is_missing(response):
        response = RuntimeResponse("Terminated", cell_id, [])
    if record.final is None:
        record.buffer.extend(items)
        record.finish(response)
        if response.kind == "Terminated":
            record.restart_note = services.losses.restart_note(cell_id)
    remaining, record.buffer = record.buffer, []
    return remaining
