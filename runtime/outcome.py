"""How a cell thread ended (:class:`CellOutcome`), shared by the cell thread and the engines."""

from __future__ import annotations


class CellOutcome:
    """How a cell thread ended.

    ``kind``: ``"completed"`` (the module settled or ``exit()`` ran; ``error_text`` set
    when it failed) or ``"stopped"`` (terminated). ``writes``: store writes by key, as
    JSON texts. ``thrown``: ``error_text`` is the text of a value the cell threw, as the
    prelude formatted it; such a text is final, never read as an engine failure (a cell
    may throw the string ``"InternalError: out of memory"``).
    """

    __slots__ = ("kind", "error_text", "writes", "thrown")

    def __init__(
        self, kind: str, error_text: str | None = None, writes: dict[str, str] | None = None, thrown: bool = False
    ) -> None:
        self.kind = kind
        self.error_text = error_text
        self.writes: dict[str, str] = {} if writes is None else writes
        self.thrown = thrown

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CellOutcome):
            return NotImplemented
        return (self.kind, self.error_text, self.writes, self.thrown) == (
            other.kind,
            other.error_text,
            other.writes,
            other.thrown,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by value

    def __repr__(self) -> str:
        return f"CellOutcome({self.kind!r}, {self.error_text!r}, writes={self.writes!r}, thrown={self.thrown!r})"
