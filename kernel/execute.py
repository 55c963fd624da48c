"""The foreground execute path: run a JavaScript cell until it ends, yields or is interrupted.

Flow: build the services on first use, show new configuration
problems, parse the optional ``// @exec:`` pragma (a ``PragmaError`` shows Codex's exact
text), start the cell, then wait for its first response:

- ``Yielded``: its output so far is shown and the cell is followed in the background
  (:meth:`~codemode.kernel.delivery.Delivery.follow`); the reply's status is ``running``.
  In a headless request (:mod:`codemode.kernel.headless`) a cell that did not ask to yield
  (no ``yield_time_ms`` in its pragma, no ``yield_control()``) is waited for instead, its
  output shown as it comes, until it ends;
- ``Result`` / ``Terminated``: output and outcome are shown and the cell is closed;
- the runtime host died: ``HostStopped`` (:mod:`codemode.kernel.host_loss`); one that died
  while no cell ran is replaced by this cell, whose output begins with a ``stderr`` line saying
  so and what the new host keeps;
- an interrupt (the request's task cancelled) terminates the cell and shows what it left,
  within a second whatever the host does (:mod:`codemode.kernel.termination`); a natural
  completion that won the race is shown as such (Codex's terminate answers with the cell's
  result when it had already completed). An interrupt while the host admits the cell waits
  for the admission within the same bound; past it the execute is abandoned (the client stops
  a cell admitted later) and ends with ``CellTerminated`` without a cell id;
- the execute is the first reader of the cell's events (:mod:`codemode.kernel.cell_reader`):
  what the host sent before the first answer is shown before it, and what it sent after a
  ``Yielded`` goes to the status display, read by the cell's observer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from codemode import model_view
from codemode.cell_events import InitialAnswer, WaitAnswer
from codemode.errors import HostConnectionError
from codemode.kernel.cells import CellRecord
from codemode.kernel.deadlines import await_or_probe
from codemode.kernel.delivery import Delivery
from codemode.kernel.headless import asked_to_yield, follow_wait_ms, is_headless
from codemode.kernel.observer import wait_time_ms
from codemode.kernel.publish import Publisher, Request
from codemode.kernel.services import Services, ServicesLoader
from codemode.kernel.state import KernelState
from codemode.kernel.termination import stop_cell
from codemode.responses import RuntimeResponse

log = logging.getLogger(__name__)


class ForegroundExecutor:
    """Runs JavaScript cells for execute requests (see the module docstring)."""

    def __init__(self, publisher: Publisher, state: KernelState, delivery: Delivery, loader: ServicesLoader) -> None:
        self.publisher = publisher
        self.state = state
        self.delivery = delivery
        self.loader = loader

    async def run(self, code: str, request: Request, execution_count: int) -> dict[str, Any]:
        """Run ``code`` (JavaScript with an optional pragma line) for ``request``; returns the
        execute_reply content. Errors are shown and returned, never raised; ``CancelledError``
        propagates only when the interrupt came before the cell existed."""
        try:
            services = await self.loader.get()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.exception("building the code-mode session failed")
            return self.publisher.plain_error_reply(
                request,
                "CodeModeError",
                f"The code-mode session could not be started: {exc}. "
                "Check the configuration and the kernel log, then run the cell again.",
            )
        # A cell that may use the tools of an MCP server still starting waits for the servers
        # (execute would wait anyway), so their start-up problems show with it; any other cell
        # starts at once, and a later cell shows the problems found meanwhile.
        await services.registry.tools_for(code)
        self.delivery.show_new_problems(services, request)
        try:
            source = services.pragma.parse_exec_source(code)
        except services.pragma.PragmaError as exc:
            request.model_view = model_view.refused(str(exc)).to_json()
            return self.publisher.plain_error_reply(request, "PragmaError", str(exc))
        state = self.state
        headless = is_headless(services.config.session.headless, request.allow_stdin)
        runs_to_end = headless and source.yield_time_ms is None
        if runs_to_end:
            yield_time_ms: int | None = wait_time_ms(services.config.session.max_yield_time_ms)
        else:
            yield_time_ms = source.yield_time_ms if source.yield_time_ms is not None else state.yield_time_ms
        max_tokens = source.max_output_tokens if source.max_output_tokens is not None else state.max_output_tokens
        # A cell whose terminate is still in flight may make its host exit: start after it.
        await state.terminations.settle()
        admitted = state.starting = asyncio.get_running_loop().create_future()
        try:
            return await self._start(
                services, request, execution_count, source, yield_time_ms, max_tokens, runs_to_end=runs_to_end
            )
        finally:
            if not admitted.done():
                admitted.set_result(None)
            if state.starting is admitted:
                state.starting = None

    async def _start(
        self,
        services: Services,
        request: Request,
        execution_count: int,
        source: Any,
        yield_time_ms: int | None,
        max_tokens: int | None,
        *,
        runs_to_end: bool = False,
    ) -> dict[str, Any]:
        """Start the cell and show its first answer; ``runs_to_end``: a headless cell that did
        not ask to yield, asked with ``yield_time_ms`` the longest the session allows."""
        state = self.state
        sent = time.monotonic()
        starting = asyncio.ensure_future(
            services.code_mode.execute(
                source.source,
                yield_time_ms=yield_time_ms,
                max_output_tokens=max_tokens,
                tool_call_id=request.parent.get("header", {}).get("msg_id"),
                on_idle_loss=lambda failure: self._tell_idle_loss(services, request, failure),
            )
        )
        try:
            started = await asyncio.shield(starting)
        except asyncio.CancelledError:
            request.interrupted = True
            try:
                started = await self._started_despite_interrupt(services, starting)
            except asyncio.CancelledError:
                raise  # nothing started in time: CellTerminated without a cell
            except Exception as exc:
                return self._not_started(services, request, exc)
        except Exception as exc:
            return self._not_started(services, request, exc)

        record = CellRecord(started.cell_id, request.parent, execution_count, max_output_tokens=max_tokens)
        state.cells[record.cell_id] = record
        request.cell_id = record.cell_id
        request.execution_count = execution_count
        request.observing = True
        reader = state.read(started.events)
        if state.starting is not None and not state.starting.done():
            state.starting.set_result(None)  # approvals for the cell now wait for its reader
        if request.interrupted:
            return await self._terminate_now(services, record, request, max_tokens, first_unread=True)
        try:
            first = await reader.answer(InitialAnswer, started.initial_response)
            response: RuntimeResponse = first.response if first is not None else started.initial_response.result()
        except asyncio.CancelledError:
            return await self._terminate_now(services, record, request, max_tokens, first_unread=True)
        except Exception as exc:
            return await self._lost(services, record, request, exc, max_tokens)

        if response.kind == "Yielded":
            if runs_to_end and yield_time_ms is not None:
                if not asked_to_yield(response, time.monotonic() - sent, yield_time_ms):
                    wait_ms = follow_wait_ms(state.yield_time_ms, yield_time_ms)
                    return await self._run_to_end(services, record, request, max_tokens, response, wait_ms)
            return await self._yielded(services, record, request, response, max_tokens)
        record.finish(response)
        return await self.delivery.deliver_final(request, record, response.content_items, max_tokens)

    async def _yielded(
        self,
        services: Services,
        record: CellRecord,
        request: Request,
        response: RuntimeResponse,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        """The cell yielded under ``request``: show its output so far, follow it in the
        background and reply ``ok`` (status ``running``)."""
        self.delivery.note_model_view(request, "Yielded", record.cell_id, response.content_items, None, max_tokens)
        items = self.delivery.truncate(response.content_items, max_tokens)
        await self.publisher.emit_items(request, items, last=False)
        if request.interrupted:  # the interrupt came while the output was being sent (shown)
            # When it stopped that delivery, the cell's later output is not shown either.
            return await self._terminate_now(services, record, request, max_tokens)
        request.observing = False
        self.delivery.follow(services, record, request, max_tokens)  # reads what came after
        return self.publisher.ok_reply()

    async def _run_to_end(
        self,
        services: Services,
        record: CellRecord,
        request: Request,
        max_tokens: int | None,
        response: RuntimeResponse,
        wait_ms: int,
    ) -> dict[str, Any]:
        """A headless cell that did not ask to yield got ``response``, a ``Yielded`` of the
        host's timer or full output window: show its output and wait again (``wait_ms`` each),
        until the cell ends (its final answer shown as any cell's) or yields by
        ``yield_control()`` (followed in the background, :meth:`_yielded`). An interrupt
        terminates it; a host lost meanwhile ends it with ``HostStopped``."""
        reader = self.state.readers[record.cell_id]
        while True:
            await self.publisher.emit_items(
                request, self.delivery.truncate(response.content_items, max_tokens), last=False
            )
            if request.interrupted:
                return await self._terminate_now(services, record, request, max_tokens)
            sent = time.monotonic()
            waiting = asyncio.ensure_future(
                services.code_mode.wait(record.cell_id, yield_time_ms=wait_ms, max_output_tokens=max_tokens)
            )
            try:
                answer = await reader.answer(WaitAnswer, waiting)
            except asyncio.CancelledError:
                return await self._terminate_now(services, record, request, max_tokens)
            except Exception as exc:
                return await self._lost(services, record, request, exc, max_tokens)
            finally:
                if not waiting.done():
                    waiting.cancel()  # interrupted: the wait is abandoned, the cell terminated
            outcome = answer.outcome if answer is not None else waiting.result()
            response = outcome.response
            if not outcome.live or response.finished:
                record.finish(response)
                return await self.delivery.deliver_final(request, record, response.content_items, max_tokens)
            if asked_to_yield(response, time.monotonic() - sent, wait_ms):
                return await self._yielded(services, record, request, response, max_tokens)

    async def _lost(
        self, services: Services, record: CellRecord, request: Request, exc: Exception, max_tokens: int | None
    ) -> dict[str, Any]:
        """Waiting for the cell's answer failed with ``exc``: ``HostStopped`` when the host
        stopped (:mod:`codemode.kernel.host_loss`), else the error, as the cell's end."""
        record.lost = services.losses.explain(record.cell_id, exc)
        record.finish(RuntimeResponse("Result", record.cell_id, [], error_text=str(exc)))
        if record.lost is not None:
            return await self.delivery.deliver_final(request, record, [], max_tokens)
        self.state.close(record)
        request.status = record.outcome()
        return self.publisher.plain_error_reply(request, type(exc).__name__, str(exc))

    async def _started_despite_interrupt(self, services: Services, starting: asyncio.Future[Any]) -> Any:
        """Interrupted while the host admits the cell: the started cell (to be terminated) if
        the host admits it within the interrupt's bound (:mod:`codemode.kernel.termination`).
        Raises the execute's error (a host that failed the probe: ``HostConnectionError``), or
        ``CancelledError`` when nothing was admitted in time (the execute is abandoned; the
        client stops a cell the host admits later)."""
        await await_or_probe(starting, services.code_mode.probe_host, wait_while_alive=False)
        if not starting.done():
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await starting
            raise asyncio.CancelledError
        return starting.result()

    def _tell_idle_loss(self, services: Services, request: Request, failure: HostConnectionError) -> None:
        """The cell goes to a new host because the last one died while no cell ran: say so on
        ``stderr`` before anything of the cell (:meth:`~codemode.kernel.host_loss.HostLoss.idle_note`)."""
        note = services.losses.idle(failure).idle_note()
        self.publisher.emit(request, "stream", {"name": "stderr", "text": f"{note}\n"})

    def _not_started(self, services: Services, request: Request, exc: Exception) -> dict[str, Any]:
        """The cell could not be started: ``HostStopped`` when the host died under the execute,
        else the session's error (e.g. ``code-mode host has too many active cells``)."""
        loss = services.losses.explain(None, exc)
        if loss is not None:
            return self.publisher.error_reply(request, loss.error(None))
        return self.publisher.plain_error_reply(request, type(exc).__name__, str(exc))

    async def _terminate_now(
        self,
        services: Services,
        record: CellRecord,
        request: Request,
        max_tokens: int | None,
        *,
        first_unread: bool = False,
    ) -> dict[str, Any]:
        """Interrupted while the execute waited: terminate the cell (within the interrupt's
        bound) and show what it left. ``first_unread``: the cell's first answer was not taken
        yet (one that came just before the interrupt is shown first)."""
        reader = self.state.readers.get(record.cell_id)
        items = await stop_cell(
            self.state.terminations, services, record, max_tokens, reader=reader, first_unread=first_unread
        )
        return await self.delivery.deliver_final(request, record, items, max_tokens)
