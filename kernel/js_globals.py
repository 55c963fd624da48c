"""The JavaScript engine's globals and their members, for completion, read from the engine.

Completion of ``Math.fl`` or ``Array.prototype.`` needs the names the engine defines. They are
not written down here: :func:`engine_globals` creates one context of the engine the cells run
in (QuickJS through the ``quickjs`` binding, or a V8 isolate through ``mini-racer``, as the
runtime host's engines do) and lists, with ``Object.getOwnPropertyNames`` (:data:`LISTING`),
the global object's properties, each global object's or function's own properties, and each
constructor's ``prototype``'s (``Array.prototype``). Property kinds are read from property
descriptors, so no getter runs. The listing takes a few milliseconds; it is made on the first
completion that needs it (in a worker thread: ``kernel_info`` and cells never wait for it) and
kept for the kernel's life, once per engine.

A cell's global scope differs from a bare context's in ways pinned, for both engines, by a
test that runs :data:`LISTING` in real cells and compares: the runtime removes the globals
Codex's cells do not have (:data:`ABSENT_FROM_CELLS`), installs its helpers (listed with their
documentation in :mod:`codemode.kernel.helpers`, and left out here: V8's own ``setTimeout``
is replaced by the cell's), and gives QuickJS ``Intl`` and the locale methods it lacks
(:data:`ADDED_IN_CELLS`, :data:`ADDED_MEMBERS`).
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass, field

from codemode.kernel.helpers import HELPER_NAMES

log = logging.getLogger(__name__)

ABSENT_FROM_CELLS = frozenset(
    {
        "InternalError",
        "queueMicrotask",
        "SharedArrayBuffer",
        "Atomics",
        "DOMException",
        "btoa",
        "atob",
        "performance",
        "WebAssembly",
        "Temporal",
        "console",
        "__timer_manager",
    }
)
"""Globals of a bare QuickJS context or mini-racer isolate that a cell does not have (Codex's
cells have none of them; the runtime deletes them)."""
ADDED_IN_CELLS = ("Intl",)
"""Engine-like globals the runtime adds where the engine lacks them (QuickJS has no ``Intl``)."""
ADDED_MEMBERS = {"BigInt.prototype": (("toLocaleString", "function"),)}
"""Members the runtime adds where the engine lacks them (QuickJS's ``BigInt`` has no
``toLocaleString``; the runtime's ``Intl`` gives it V8's)."""

LISTING = r"""
(() => {
  const kindOf = (holder, name) => {
    const d = Object.getOwnPropertyDescriptor(holder, name);
    if (!d || !("value" in d)) return "property";
    const v = d.value;
    if (typeof v === "function")
      return /^[A-Z]/.test(name) && typeof v.prototype === "object" ? "class" : "function";
    return "instance";
  };
  const members = (holder) => Object.getOwnPropertyNames(holder).map((n) => [n, kindOf(holder, n)]);
  const table = { "": members(globalThis) };
  for (const name of Object.getOwnPropertyNames(globalThis)) {
    const d = Object.getOwnPropertyDescriptor(globalThis, name);
    const v = d && d.value;
    if (name === "globalThis" || v === null || (typeof v !== "object" && typeof v !== "function")) continue;
    table[name] = members(v);
    const proto = Object.getOwnPropertyDescriptor(v, "prototype");
    if (proto && proto.value !== null && typeof proto.value === "object") table[name + ".prototype"] = members(proto.value);
  }
  return JSON.stringify(table);
})()
"""
"""The listing's JavaScript: an expression whose value is the JSON text of :class:`EngineGlobals`'s
``members`` (tests run it in a cell to compare).
"""


@dataclass(frozen=True)
class EngineGlobals:
    """What :func:`engine_globals` found: ``members[path]`` lists ``(name, kind)`` of the
    object at ``path`` (``""`` is the global object, ``"Math"``, ``"Array.prototype"``), kind
    one of ``class``, ``function``, ``instance``, ``property`` (Jupyter's completion types)."""

    members: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def of(self, path: str) -> list[tuple[str, str]]:
        """The members of the object at ``path`` (``globalThis`` is the global object); empty
        for a path the listing does not know."""
        return self.members.get("" if path == "globalThis" else path, [])


def _listing(engine: str) -> str:
    """:data:`LISTING`'s JSON text as ``engine`` (``quickjs`` or ``v8``) computes it."""
    if engine == "v8":
        from py_mini_racer import MiniRacer

        racer = MiniRacer()
        try:
            return str(racer.eval(LISTING))
        finally:
            racer.close()
    import quickjs

    return str(quickjs.Context().eval(LISTING))


@functools.cache
def engine_globals(engine: str = "quickjs") -> EngineGlobals:
    """The listing of the module docstring for ``engine`` (``quickjs`` or ``v8``), made once
    per process and engine. A failure (a binding missing) is logged and gives an empty listing."""
    try:
        raw = json.loads(_listing(engine))
    except Exception:
        log.warning("the JavaScript globals of %s could not be listed for completion", engine, exc_info=True)
        return EngineGlobals()
    left_out = ABSENT_FROM_CELLS | HELPER_NAMES
    members = {
        path: [(str(n), str(k)) for n, k in entries]
        for path, entries in raw.items()
        if path.split(".")[0] not in left_out
    }
    members[""] = [(n, k) for n, k in members[""] if n not in left_out]
    present = {n for n, _ in members[""]}
    members[""] += [(name, "instance") for name in ADDED_IN_CELLS if name not in present]
    for path, added in ADDED_MEMBERS.items():
        names = {n for n, _ in members.get(path, [])}
        members.setdefault(path, []).extend(m for m in added if m[0] not in names)
    return EngineGlobals(members)


__all__ = ["ABSENT_FROM_CELLS", "ADDED_IN_CELLS", "ADDED_MEMBERS", "LISTING", "EngineGlobals", "engine_globals"]
