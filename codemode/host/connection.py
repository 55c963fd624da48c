"""The operations callers use on a host connection (:class:`HostConnection`): open a remote
session, execute, wait, terminate, yield a wait, probe, shut a session down. Each one checks its
arguments against the connection's state and hands a request to the driver
(:class:`~codemode.host.driver.ConnectionDriver`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from codemode.errors import CodeModeError
from codemode.host.answers import delegate_answers
from codemode.host.driver import SHUTDOWN_TIMEOUT_S, ConnectionDriver, wait_deadline_s
from codemode.host.sessions import SessionDelegate, cell_sort_key
from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire import messages, stored_values
from codemode.wire.frame_json import json_text
from codemode.wire.framing import FrameTooLarge, text_frame_parts
from codemode.wire.messages import OutputTruncation

logger = logging.getLogger("codemode.host")
SESSION_RESOURCE_LIMITS_CAPABILITY = "session-cell-execution-resource-limits"


class HostConnection(ConnectionDriver):
    """One handshaken connection to a host; see :class:`~codemode.host.driver.ConnectionDriver`
    for the constructor, :attr:`alive`, :attr:`failure`, :attr:`retiring`, :meth:`fail` and
    :meth:`close`."""

    # -- operations -----------------------------------------------------------------------------
    async def open_session(
        self,
        session_id: str,
        delegate: SessionDelegate,
        *,
        limits: messages.CellExecutionLimits | None = None,
        stored_values: dict[str, Any] | None = None,
        output_truncation: OutputTruncation | None = None,
        cell_id_prefix: str | None = None,
    ) -> None:
        """``session/open``. ``limits``: ``{"maxYieldTimeMs", "maxHeapSizeBytes"}`` (omitted when
        empty); ``cell_id_prefix`` is codemode's extension field (only for our host;
        :func:`codemode.wire.messages.open_body`). ``stored_values`` (only for our host) are the values
        to seed the session with: the open carries codemode's ``storedValues`` extension field
        empty (the host then reports what cells store), and once it is answered each value
        follows in a ``session/storedValues`` frame of its own (:mod:`codemode.wire.stored_values`), so
        no total meets the frame limit (a value too large for one, which our host never reports,
        is logged and left out). Raises :class:`CodeModeError` as any request does.

        If the caller is cancelled while the open is in flight and the host then commits the
        session, the client shuts it down again (``session/shutdown``).
        """
        self._check_alive()
        self._check_not_retiring()
        if limits and SESSION_RESOURCE_LIMITS_CAPABILITY not in self.capabilities:
            raise CodeModeError(
                "code-mode host does not support session resource limits: missing "
                f"`{SESSION_RESOURCE_LIMITS_CAPABILITY}` capability"
            )
        self.state.add_session(session_id, delegate)
        body = messages.open_body(
            session_id,
            limits=limits,
            output_truncation=output_truncation,
            stored_values=None if stored_values is None else {},
            cell_id_prefix=cell_id_prefix,
        )
        task = asyncio.ensure_future(self._open(session_id, body, dict(stored_values or {})))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            task.add_done_callback(lambda done: self._after_abandoned_open(session_id, done))
            raise

    async def _open(self, session_id: str, body: messages.OpenBody, seeds: dict[str, Any]) -> None:
        try:
            await self._request("open", session_id, body)
        except BaseException:
            self.state.open_failed(session_id)
            raise
        for key, value in seeds.items():
            text = stored_values.message_text(session_id, key, json_text(value))
            try:
                header, payload = text_frame_parts(text)
            except FrameTooLarge as exc:  # never from our host, whose store() refuses such a value
                logger.error("stored value %s is not given to the new host: %s", json_text(key)[:80], exc)
                continue
            await self._send_frame(header + payload)

    def _after_abandoned_open(self, session_id: str, task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        if self.alive and session_id in self.state.sessions:
            logger.debug("caller of session/open %s went away; shutting the session down", session_id)
            self._spawn(self.shutdown_session(session_id))

    def _check_not_retiring(self) -> None:
        if self.retiring is not None:
            raise CodeModeError(f"code-mode host is exiting ({self.retiring}); start the cell on a new host")

    async def execute(
        self, session_id: str, request: messages.ExecuteRequest
    ) -> tuple[str, asyncio.Future[RuntimeResponse]]:
        """``session/execute``: returns the host's cell id and a future of the initial response
        (it fails with the connection's failure reason if the host goes away).

        Raises :class:`CodeModeError`: ``unknown code-mode session <id>`` for a session that is not
        open (or is closing), the frame-limit text for an oversized request, host errors, and
        ``code-mode host is exiting …`` after the host's exit notice. A caller cancelled after
        the host admitted the cell leaves a cell the client stops.
        """
        self._check_alive()
        self.state.require_session(session_id)
        self._check_not_retiring()
        body = messages.execute_body(session_id, request)
        return await self._request("execute", session_id, body, too_large="code-mode execute request")

    async def wait(
        self, session_id: str, cell_id: str, yield_time_ms: int, max_output_tokens: int | None = None
    ) -> WaitOutcome:
        """``session/wait`` with the deadline ``yield + 1 s + 60 s``; a wait behind a cancelled,
        not yet answered wait on the same cell is held back until that is answered."""
        self._check_alive()
        self.state.require_session(session_id)
        body = messages.wait_body(session_id, cell_id, yield_time_ms, max_output_tokens)
        timeout = wait_deadline_s(yield_time_ms, self.wait_transport_timeout_s)
        return await self._request("wait", session_id, body, cell_id=cell_id, timeout_s=timeout)

    def yield_wait(self, session_id: str, cell_id: str) -> bool:
        """Send ``operation/yield`` for the wait in flight on the cell, which the host then answers
        at once with ``LiveCell`` + ``Yielded`` (the output since the last observation). False
        when no wait on that cell is in flight (or the connection is dead)."""
        if not self.alive:
            return False
        effects = self.state.yield_wait(session_id, cell_id)
        self._apply(effects)
        return bool(effects)

    async def terminate(self, session_id: str, cell_id: str, max_output_tokens: int | None = None) -> WaitOutcome:
        """``session/terminate`` with the 60 s deadline."""
        return await self._terminate(session_id, cell_id, max_output_tokens)

    async def shutdown_session(self, session_id: str, timeout_s: float = SHUTDOWN_TIMEOUT_S) -> None:
        """``session/shutdown``; afterwards every cell of the session still live is reported
        closed (once) and the session is forgotten.

        The session counts as unknown from the start (later calls on it fail with ``unknown
        code-mode session <id>``); the shutdown runs to its end even if the caller is cancelled.
        Host errors are logged, not raised.
        """
        task = self._shutdowns.get(session_id)
        if task is None:
            session = self.state.begin_shutdown(session_id)
            if session is None:
                return

            async def shutdown() -> None:
                try:
                    await self._request("shutdown", session_id, messages.shutdown_body(session_id), timeout_s=timeout_s)
                except CodeModeError as exc:
                    logger.debug("session/shutdown of %s failed: %s", session_id, exc)
                finally:
                    self._apply(self.state.finish_shutdown(session))

            task = asyncio.ensure_future(shutdown())
            self._shutdowns[session_id] = task
            task.add_done_callback(lambda _t: self._shutdowns.pop(session_id, None))
        await asyncio.shield(task)

    async def bindings(self, session_id: str, path: list[str], timeout_ms: int) -> list[tuple[str, str]] | None:
        """``session/bindings`` (codemode's extension, :mod:`codemode.wire.session_bindings`): the
        ``(name, kind)`` pairs the notebook realm lists at ``path``, None when it was busy for
        ``timeout_ms``. Raises :class:`CodeModeError` when the host did not grant the
        extension, the session is not open, or the connection fails."""
        self._check_alive()
        self.state.require_session(session_id)
        if messages.BINDINGS_CAPABILITY not in self.capabilities:
            raise CodeModeError("code-mode host does not list bindings (not codemode's host in the notebook profile)")
        body = messages.bindings_body(session_id, path, timeout_ms)
        result: list[tuple[str, str]] | None = await self._request("bindings", session_id, body)
        return result

    def answers_read(self, session_id: str, cell_id: str) -> int:
        """How many answers about the cell have been read (:mod:`codemode.host.answers`): in the
        first step of one of its delegate calls, those read before that call's request."""
        stamped = delegate_answers(self._delegates, session_id, cell_id)
        return stamped if stamped is not None else self.state.answers.get(session_id, cell_id)

    def forget_answers(self, session_id: str, cell_id: str) -> None:
        """Drop the cell's count of answers (:meth:`answers_read` reads 0 until another comes)."""
        self.state.answers.forget(session_id, cell_id)

    def live_cells(self, session_id: str) -> list[str]:
        """Host cell ids of the session's admitted, not yet closed cells."""
        session = self.state.sessions.get(session_id)
        return sorted(session.live_cells, key=cell_sort_key) if session else []

    @property
    def pending_requests(self) -> int:
        """Requests not yet answered plus initial responses not yet received."""
        return len(self.state.requests.pending) + len(self.state.requests.initial)

    @property
    def pending_delegate_calls(self) -> int:
        """Delegate calls being served and not revoked (the count that the 1024 limit bounds)."""
        return len(self.state.delegates.served)
