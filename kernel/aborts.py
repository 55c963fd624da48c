"""stop_on_error: the queue is marked before a failed execute's reply leaves, not after.

When an execute request fails (and it is not silent and its ``stop_on_error`` is true, the
default), ipykernel aborts the execute requests already queued behind it: it sets
``_aborting`` and asks the shell channel thread to queue a "stop aborting" marker behind them
(``Kernel._abort_queues``); every execute request handled before the marker gets an
``aborted`` reply. ipykernel does both only *after* it sent the reply, so a client that sends
its next request the moment the reply arrives races the marker: when the request reaches the
shell channel thread first, it is queued before the marker and aborted although it was sent
after the failure was known (ipykernel issue #609; here 20 of 345 requests sent on the reply).

:class:`StopOnError` starts the abort before the reply is sent (:meth:`StopOnError.before_reply`,
called at the end of ``do_execute``): ``_aborting`` is set, and the shell channel thread reads
every message waiting in the shell socket (so that what was sent before the failure is queued
and aborted) and queues the marker behind them; the reply leaves once the marker is queued.
A request sent after the reply arrived therefore always comes after the marker and runs.
ipykernel's own ``_abort_queues`` call after the reply then does nothing
(:meth:`StopOnError.started`). A request that was still in transit when the cell failed is
not aborted, as in ipykernel.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Any

from codemode.kernel.interrupts import read_waiting

log = logging.getLogger(__name__)

MARKER_TIMEOUT_S = 5.0
"""Longest a failed execute's reply waits for the shell channel thread to queue the marker
(the thread is stuck); the reply then leaves anyway."""


def aborts_queue(parent: dict[str, Any], reply: dict[str, Any]) -> bool:
    """True when ipykernel aborts the queue after replying ``reply`` to the execute request
    ``parent`` (``Kernel.execute_request``: an error, not silent, ``stop_on_error`` true)."""
    content = parent.get("content", {})
    silent = bool(content.get("silent", False))
    return reply.get("status") == "error" and not silent and bool(content.get("stop_on_error", True))


class StopOnError:
    """Starts ipykernel's abort of the queued execute requests before the failed request's
    reply is sent (module docstring). ``kernel`` is the ipykernel ``Kernel``; used on its main
    loop, :meth:`_queue_marker` on the shell channel thread."""

    def __init__(self, kernel: Any) -> None:
        self._kernel = kernel
        self._started = False

    async def before_reply(self, parent: dict[str, Any], reply: dict[str, Any]) -> None:
        """Called with the execute request ``parent`` and its ``reply`` content just before
        ipykernel sends it: when the reply will abort the queue, start aborting now and return
        once the marker is queued."""
        kernel = self._kernel
        self._started = False
        thread = getattr(kernel, "shell_channel_thread", None)
        if thread is None or not aborts_queue(parent, reply):
            return
        kernel._aborting = True
        self._started = True
        queued: concurrent.futures.Future[None] = concurrent.futures.Future()
        thread.io_loop.add_callback(self._queue_marker, queued)
        try:
            async with asyncio.timeout(MARKER_TIMEOUT_S):
                await asyncio.wrap_future(queued)
        except Exception:
            log.warning("the stop-aborting marker was not queued before the reply", exc_info=True)

    def _queue_marker(self, queued: concurrent.futures.Future[None]) -> None:
        """On the shell channel thread: read what waits in the shell socket (each message is
        forwarded by a task taking the thread's lock in turn), then queue the marker after them."""
        kernel = self._kernel
        read_waiting(kernel)

        async def post() -> None:
            try:
                async with kernel.shell_channel_thread.asyncio_lock:
                    kernel._post_dummy_stop_aborting_message(None)
            except Exception as exc:
                queued.set_exception(exc)
            else:
                queued.set_result(None)

        asyncio.ensure_future(post())

    def started(self) -> bool:
        """True (once) when the abort of the request just replied to was started before its
        reply: ipykernel's ``_abort_queues`` must then not start another."""
        started, self._started = self._started, False
        return started
