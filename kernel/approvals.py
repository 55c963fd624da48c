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
identity the request came from, and only if it names no other question as its parent.

A reply that names no question at all (``jupyter_client``'s ``KernelClient.input()`` sends
``input_reply`` without a parent header, and ``jupyter console`` answers through it) cannot be
told from a late answer to a question that was withdrawn: such a reply answers the open question
only if no question to that front end was withdrawn unanswered since its last reply; otherwise
it is refused and the question is asked again (a new ``input_request``, saying why), so that a
``y`` typed for a withdrawn question never approves the next one. A reply that names its
question answers only that one. Replies that arrive while no question is open are dropped
before the next question (as ipykernel's ``Kernel._input_request`` drops stale replies), and
count as that front end's late answer.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Literal

import zmq
import zmq.asyncio
from codemode.kernel.state import KernelState

from codemode.sandbox.approvals import Answer, ApprovalRequest, parse_answer

log = logging.getLogger(__name__)


ASKED_AGAIN = "(Asked again: the answer that came may have been meant for an earlier question, which was withdrawn.)"
"""The first line of a question asked again after a reply without a parent was refused."""

Identity = tuple[bytes, ...]


class StdinApprovals:
    """Approval questions for one kernel (``kernel`` gives ``session``, ``stdin_socket`` and
    ``_publisher``); ``state`` tells which request follows which cell."""

    def __init__(self, kernel: Any, state: KernelState) -> None:
        self._kernel = kernel
        self._state = state
        self._lock = asyncio.Lock()
        self._socket: zmq.asyncio.Socket | None = None
        self._withdrawn: set[Identity] = set()
        """Front ends asked a question that was withdrawn before they answered it, and which sent
        no reply since: their next reply without a parent may be meant for that question."""

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
            while await socket.poll(0):  # replies to questions that are over: late answers
                self._read(await socket.recv_multipart())
            kernel._publisher.flush()  # what the cell printed before the question comes first
            asked = _identity(jupyter_request.ident)
            prompt = request.prompt()
            answered = False
            try:
                while True:
                    outcome = await self._question(socket, jupyter_request, asked, prompt)
                    if outcome == "withdrawn":
                        log.info(
                            "approval question for cell %s withdrawn: its request no longer follows it", request.cell_id
                        )
                        return None
                    if outcome != "again":
                        answered = True
                        return outcome
                    log.info(
                        "a reply without a parent after a withdrawn question: asking cell %s again", request.cell_id
                    )
                    prompt = ASKED_AGAIN + "\n" + request.prompt()
            finally:
                if not answered:
                    self._withdrawn.add(asked)

    async def _question(
        self, socket: zmq.asyncio.Socket, jupyter_request: Any, asked: Identity, prompt: str
    ) -> Answer | Literal["again", "withdrawn"]:
        """Send one ``input_request`` with ``prompt`` under ``jupyter_request`` and wait for its
        answer, ``"again"`` (a reply without a parent was refused) or ``"withdrawn"`` (the
        request stopped following the cell first)."""
        kernel = self._kernel
        content = {"prompt": prompt, "password": False}
        sent = kernel.session.send(
            kernel.stdin_socket, "input_request", content, jupyter_request.parent, ident=jupyter_request.ident
        )
        reply = asyncio.ensure_future(self._reply(socket, asked, sent["header"]["msg_id"]))
        released = asyncio.ensure_future(jupyter_request.released())
        try:
            await asyncio.wait({reply, released}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            released.cancel()
            if not reply.done():
                reply.cancel()
        if reply.cancelled() or not reply.done():
            return "withdrawn"
        answer = reply.result()
        return "again" if answer is None else answer

    def _read(self, frames: list[bytes]) -> tuple[Identity, dict[str, Any]] | None:
        """The sender and the message of ``frames`` read on the stdin channel, or None when they
        are not a valid message (logged). Any valid message from a front end is its reply to
        something: it clears that front end's withdrawn question (:attr:`_withdrawn`)."""
        session = self._kernel.session
        try:
            idents, message = session.feed_identities(frames)
            reply = session.deserialize(message)
        except Exception:  # noqa: BLE001 - a malformed reply is logged and ignored
            log.warning("ignoring an invalid message on the stdin channel", exc_info=True)
            return None
        sender = _identity(idents)
        self._withdrawn.discard(sender)
        return sender, reply

    async def _reply(self, socket: zmq.asyncio.Socket, asked: Identity, question_id: str) -> Answer | None:
        """The answer in the first valid ``input_reply`` from ``asked`` to ``question_id``; None
        for a reply without a parent that may be a late answer to a withdrawn question."""
        while True:
            was_withdrawn = asked in self._withdrawn
            read = self._read(await socket.recv_multipart())
            if read is None:
                continue
            sender, reply = read
            if sender != asked:
                log.warning("ignoring an input_reply from a peer that was not asked")
                continue
            parent = reply.get("parent_header", {}).get("msg_id")
            if parent is None and was_withdrawn:
                return None
            if parent not in (question_id, None):
                continue  # a late answer to a question that is over
            value = reply.get("content", {}).get("value", "")
            return parse_answer(value if isinstance(value, str) and value != "\x04" else "")


def _identity(frames: Any) -> Identity:
    """A routing identity as bytes (ipykernel may keep it as ``zmq.Frame`` objects)."""
    if not isinstance(frames, (list, tuple)):
        frames = [frames]
    return tuple(bytes(frame.bytes if isinstance(frame, zmq.Frame) else frame) for frame in frames)
