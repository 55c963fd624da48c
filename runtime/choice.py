"""A setting chosen once per host process from a fixed list of names (the engine, the profile)."""

from __future__ import annotations


class ProcessChoice:
    """One of ``names`` (the first is the default) for the whole process; ``kind`` names the
    setting in error texts."""

    def __init__(self, kind: str, names: tuple[str, ...]) -> None:
        self.kind = kind
        self.names = names
        self.value = names[0]

    def select(self, name: str) -> None:
        """Make ``name`` the choice. Raises ``ValueError`` for a name not in :attr:`names`."""
        if name not in self.names:
            raise ValueError(f"unknown {self.kind} {name!r}: expected one of {', '.join(self.names)}")
        self.value = name

    def selected(self) -> str:
        """The current choice."""
        return self.value
