"""Showing a cell's output and outcome, shared by the execute path and ``%wait`` /
``%terminate``.

- :meth:`Delivery.truncate` applies Codex's output budget to one delivery
  (:mod:`codemode.kernel.budget`);
- :meth:`Delivery.follow` hands a yielded cell to a background
  :class:`~codemode.kernel.observer.CellObserver` and opens its status display;
- :meth:`Delivery.note_model_view` keeps, for the reply's metadata, the answer as Codex would
  have returned it to the model (:mod:`codemode.model_view`);
- :meth:`Delivery.deliver_final` shows a finished cell's remaining output and its outcome
  (``CellTerminated`` for a termination, ``HostStopped`` for a cell lost with the runtime host,
  the script's error with a hint for ``console``, :func:`~codemode.kernel.render.with_hint`,
  or nothing) and closes its record.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from codemode import model_view
from codemode.kernel import render
from codemode.kernel.budget import bound_delivery, terminated_budget
from codemode.kernel.cells import CellRecord
from codemode.kernel.displays import StatusDisplays
from codemode.kernel.observer import CellObserver, wait_time_ms
from codemode.kernel.publish import Publisher, Request
from codemode.kernel.services import Services
from codemode.kernel.state import KernelState
from codemode.responses import ResponseKind, RuntimeResponse

log = logging.getLogger(__name__)


class Delivery:
    """Delivers cells' output through ``publisher``, keeping ``state`` and ``displays`` current."""

    def __init__(self, publisher: Publisher, state: KernelState, displays: StatusDisplays) -> None:
        self.publisher = publisher
        self.state = state
        self.displays = displays

    @staticmethod
    def truncate(items: list[dict[str, Any]], max_tokens: int | None) -> list[dict[str, Any]]:
        """``items`` (the output of a delivery with no error) within ``max_tokens``."""
        return bound_delivery(items, None, max_tokens).items

    @staticmethod
    def note_model_view(
        request: Request,
        kind: ResponseKind,
        cell_id: str,
        items: list[dict[str, Any]],
        error_text: str | None,
        max_tokens: int | None,
    ) -> None:
        """Keep on ``request`` the answer it shows as Codex would have returned it to the model:
        ``items`` untruncated, Codex's budget ``max_tokens`` (None: 10 000), the wall time since
        the request arrived. The reply's ``metadata.codemode.model_view``."""
        response = RuntimeResponse(kind, cell_id, list(items), error_text)
        wall = time.monotonic() - request.started
        request.model_view = model_view.render(response, wall, max_tokens).to_json()

    def show_new_problems(self, services: Services, request: Request) -> None:
        """Show configuration problems and notices (an unrestricted sandbox) not shown before,
        once each per kernel, on stderr."""
        lines = [f"codemode configuration problem: {p}" for p in services.problems()]
        lines += [f"codemode: {n}" for n in services.notices()]
        new = [line for line in lines if line not in self.state.shown_errors]
        if new:
            self.state.shown_errors.update(new)
            self.publisher.emit(request, "stream", {"name": "stderr", "text": "".join(f"{line}\n" for line in new)})

    def follow(self, services: Services, record: CellRecord, request: Request, max_tokens: int | None) -> None:
        """``record``'s cell yielded under ``request``: observe it in the background and show
        its status display (unless the request is silent)."""
        request.status = "running"
        observer = CellObserver(
            services.code_mode,
            record,
            self.displays.on_observed,
            self.state.readers[record.cell_id],
            wait_ms=wait_time_ms(getattr(services.config.session, "max_yield_time_ms", None)),
            max_output_tokens=max_tokens,
            explain=services.losses.explain,
        )
        self.state.observers[record.cell_id] = observer
        observer.start()
        if not request.silent:
            self.displays.open(record, request.parent)

    async def deliver_final(
        self, request: Request, record: CellRecord, items: list[dict[str, Any]], max_tokens: int | None
    ) -> dict[str, Any]:
        """Show a finished cell's remaining ``items`` and its outcome within ``max_tokens``
        (the error counts, :mod:`codemode.kernel.budget`); close the record.

        Returns the execute_reply content (status ``error`` for a termination or a failure).
        """
        final = record.final
        assert final is not None
        self.note_model_view(request, final.kind, record.cell_id, items, final.error_text, max_tokens)
        if final.kind == "Terminated":
            max_tokens = terminated_budget(max_tokens)
        script_error = final.error_text if final.kind != "Terminated" and record.lost is None else None
        bounded = bound_delivery(items, script_error, max_tokens)
        await self.publisher.emit_items(request, bounded.items)
        request.observing = False
        record.state = "closed"
        request.status = record.outcome()
        observer = self.state.observers.pop(record.cell_id, None)
        if observer is not None:
            asyncio.ensure_future(observer.aclose())
        if record.displays:
            self.displays.update(record, now=True)
        self.state.close(record)
        if final.kind == "Terminated":
            return self.publisher.error_reply(request, render.terminated_error(record.cell_id, record.restart_note))
        if record.lost is not None:
            return self.publisher.error_reply(request, record.lost.error(record.cell_id))
        if bounded.error is not None:
            return self.publisher.error_reply(request, render.with_hint(bounded.error))
        return self.publisher.ok_reply()
