"""Asking the person at the notebook for approval or input, over Jupyter's stdin channel.

A built-in tool that needs approval (``exec_command`` leaving the sandbox,
:mod:`codemode.sandbox.approvals`) calls :meth:`StdinApprovals.ask`; an MCP server's
elicitation (:mod:`codemode.tools.mcp_elicitation`) asks its questions one line at a time with
:meth:`StdinApprovals.ask_line`, which ``ask`` uses too. The question goes to the
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
told from a late answer to a question that was withdrawn. The kernel therefore keeps, per front
end, the questions withdrawn before it answered them, and counts a reply from it as the late
answer of one of them while any is left: a reply naming one answers that one, a reply naming
none the oldest. Such a reply without a parent is refused and the open question is asked again
(a new ``input_request``, saying why), so that N questions withdrawn unanswered absorb the next
N replies without a parent, and a ``y`` typed for a withdrawn question never approves a later
one. Only once none is left does a reply without a parent answer the open question. A reply
naming the open question (any of the ``input_request`` messages it was sent as) answers it
whatever is left. Replies that arrive while no question is open are dropped before the next
question (as ipykernel's ``Kernel._input_request`` drops stale replies), counted the same way.
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
        self._withdrawn: dict[Identity, list[set[str]]] = {}
        """Per front end, the questions withdrawn before it answered them and not yet counted as
        answered (:meth:`_late`), oldest first; each the msg_ids of the ``input_request``
        messages it was sent as (a question asked again was sent more than once)."""

    def _stdin(self) -> zmq.asyncio.Socket:
        if self._socket is None:
            self._socket = zmq.asyncio.Socket.from_socket(self._kernel.stdin_socket)
        return self._socket

    async def ask(self, request: ApprovalRequest) -> Answer | None:
        """The person's answer to ``request``, or None when no one can be asked (module
        docstring). Cancelling the caller abandons the question."""
        reply = await self.ask_line(request.cell_id, request.prompt())
        return None if reply is None else parse_answer(reply)

    async def ask_line(self, cell_id: str, prompt: str) -> str | None:
        """Ask the person ``prompt`` for cell ``cell_id``: their reply's ``value`` as sent (end
        of input as the front end sends it, ``"\\x04"`` from some), or None when no one can be
        asked or the question was withdrawn (module docstring). Approvals
        (:meth:`ask`) and MCP elicitations (:mod:`codemode.tools.mcp_elicitation`) ask
        through it. Cancelling the caller abandons the question."""
        # The cell may have asked before the kernel learned its id from the execute's answer
        # (a cell that calls a tool at once): wait until its events read so far are handled.
        await self._state.caught_up(cell_id)
        async with self._lock:
            jupyter_request = self._state.foreground(cell_id)
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
            question = prompt
            sent: set[str] = set()
            answered = False
            try:
                while True:
                    outcome, reply = await self._question(socket, jupyter_request, asked, sent, question)
                    if outcome == "withdrawn":
                        log.info("question for cell %s withdrawn: its request no longer follows it", cell_id)
                        return None
                    if outcome == "answered":
                        answered = True
                        return reply
                    log.info("a reply without a parent after a withdrawn question: asking cell %s again", cell_id)
                    question = ASKED_AGAIN + "\n" + prompt
            finally:
                if not answered and sent:
                    self._withdrawn.setdefault(asked, []).append(sent)

    async def _question(
        self, socket: zmq.asyncio.Socket, jupyter_request: Any, asked: Identity, sent: set[str], prompt: str
    ) -> tuple[Literal["answered", "again", "withdrawn"], str]:
        """Send one ``input_request`` with ``prompt`` under ``jupyter_request`` (its msg_id is
        added to ``sent``, the question's messages so far) and wait: ``("answered", reply)``,
        ``("again", "")`` (a reply without a parent was refused) or ``("withdrawn", "")`` (the
        request stopped following the cell first)."""
        kernel = self._kernel
        content = {"prompt": prompt, "password": False}
        message = kernel.session.send(
            kernel.stdin_socket, "input_request", content, jupyter_request.parent, ident=jupyter_request.ident
        )
        sent.add(message["header"]["msg_id"])
        reply = asyncio.ensure_future(self._reply(socket, asked, sent))
        released = asyncio.ensure_future(jupyter_request.released())
        try:
            await asyncio.wait({reply, released}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            released.cancel()
            if not reply.done():
                reply.cancel()
        if reply.cancelled() or not reply.done():
            return "withdrawn", ""
        answer = reply.result()
        return ("again", "") if answer is None else ("answered", answer)

    def _read(self, frames: list[bytes]) -> tuple[Identity, str | None, Any, bool] | None:
        """The sender, the parent's msg_id (None: no parent), the ``value`` and whether it was
        counted as the late answer of one of the sender's withdrawn questions (:meth:`_late`),
        of the message ``frames`` read on the stdin channel; None when they are not a valid
        message (logged). Every valid message from a front end is its reply to something."""
        session = self._kernel.session
        try:
            idents, message = session.feed_identities(frames)
            reply = session.deserialize(message)
        except Exception:  # noqa: BLE001 - a malformed reply is logged and ignored
            log.warning("ignoring an invalid message on the stdin channel", exc_info=True)
            return None
        sender = _identity(idents)
        header, content = reply.get("parent_header"), reply.get("content")
        named = header.get("msg_id") if isinstance(header, dict) else None
        parent = None if named in (None, "") else str(named)
        value = content.get("value", "") if isinstance(content, dict) else ""
        return sender, parent, value, self._late(sender, parent)

    def _late(self, sender: Identity, parent: str | None) -> bool:
        """Count a reply from ``sender`` naming ``parent`` as the late answer of one of its
        withdrawn questions (:attr:`_withdrawn`): the one it names, or the oldest when it names
        none; True if it was one. A reply naming a question not left there (the open one, one
        answered, one already counted) is not. Counting the oldest for a reply without a parent
        can only leave a question too many, never one too few: a later reply naming a question
        already counted is then not counted, and one more reply without a parent is refused."""
        questions = self._withdrawn.get(sender)
        if not questions:
            return False
        if parent is None:
            questions.pop(0)
        else:
            named = next((question for question in questions if parent in question), None)
            if named is None:
                return False
            questions.remove(named)
        if not questions:
            del self._withdrawn[sender]
        return True

    async def _reply(self, socket: zmq.asyncio.Socket, asked: Identity, sent: set[str]) -> str | None:
        """The ``value`` of the first valid ``input_reply`` from ``asked`` to the question sent
        as ``sent`` (msg_ids), or without a parent (a value that is not a string reads as
        ``""``); None for a reply without a parent counted as a withdrawn question's late
        answer (module docstring)."""
        while True:
            read = self._read(await socket.recv_multipart())
            if read is None:
                continue
            sender, parent, value, late = read
            if sender != asked:
                log.warning("ignoring an input_reply from a peer that was not asked")
                continue
            if parent is None and late:
                return None
            if parent is not None and parent not in sent:
                continue  # a late answer to a question that is over
            return value if isinstance(value, str) else ""


def _identity(frames: Any) -> Identity:
    """A routing identity as bytes (ipykernel may keep it as ``zmq.Frame`` objects)."""
    if not isinstance(frames, (list, tuple)):
        frames = [frames]
    return tuple(bytes(frame.bytes if isinstance(frame, zmq.Frame) else frame) for frame in frames)
