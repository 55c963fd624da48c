"""The JavaScript engines a runtime host can run cells on, behind one small interface.

``quickjs`` (the default): QuickJS through the ``quickjs-ng`` binding, one context per
cell on the cell's own thread. ``v8``: V8 with ICU through ``mini-racer``, one isolate per
cell on a thread of its own; Codex's own host runs cells on V8, so error texts, ``Intl``
and speed match it. The host's engine is chosen once per process (``codemode-host
--engine``, :func:`select`); everything else in the host (the protocol, the prelude's
helpers, limits, output) is the same for both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..choice import ProcessChoice
from .base import CellEngine, CellHost

ENGINES = ("quickjs", "v8")
"""The engine names, the default first."""
_choice = ProcessChoice("engine", ENGINES)
select = _choice.select
"""Make a name of :data:`ENGINES` the engine of every cell this process starts (``ValueError`` for another)."""
selected = _choice.selected
"""The engine cells of this process run on."""


def create(cell: CellHost, prepared: Any = None) -> CellEngine:
    """A new engine instance for ``cell`` (imported on first use, so a host loads one engine);
    ``prepared`` is what :func:`preparer`'s function made on the cell's thread, or None."""
    if _choice.value == "v8":
        from .v8 import V8Engine

        return V8Engine(cell)
    from .quickjs import QuickJSEngine

    return QuickJSEngine(cell, prepared)


def preparer() -> Callable[[], Any] | None:
    """The function that prepares a cell's thread for this process's engine before its cell
    arrives (:mod:`~codemode.runtime.spare_thread`), or None when the engine needs none (V8
    keeps its own spare isolates, :mod:`~codemode.runtime.engines.v8_spare`)."""
    if _choice.value == "v8":
        return None
    from .quickjs import prepare

    return prepare


__all__ = ["ENGINES", "CellEngine", "CellHost", "create", "preparer", "select", "selected"]
