"""``TypedDict`` for the message types: :class:`typing.TypedDict` for type checkers, a plain
``dict`` subclass at run time.

The message types are only names at run time: every message is a plain ``dict`` built by its
constructor, no code calls or inspects a type. Building 39 real TypedDicts costs the runtime
host's start about 2.5 ms on the 2-core development machine (``typing``'s metaclass evaluates
every class's annotations and bases); a ``dict`` subclass costs a few microseconds each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import TypedDict
else:

    class TypedDict(dict):
        """A message type at run time: a name only (``total=`` accepted and ignored)."""

        def __init_subclass__(cls, **kwargs: object) -> None:
            super().__init_subclass__()


__all__ = ["TypedDict"]
