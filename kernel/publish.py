"""IOPub publishing: the execute request being handled and the messages sent for it.

Every message names its request explicitly as parent, so a background cell's output lands
under the request that started or waited on it (``design.md`` §4). A silent request
(``silent=True``) publishes nothing (``spec/jupyter-kernels.md``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from codemode.kernel import render


@dataclass
class Request:
    """The execute request being handled: its message, flags and the cell it touches.

    ``started`` is ``time.monotonic()`` seconds; ``status`` becomes the reply metadata's
    ``running|completed|failed|terminated`` (None for magics that touch no cell).
    """

    parent: dict[str, Any]
    silent: bool
    started: float = field(default_factory=time.monotonic)
    cell_id: str | None = None
    status: str | None = None
    interrupted: bool = False


class Publisher:
    """Sends IOPub messages through an ipykernel ``Kernel`` and builds execute_reply contents.

    ``kernel`` supplies ``session``, ``iopub_socket``, ``_topic(msg_type)`` and
    ``execution_count`` (read at each call).
    """

    def __init__(self, kernel: Any) -> None:
        self._kernel = kernel

    def send(self, msg_type: str, content: dict[str, Any], parent: dict[str, Any]) -> None:
        """Publish on IOPub with an explicit parent (safe from background tasks)."""
        kernel = self._kernel
        if kernel.session is None or kernel.iopub_socket is None:
            return
        kernel.session.send(kernel.iopub_socket, msg_type, content, parent=parent, ident=kernel._topic(msg_type))

    def emit(self, request: Request, msg_type: str, content: dict[str, Any]) -> None:
        """Publish under ``request`` unless it is silent."""
        if not request.silent:
            self.send(msg_type, content, request.parent)

    def stdout(self, request: Request, text: str) -> None:
        """A ``stream`` stdout message under ``request``."""
        self.emit(request, "stream", {"name": "stdout", "text": text})

    def emit_items(self, request: Request, items: list[dict[str, Any]]) -> None:
        """Publish content items (:func:`codemode.kernel.render.item_messages`) in order."""
        for msg_type, content in render.item_messages(items):
            self.emit(request, msg_type, content)

    def error_reply(self, request: Request, parts: render.ErrorParts) -> dict[str, Any]:
        """Publish an ``error`` message and return the matching execute_reply content."""
        self.emit(request, "error", parts.content())
        return {"status": "error", "execution_count": self._kernel.execution_count, **parts.content()}

    def plain_error_reply(self, request: Request, ename: str, evalue: str) -> dict[str, Any]:
        """:meth:`error_reply` for an error without a stack (``render.plain_error``)."""
        return self.error_reply(request, render.plain_error(ename, evalue))

    def ok_reply(self) -> dict[str, Any]:
        """The execute_reply content of a request that succeeded."""
        return {
            "status": "ok",
            "execution_count": self._kernel.execution_count,
            "payload": [],
            "user_expressions": {},
        }
