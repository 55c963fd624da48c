"""Asking the person at the notebook for approval, over Jupyter's stdin channel.

A built-in tool that needs approval (``exec_command`` leaving the sandbox,
:mod:`codemode.sandbox.approvals`) calls :meth:`StdinApprovals.ask`. The question goes to the
front end as an ``input_request`` (Jupyter messaging specification, "Messages on the stdin
ROUTER/DEALER channel") under the execute request that is following the calling cell right now
(the cell's own execute, or a ``%wait`` on it), and only when that request set
``allow_stdin``. The reply (``input_reply``) is read without blocking the kernel's event loop,
so other requests (interrupts included) are served meanwhile. One question at a time.

There is no one to ask (the answer is None) when the cell runs in the background, when the
request is silent or did not allow stdin (nbclient, papermill, nbval, most harnesses). A
question still open when its request stops following the cell (the cell yielded, the request
ended) is withdrawn, with the same answer: no front end answers a question whose request is
over.

Only the front end that sent the request can answer: a reply is taken only from the routing
identity the request came from, and only if it names no other question as its parent (front
ends such as ``jupyter_client`` send ``input_reply`` without a parent).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import zmq
import zmq.asyncio
from codemode.kernel.state import KernelState

from codemode.sandbox.approvals import Answer, ApprovalRequest, parse_answer

log = logging.getLogger(__name__)


class StdinApprovals:
    """Approval questions for one kernel (``kernel`` gives ``session``, ``stdin_socket`` and
    ``_publisher``); ``state`` tells which request follows which cell."""

    def __init__(self, kernel: Any, state: KernelState) -> None:
        self._kernel = kernel
        self._state = state
        self._lock = asyncio.Lock()
        self._socket: zmq.asyncio.Socket | None = None

    def _stdin(self) -> zmq.asyncio.Socket:
        if self._socket is None:
            self._socket = zmq.asyncio.Socket.from_socket(self._kernel.stdin_socket)
        return self._socket

    async def ask(self, request: ApprovalRequest) -> Answer | None:
        """The person's answer to ``request``, or None when no one can be asked (module
        docstring). Cancelling the caller abandons the question."""
        # The cell may have asked before the kernel learned its id from the execute's answer
        # (a cell that calls a tool at once): wait until the answers read so far are handled.
        await self._state.order.turn(request.cell_id)
        async with self._lock:
            jupyter_request = self._state.foreground(request.cell_id)
            if jupyter_request is None or jupyter_request.silent or not jupyter_request.allow_stdin:
                return None
            kernel = self._kernel
            if kernel.session is None or kernel.stdin_socket is None:
                return None
            socket = self._stdin()
            while await socket.poll(0):  # replies to an abandoned question are stale: drop them
                await socket.recv_multipart()
            kernel._publisher.flush()  # what the cell printed before the question comes first
            content = {"prompt": request.prompt(), "password": False}
            sent = kernel.session.send(
                kernel.stdin_socket, "input_request", content, jupyter_request.parent, ident=jupyter_request.ident
            )
            reply = asyncio.ensure_future(self._reply(socket, jupyter_request.ident, sent["header"]["msg_id"]))
            released = asyncio.ensure_future(jupyter_request.released())
            try:
                await asyncio.wait({reply, released}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                released.cancel()
                if not reply.done():
                    reply.cancel()
            if reply.cancelled() or not reply.done():
                log.info("approval question for cell %s withdrawn: its request no longer follows it", request.cell_id)
                return None
            return reply.result()

    async def _reply(self, socket: zmq.asyncio.Socket, ident: Any, question_id: str) -> Answer:
        """The answer in the first valid ``input_reply`` from ``ident`` to ``question_id``."""
        session = self._kernel.session
        expected = _identity(ident)
        while True:
            frames = await socket.recv_multipart()
            try:
                idents, message = session.feed_identities(frames)
                reply = session.deserialize(message)
            except Exception:  # noqa: BLE001 - a malformed reply is logged and ignored
                log.warning("ignoring an invalid message on the stdin channel", exc_info=True)
                continue
            if _identity(idents) != expected:
                log.warning("ignoring an input_reply from a peer that was not asked")
                continue
            if reply.get("parent_header", {}).get("msg_id") not in (question_id, None):
                continue
            value = reply.get("content", {}).get("value", "")
            return parse_answer(value if isinstance(value, str) and value != "\x04" else "")


def _identity(frames: Any) -> list[bytes]:
    """A routing identity as bytes (ipykernel may keep it as ``zmq.Frame`` objects)."""
    if not isinstance(frames, (list, tuple)):
        frames = [frames]
    return [bytes(frame.bytes if isinstance(frame, zmq.Frame) else frame) for frame in frames]
