"""Serving the host's tool calls: each call runs as a task through its remote session's
delegate and is answered with ``delegate/response``, unless it
was revoked first (``delegate/cancel``, its cell closed, the connection failed): then its token
is cancelled, it is never answered, and nobody waits for it to finish."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from codemode.cancellation import CancellationToken
from codemode.errors import CodeModeError, ToolCallError
from codemode.host.effects import ServeDelegate
from codemode.wire import messages
from codemode.wire.framing import FrameTooLarge, encode_frame
from codemode.wire.messages import WireResult

logger = logging.getLogger("codemode.host")


class DelegateServer:
    """``send_frame`` writes a frame to the host; ``alive()`` tells whether the connection is;
    ``finished(delegate_id)`` is called when a call that was not revoked has been answered."""

    def __init__(
        self,
        send_frame: Callable[[bytes], Awaitable[None]],
        alive: Callable[[], bool],
        finished: Callable[[int], None],
    ) -> None:
        self._send_frame = send_frame
        self._alive = alive
        self._finished = finished
        self._calls: dict[int, tuple[CancellationToken, asyncio.Task[None]]] = {}
        self._revoked: set[asyncio.Task[None]] = set()

    def serve(self, effect: ServeDelegate) -> None:
        """Run the call."""
        token = CancellationToken()
        task = asyncio.ensure_future(self._serve(effect, token))
        self._calls[effect.delegate_id] = (token, task)

    def revoke(self, delegate_id: int) -> None:
        entry = self._calls.pop(delegate_id, None)
        if entry is None:
            return
        token, task = entry
        token.cancel()
        if not task.done():
            self._revoked.add(task)
            task.add_done_callback(self._revoked.discard)

    async def _serve(self, effect: ServeDelegate, token: CancellationToken) -> None:
        delegate_id = effect.delegate_id
        try:
            result = await self._run(effect, token)
            if token.cancelled or not self._alive():
                return
            try:
                frame = encode_frame(messages.delegate_response(delegate_id, result))
            except FrameTooLarge as exc:
                text = f"code-mode tool result exceeds the IPC frame limit: {exc}"
                frame = encode_frame(messages.delegate_response(delegate_id, messages.error(text)))
            except (TypeError, ValueError) as exc:
                text = f"code-mode tool result is not JSON: {exc}"
                frame = encode_frame(messages.delegate_response(delegate_id, messages.error(text)))
            with contextlib.suppress(CodeModeError):
                await self._send_frame(frame)
        finally:
            entry = self._calls.get(delegate_id)
            if entry is not None and entry[0] is token:
                del self._calls[delegate_id]
                self._finished(delegate_id)

    @staticmethod
    async def _run(effect: ServeDelegate, token: CancellationToken) -> WireResult:
        request: Any = effect.request["request"]
        try:
            return messages.tool_result(await effect.session.delegate.invoke_tool(request["invocation"], token))
        except asyncio.CancelledError:
            raise
        except ToolCallError as exc:
            return messages.error(str(exc))
        except Exception as exc:  # noqa: BLE001 - becomes the call's error answer
            logger.exception("code-mode delegate task failed")
            return messages.error(f"code-mode delegate task failed: {exc}")

    def tasks(self) -> list[asyncio.Task[None]]:
        """Every call still running, answered or revoked."""
        return [task for _, task in self._calls.values()] + list(self._revoked)
