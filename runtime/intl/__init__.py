"""Intl for QuickJS cells: V8's results, computed outside the cell's engine.

QuickJS has no ``Intl``; Codex runs cells in V8 with full ICU, and a model's program expects
V8's strings (``(1234.5).toLocaleString("de-DE")`` is ``"1.234,5"``). The prelude
(``runtime/prelude/intl.js``) installs ``Intl`` and the locale methods of ``Number``,
``BigInt``, ``Date``, ``String`` and ``Array`` as stubs; the first use compiles
``runtime/intl/objects.js`` (sent from here), so cells that never use Intl pay
nothing for it. Each call then crosses the bridge as one ``intl`` request of JSON data and
is answered here:

- V8 itself (:mod:`.oracle`, the ``mini-racer`` package that the V8 engine uses too)
  constructs every Intl object once per distinct constructor, locales and options: option
  checking, error texts, locale negotiation and ``resolvedOptions()`` are V8's by
  construction, and it answers every call no faster path covers (``formatToParts``,
  ``PluralRules``, ``ListFormat``, ``RelativeTimeFormat``, ``DisplayNames``, ...).
- ICU (PyICU, the ``pyicu-wheels`` build of ICU 77.1, the ICU of V8 14.4) answers the
  frequent calls, ``NumberFormat#format``, ``DateTimeFormat#format`` with the ``Date``
  methods, and ``Collator#compare`` with ``localeCompare``, in about a microsecond where a
  call into V8 costs 0.3 ms (a sort with ``localeCompare`` makes thousands). Its formatter is
  built from V8's resolved options as V8 builds its own, and is used only after it gave V8's
  answers to a set of probe values (:mod:`.registry`).

Why not the alternatives: ``babel`` carries CLDR 49 where ICU 77 has CLDR 47 (``de-CH``
groups with ``'`` there and ``’`` in V8), rounds and matches date skeletons its own way
(``(2.5).toLocaleString("en-US", {maximumFractionDigits: 0})`` is ``"2"`` there, ``"3"`` in
V8) and has no ICU collation; the FormatJS polyfills would have to be bundled (and parsed
by every cell) from code this repository must not carry; V8 alone is exact but 0.3 ms a call.
What is not offered at all (``Intl.Segmenter``, ``Intl.Locale``) throws a ``TypeError`` that
names it and points to ``engine = "v8"``.

Nothing here is imported before a cell's first Intl call (``runtime/bridge.py`` imports it
then); V8 and ICU load on that first call.
"""

from __future__ import annotations

import functools
import json
import logging
from importlib import resources
from typing import Any

from codemode.runtime.intl import oracle, registry

log = logging.getLogger(__name__)

STATIC_OPS = frozenset(
    {"getCanonicalLocales", "supportedValuesOf", "supportedLocalesOf", "toLocaleUpperCase", "toLocaleLowerCase"}
)


@functools.cache
def _objects_source() -> str:
    return resources.files(__package__).joinpath("objects.js").read_text("utf-8")


def handle(arg: str) -> dict[str, Any]:
    """Answer one ``intl`` bridge request (JSON text) with ``{"ok": value}`` or ``{"error": {"name", "message"}}``.

    Requests: ``{"op": "source"}`` (the text of ``objects.js``, which the
    prelude compiles on a cell's first Intl use), ``{"op": "new", "key"}`` (construct, or
    raise V8's error), ``{"op": "call", "key", "method", "args"}`` and the static operations
    of :data:`STATIC_OPS` with ``args`` (and ``kind`` for ``supportedLocalesOf``). Never raises.
    """
    try:
        request = json.loads(arg)
        op = request["op"]
        if op == "new":
            registry.entry(request["key"])
            return {"ok": None}
        if op == "call":
            return {"ok": registry.call(request["key"], request["method"], request["args"])}
        if op == "source":
            return {"ok": _objects_source()}
        if op in STATIC_OPS:
            return {"ok": oracle.ask(request)}
        return {"error": {"name": "TypeError", "message": f"unknown Intl operation {op}"}}
    except oracle.IntlError as exc:
        return {"error": {"name": exc.name, "message": exc.message}}
    except Exception as exc:  # noqa: BLE001 - reported to the cell as an Error
        log.exception("Intl request failed")
        return {"error": {"name": "Error", "message": f"code-mode runtime error: Intl: {exc}"}}
