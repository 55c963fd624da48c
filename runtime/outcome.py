"""How a cell thread ended (:class:`CellOutcome`), shared by the cell thread and the engines."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class CellOutcome:
    """How a cell thread ended.

    ``kind``: ``"completed"`` (the module settled or ``exit()`` ran; ``error_text`` set
    when it failed) or ``"stopped"`` (terminated). ``writes``: store writes by key, as
    JSON texts. ``thrown``: ``error_text`` is the text of a value the cell threw, as the
    prelude formatted it; such a text is final, never read as an engine failure (a cell
    may throw the string ``"InternalError: out of memory"``).
    """

    kind: str
    error_text: str | None = None
    writes: dict[str, str] = field(default_factory=dict)
    thrown: bool = False
