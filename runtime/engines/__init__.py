"""The JavaScript engines a runtime host can run cells on, behind one small interface.

``quickjs`` (the default): QuickJS through the ``quickjs-ng`` binding, one context per
cell on the cell's own thread. ``v8``: V8 with ICU through ``mini-racer``, one isolate per
cell on a thread of its own; Codex's own host runs cells on V8, so error texts, ``Intl``
and speed match it. The host's engine is chosen once per process (``codemode-host
--engine``, :func:`select`); everything else in the host (the protocol, the prelude's
helpers, limits, output) is the same for both.
"""

from __future__ import annotations

from typing import Any

from codemode.runtime.choice import ProcessChoice
from codemode.runtime.engines.base import CellEngine, CellHost

ENGINES = ("quickjs", "v8")
"""The engine names, the default first."""
_choice = ProcessChoice("engine", ENGINES)
select = _choice.select
"""Make a name of :data:`ENGINES` the engine of every cell this process starts (``ValueError`` for another)."""
selected = _choice.selected
"""The engine cells of this process run on."""


def load() -> None:
    """Import the selected engine's module now (the host does at start, on its main thread, so a
    cell thread started then runs the engine's code without importing it alongside the host's own
    imports)."""
    if _choice.value == "v8":
        from codemode.runtime.engines import v8  # noqa: F401
    else:
        from codemode.runtime.engines import quickjs  # noqa: F401


def prepare() -> Any:
    """What a cell thread makes before its cell is known, on that thread (``runtime/cell_thread.py``):
    for QuickJS a context with the prelude compiled (:func:`.quickjs.prepare`); None for V8,
    which keeps its own booted isolate ready (``v8_spare.py``)."""
    if _choice.value == "v8":
        return None
    from codemode.runtime.engines.quickjs import prepare as prepare_quickjs

    return prepare_quickjs()


def create(cell: CellHost, prepared: Any = None) -> CellEngine:
    """A new engine instance for ``cell`` (imported on first use, so a host loads one engine);
    ``prepared``: what :func:`prepare` made on this thread, or None."""
    if _choice.value == "v8":
        from codemode.runtime.engines.v8 import V8Engine

        return V8Engine(cell)
    from codemode.runtime.engines.quickjs import QuickJSEngine

    return QuickJSEngine(cell, prepared)


__all__ = ["ENGINES", "CellEngine", "CellHost", "create", "load", "prepare", "select", "selected"]
