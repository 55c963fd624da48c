"""Runtime responses and content items as the client sees them.

Shapes follow ``spec/codex-code-mode.md`` §3.1 and the wire forms of ``oracle/README.md``
("Runtime responses"): a response is ``Yielded``, ``Terminated`` or ``Result``; a wait
answers ``LiveCell`` or ``MissingCell``. Content items stay the wire dicts:
``{"type": "input_text", "text"}``, ``{"type": "input_image", "image_url", "detail"}``,
``{"type": "input_audio", "audio_url"}``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, cast

ResponseKind = Literal["Yielded", "Terminated", "Result"]
ContentItem = dict[str, Any]


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
    def from_wire(cls, wire: dict[str, Any]) -> RuntimeResponse:
        """Parse the externally tagged wire form ``{"Result": {...}}``.

        Raises ``ValueError`` when ``wire`` is not exactly one known tag, or its body lacks a
        string ``cell_id``, has ``content_items`` that are not a list of objects with a string
        ``type``, or an ``error_text`` that is neither a string nor null. Unknown body fields
        (such as ``code_mode_host_duration_ns``) are ignored.
        """
        if not isinstance(wire, dict) or len(wire) != 1:
            raise ValueError(f"invalid runtime response: {wire!r}")
        ((kind, body),) = wire.items()
        if kind not in ("Yielded", "Terminated", "Result") or not isinstance(body, dict):
            raise ValueError(f"invalid runtime response: {wire!r}")
        cell_id = body.get("cell_id")
        items = body.get("content_items", [])
        error_text = body.get("error_text")
        if not isinstance(cell_id, str):
            raise ValueError(f"invalid runtime response: cell_id must be a string, got {cell_id!r}")
        if not isinstance(items, list) or not all(
            isinstance(item, dict) and isinstance(item.get("type"), str) for item in items
        ):
            raise ValueError(f"invalid runtime response: bad content_items {items!r}")
        if error_text is not None and not isinstance(error_text, str):
            raise ValueError(f"invalid runtime response: error_text must be a string, got {error_text!r}")
        return cls(kind=cast(ResponseKind, kind), cell_id=cell_id, content_items=list(items), error_text=error_text)

    def to_wire(self) -> dict[str, Any]:
        """The externally tagged wire form (without timing fields)."""
        body: dict[str, Any] = {"cell_id": self.cell_id, "content_items": self.content_items}
        if self.kind == "Result":
            body["error_text"] = self.error_text
        return {self.kind: body}


@dataclass
class WaitOutcome:
    """The answer to a wait or terminate.

    ``live`` is False for ``MissingCell``: the id named no live cell and ``response``
    is a ``Result`` with ``error_text`` ``exec cell <id> not found`` (spec §3.1).
    """

    live: bool
    response: RuntimeResponse

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> WaitOutcome:
        """Parse ``{"LiveCell": <response>}`` or ``{"MissingCell": <response>}``."""
        if not isinstance(wire, dict) or len(wire) != 1:
            raise ValueError(f"invalid wait outcome: {wire!r}")
        ((tag, body),) = wire.items()
        if tag not in ("LiveCell", "MissingCell"):
            raise ValueError(f"invalid wait outcome: {wire!r}")
        return cls(live=tag == "LiveCell", response=RuntimeResponse.from_wire(body))
