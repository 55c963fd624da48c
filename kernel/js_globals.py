"""The JavaScript engine's globals and their members, for completion, read from the engine.

Completion of ``Math.fl`` or ``Array.prototype.`` needs the names the engine defines. They are
not written down here: :func:`engine_globals` creates one QuickJS context (the engine cells run
in, through the same ``quickjs`` binding) and lists, with ``Object.getOwnPropertyNames``, the
global object's properties, each global object's or function's own properties, and each
constructor's ``prototype``'s (``Array.prototype``). Property kinds are read from property
descriptors, so no getter runs. The listing takes a few milliseconds; it is made on the
first completion that needs it (in a worker thread: ``kernel_info`` and cells never wait for
it) and kept for the kernel's life.

A cell's global scope differs from a bare context's in two ways, both pinned by a test that
compares this listing with a real cell's ``Object.getOwnPropertyNames(globalThis)``: the
runtime's prelude removes the globals Codex's V8 host does not have
(:data:`ABSENT_FROM_CELLS`), and adds its helpers (listed with their documentation in
:mod:`codemode.kernel.helpers`) and a small ``Intl``.
"""

from __future__ import annotations

import functools
import json
import logging
from dataclasses import dataclass, field

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
    }
)
"""Globals of a bare QuickJS context that a cell does not have (Codex's V8 host has none of
them; the runtime's prelude deletes them)."""
ADDED_IN_CELLS = ("Intl",)
"""Engine-like globals the runtime's prelude adds (besides the helpers)."""

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


@functools.cache
def engine_globals() -> EngineGlobals:
    """The listing of the module docstring, made once per process. A failure (the binding
    missing) is logged and gives an empty listing."""
    try:
        import quickjs

        raw = json.loads(quickjs.Context().eval(LISTING))
    except Exception:
        log.warning("the JavaScript globals could not be listed for completion", exc_info=True)
        return EngineGlobals()
    members = {path: [(str(n), str(k)) for n, k in entries] for path, entries in raw.items()}
    members[""] = [(n, k) for n, k in members[""] if n not in ABSENT_FROM_CELLS]
    members[""] += [(name, "instance") for name in ADDED_IN_CELLS]
    for name in ABSENT_FROM_CELLS:
        members.pop(name, None)
        members.pop(f"{name}.prototype", None)
    return EngineGlobals(members)


__all__ = ["ABSENT_FROM_CELLS", "ADDED_IN_CELLS", "LISTING", "EngineGlobals", "engine_globals"]
