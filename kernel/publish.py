"""IOPub publishing: the execute request being handled and the messages sent for it.

Every message names its request explicitly as parent, so a background cell's output lands
under the request that started or waited on it. A silent request (``silent=True``) publishes
nothing (Jupyter messaging specification, ``execute_request``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from codemode.kernel import render
from codemode.kernel.sanitize import safe_content
from codemode.kernel.streams import Pacer, StreamCoalescer, chunks


@dataclass
class StoppedOutput:
    """An interrupt stopped a delivery of the request: ``left`` output messages were not shown
    (not told yet); ``line_open`` when the last text shown ended inside a line."""

    left: int
    line_open: bool


@dataclass
class Request:
    """The execute request being handled: its message, flags and the cell it touches.

    ``started`` is ``time.monotonic()`` seconds; ``status`` becomes the reply metadata's
    ``running|completed|failed|terminated`` (None for magics that touch no cell);
    ``observing`` is True while the request observes its cell (an execute until its cell's
    first answer was shown, a ``%wait`` until its answer was): the cell's notifications and
    tool output then go under this request. ``allow_stdin`` and ``ident`` (the routing identity
    of the front end that sent it) let a tool's approval question go to that front end.
    ``execution_count`` is set for the request that ran a JavaScript cell (the count of its
    reply): the cell's value is shown under it as ``execute_result``; under other requests (a
    ``%wait``) as ``display_data`` (:mod:`codemode.kernel.render`). ``stopped_output`` is set
    once an interrupt stopped one of its deliveries (:meth:`Publisher.emit_items`): nothing
    more of the cell's output is shown under it. ``model_view`` is what Codex would have
    returned to the model for the answer this request showed (``{"output", "tokens"}``,
    :func:`codemode.model_view.render`), set by :meth:`Delivery.note_model_view
    <codemode.kernel.delivery.Delivery.note_model_view>`; None when it showed no cell's answer.
    ``tool_names`` is set by ``%tools``: the names a program may give the tools it listed (each
    tool's JavaScript and code-mode name, sorted), for the reply metadata; None otherwise.
    ``tool_problems`` is set by ``%tools`` too: the configuration and tool start-up problems it
    listed (an MCP server that failed to start: ``MCP server `NAME` failed to start: ...``).
    """

    parent: dict[str, Any]
    silent: bool
    allow_stdin: bool = False
    ident: Any = None
    started: float = field(default_factory=time.monotonic)
    cell_id: str | None = None
    status: str | None = None
    interrupted: bool = False
    execution_count: int | None = None
    stopped_output: StoppedOutput | None = None
    model_view: dict[str, Any] | None = None
    tool_names: list[str] | None = None
    tool_problems: list[str] | None = None
    _observing: bool = field(default=False, repr=False)
    _released: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    def __post_init__(self) -> None:
        self._released.set()

    @property
    def observing(self) -> bool:
        """True while the request observes its cell (see the class docstring)."""
        return self._observing

    @observing.setter
    def observing(self, value: bool) -> None:
        self._observing = value
        if value:
            self._released.clear()
        else:
            self._released.set()

    async def released(self) -> None:
        """Return once the request no longer observes its cell (at once when it does not)."""
        await self._released.wait()


class Publisher:
    """Sends IOPub messages through an ipykernel ``Kernel`` and builds execute_reply contents.

    ``kernel`` supplies ``session``, ``iopub_socket``, ``_topic(msg_type)`` and
    ``last_execution_count`` (the count replies carry, read at each call). Every bundle it
    sends is made safe first (:func:`codemode.kernel.sanitize.safe_content`: the one place all
    ``display_data``, ``execute_result`` and ``update_display_data`` pass). ``stream``
    messages are coalesced (:mod:`codemode.kernel.streams`): any other message first sends the
    stream text held before it, and :meth:`flush` sends the rest (end of a delivery, end of a
    request).
    """

    def __init__(self, kernel: Any) -> None:
        self._kernel = kernel
        self._streams = StreamCoalescer(self._send_now)
        self._pacer = Pacer()

    def _send_now(self, msg_type: str, content: dict[str, Any], parent: dict[str, Any]) -> None:
        kernel = self._kernel
        if kernel.session is None or kernel.iopub_socket is None:
            return
        content = safe_content(msg_type, content)
        kernel.session.send(kernel.iopub_socket, msg_type, content, parent=parent, ident=kernel._topic(msg_type))

    def send(self, msg_type: str, content: dict[str, Any], parent: dict[str, Any]) -> None:
        """Publish on IOPub with an explicit parent (safe from background tasks); stream text
        is held briefly and coalesced."""
        if msg_type == "stream":
            self._streams.write(parent, str(content.get("name", "stdout")), str(content.get("text", "")))
            return
        self._streams.flush()
        self._send_now(msg_type, content, parent)

    def flush(self) -> None:
        """Send the stream text held so far."""
        self._streams.flush()

    def emit(self, request: Request, msg_type: str, content: dict[str, Any]) -> None:
        """Publish under ``request`` unless it is silent."""
        if not request.silent:
            self.send(msg_type, content, request.parent)

    def stdout(self, request: Request, text: str) -> None:
        """A ``stream`` stdout message under ``request``."""
        self.emit(request, "stream", {"name": "stdout", "text": text})

    async def emit_items(self, request: Request, items: list[dict[str, Any]], *, last: bool = True) -> None:
        """Publish content items (:func:`codemode.kernel.render.coalesced_messages`) in order: the
        text items as few coalesced stream messages (:func:`codemode.kernel.streams.chunks`),
        paced when the delivery is large (:class:`~codemode.kernel.streams.Pacer`). An interrupt
        (cancellation) while it waits, or one that came before the delivery began
        (``request.interrupted``), ends the delivery where it would wait and returns (the request
        goes on to its reply): one ``stderr`` line, on a line of its own, says how many messages
        were not shown. Once a delivery of ``request`` was stopped so, its later deliveries (the
        output a termination after the interrupt returns) are not shown, only counted.

        ``last=False`` for a delivery after which the request may deliver more of its cell (the
        execute's first answer, which the interrupt's termination follows): the notice is then
        sent by the next delivery, with its messages counted too."""
        if request.silent:
            return
        self.flush()
        messages = list(_bounded(render.coalesced_messages(items, request.execution_count)))
        stopped = request.stopped_output
        if stopped is not None:
            stopped.left += len(messages)
            self._tell_stopped(request, last)
            return
        line_open = False  # the last text sent ended inside a line (a terminal shows both streams as one)
        for index, (msg_type, content) in enumerate(messages):
            delay = self._pacer.delay(msg_type, content)
            # An interrupt that came before this delivery began (it terminated the cell, whose
            # output this is) ends it where the pacing would wait, as one during the wait does.
            if delay > 0 and (request.interrupted or not await _paced(delay)):
                request.stopped_output = StoppedOutput(len(messages) - index, line_open)
                self._tell_stopped(request, last)
                return
            self._send_now(msg_type, content, request.parent)
            if msg_type == "stream":
                line_open = not content["text"].endswith("\n")

    def _tell_stopped(self, request: Request, last: bool) -> None:
        """Say how many output messages the interrupt left out (when ``last`` and there are
        any not told yet)."""
        stopped = request.stopped_output
        if stopped is None or not last or stopped.left == 0:
            return
        text = f"The interrupt stopped this output here; {stopped.left} more output message(s) were not shown.\n"
        text = "\n" + text if stopped.line_open else text
        stopped.left, stopped.line_open = 0, False
        self._send_now("stream", {"name": "stderr", "text": text}, request.parent)

    def error_reply(self, request: Request, parts: render.ErrorParts) -> dict[str, Any]:
        """Publish an ``error`` message and return the matching execute_reply content."""
        self.emit(request, "error", parts.content())
        return {"status": "error", "execution_count": self._kernel.last_execution_count, **parts.content()}

    def plain_error_reply(self, request: Request, ename: str, evalue: str) -> dict[str, Any]:
        """:meth:`error_reply` for an error without a stack (``render.plain_error``)."""
        return self.error_reply(request, render.plain_error(ename, evalue))

    def ok_reply(self) -> dict[str, Any]:
        """The execute_reply content of a request that succeeded."""
        return {
            "status": "ok",
            "execution_count": self._kernel.last_execution_count,
            "payload": [],
            "user_expressions": {},
        }


USER_EXPRESSIONS_UNSUPPORTED = "codemode does not evaluate user_expressions; run the expression in a cell"


def user_expression_errors(expressions: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The ``user_expressions`` of an execute_reply: one error entry per name (the messaging
    spec's ``execute_reply``: each expression gets a result or an error, shaped as an
    ``error`` message's content with ``status``), since a cell's JavaScript keeps no namespace
    an expression could be evaluated in afterwards."""
    error = {"status": "error", "ename": "NotImplemented", "evalue": USER_EXPRESSIONS_UNSUPPORTED, "traceback": []}
    return {str(name): dict(error) for name in expressions}


async def _paced(delay: float) -> bool:
    """Wait ``delay`` seconds; False when an interrupt (cancellation) ended the wait."""
    try:
        await asyncio.sleep(delay)
    except asyncio.CancelledError:
        return False
    return True


def _bounded(messages: Iterable[render.Message]) -> Iterator[render.Message]:
    """``messages`` with each ``stream`` text split into bounded pieces
    (:func:`codemode.kernel.streams.chunks`; an empty one is left out)."""
    for msg_type, content in messages:
        if msg_type == "stream":
            yield from (("stream", {"name": content["name"], "text": piece}) for piece in chunks(content["text"]))
        else:
            yield msg_type, content
