"""Runtime responses and wait outcomes as the client hands them on.

A response is ``Yielded`` (the cell still runs), ``Terminated`` or ``Result`` (it finished);
a wait or terminate answers ``LiveCell`` or ``MissingCell`` (Codex's ``RuntimeResponse`` and
``WaitOutcome``). The wire forms and their checks are in :mod:`codemode.wire.messages`; content
items stay the wire dicts (``{"type": "input_text", "text"}``,
``{"type": "input_image", "image_url", "detail"}``, ``{"type": "input_audio", "audio_url"}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codemode.wire import messages
from codemode.wire.messages import ContentItem, ResponseKind, WireRuntimeResponse

__all__ = ["ContentItem", "ResponseKind", "RuntimeResponse", "WaitOutcome"]


@dataclass
class RuntimeResponse:
    """One observation of a cell.

    ``kind``: ``Yielded`` (still running), ``Terminated`` or ``Result`` (finished;
    ``error_text`` is set when it failed). ``content_items`` are the items produced
    since the previous observation, in emission order.
    """

    kind: ResponseKind
    cell_id: str
    content_items: list[ContentItem] = field(default_factory=list)
    error_text: str | None = None

    @property
    def finished(self) -> bool:
        """True for ``Result`` and ``Terminated``: the cell is closed after this."""
        return self.kind != "Yielded"

    @classmethod
    def from_wire(cls, wire: Any) -> RuntimeResponse:
        """Parse the externally tagged wire form ``{"Result": {...}}``.

        Raises ``ValueError`` (:class:`~codemode.wire.messages.MessageError`) for a shape that is not a
        runtime response (see :func:`codemode.wire.messages.parse_runtime_response`).
        """
        kind, body = messages.parse_runtime_response(wire)
        return cls(kind, body["cell_id"], list(body["content_items"]), body.get("error_text"))

    def to_wire(self) -> WireRuntimeResponse:
        """The externally tagged wire form (without timing fields)."""
        if self.kind == "Result":
            return messages.result(self.cell_id, self.content_items, self.error_text)
        if self.kind == "Terminated":
            return messages.terminated(self.cell_id, self.content_items)
        return messages.yielded(self.cell_id, self.content_items)


@dataclass
class WaitOutcome:
    """The answer to a wait or terminate.

    ``live`` is False for ``MissingCell``: the id named no live cell and ``response``
    is a ``Result`` with ``error_text`` ``exec cell <id> not found`` (Codex's text).
    """

    live: bool
    response: RuntimeResponse

    @classmethod
    def from_wire(cls, wire: Any) -> WaitOutcome:
        """Parse ``{"LiveCell": <response>}`` or ``{"MissingCell": <response>}``; raises
        ``ValueError`` for another shape."""
        live, (kind, body) = messages.parse_wait_outcome(wire)
        response = RuntimeResponse(kind, body["cell_id"], list(body["content_items"]), body.get("error_text"))
        return cls(live=live, response=response)
