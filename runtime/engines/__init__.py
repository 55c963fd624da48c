"""The JavaScript engines a runtime host can run cells on, behind one small interface.

``quickjs`` (the default): QuickJS through the ``quickjs-ng`` binding, one context per
cell on the cell's own thread. ``v8``: V8 with ICU through ``mini-racer``, one isolate per
cell on a thread of its own; Codex's own host runs cells on V8, so error texts, ``Intl``
and speed match it. The host's engine is chosen once per process (``codemode-host
--engine``, :func:`select`); everything else in the host (the protocol, the prelude's
helpers, limits, output) is the same for both.
"""

from __future__ import annotations

from .base import CellEngine, CellHost

ENGINES = ("quickjs", "v8")
"""The engine names, the default first."""
_selected = "quickjs"


def select(name: str) -> None:
    """Make ``name`` (one of :data:`ENGINES`) the engine of every cell this process starts.

    Raises ``ValueError`` for another name.
    """
    global _selected
    if name not in ENGINES:
        raise ValueError(f"unknown engine {name!r}: expected one of {', '.join(ENGINES)}")
    _selected = name


def selected() -> str:
    """The engine cells of this process run on."""
    return _selected


def create(cell: CellHost) -> CellEngine:
    """A new engine instance for ``cell`` (imported on first use, so a host loads one engine)."""
    if _selected == "v8":
        from .v8 import V8Engine

        return V8Engine(cell)
    from .quickjs import QuickJSEngine

    return QuickJSEngine(cell)


__all__ = ["ENGINES", "CellEngine", "CellHost", "create", "select", "selected"]
