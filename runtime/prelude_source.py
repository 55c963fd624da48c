"""The prelude: the JavaScript that installs a cell's globals, kept in ``runtime/prelude/``.

The files are concatenated in the engine's order (:data:`ENGINE_PARTS`) inside one
strict function, ``(function __cm_install() { ... })()``, evaluated as a global script in
every fresh context before the cell's source. They share that function's scope, so a part
may use what an earlier part declared; the completion value is the dispatcher the cell
thread calls (``install.js``). Every function that can appear in a stack trace is named
``__cm_*``: the stack formatting (``stack.js``) drops those frames so error texts show
only the cell's own frames.
"""

from __future__ import annotations

import os

from codemode.runtime.helper_table import install_source

PARTS = (
    "intrinsics.js",  # the built-ins the runtime calls, captured before cell code
    "setup.js",  # the bridge and configuration from the cell thread; globals removed
    "stack.js",  # error.stack in V8's form, positions V8 reports
    "readers.js",  # the call-site readers (READERS), compiled when an error text first asks
    "errors.js",  # V8's wording of QuickJS messages, the text of a thrown value
    "json.js",  # JSON.stringify of user values and its failure texts, text() conversion
    "json_parse.js",  # JSON.parse with V8's messages
    "bridge.js",  # calls into the cell thread, helper installation, yield_control, exit
    "content.js",  # text, image, audio, generatedImage, content, notify
    "store.js",  # store / load
    "timers.js",  # setTimeout / clearTimeout
    "tools.js",  # tools, ALL_TOOLS, tool-call settlement
    "settled.js",  # as_settled / stream_settled
    "intl.js",  # Intl and the locale methods, answered by the host (runtime/intl/)
    "promise_any.js",  # Promise.any's AggregateError as V8 makes it
    "repeat.js",  # String.prototype.repeat joining as V8 does (long results)
    "report.js",  # how the module's end or failure reaches the cell thread
    "dispatch.js",  # the dispatcher of a cell's ops
    "install.js",  # the globals (after the helper table's install code) and the dispatcher
)
NOTEBOOK_PARTS = (
    "notebook_text.js",  # util.inspect's texts of single values (strings, names, errors)
    "notebook_inspect.js",  # util.inspect's recursion: __cm_inspect
    "notebook.js",  # __cm_format (util.format) and __cm_bundle (display bundles)
)
"""The notebook profile's formatting parts: pure functions that use only ``intrinsics.js``,
so they may come anywhere after it (the notebook realm's prelude adds them; the strict
profile's does not)."""
_QUICKJS_ONLY = {
    "stack.js",
    "readers.js",
    "errors.js",
    "json_parse.js",
    "intl.js",
    "promise_any.js",
    "repeat.js",
}
"""What makes QuickJS look like V8; V8 itself needs none of it (``errors_v8.js`` instead)."""
ENGINE_PARTS = {
    "quickjs": PARTS,
    "v8": tuple(
        "errors_v8.js" if name == "errors.js" else name for name in PARTS if name not in _QUICKJS_ONLY - {"errors.js"}
    ),
}
"""The files of each engine's prelude, in order."""

REALM_PARTS = (
    "intrinsics.js",
    "setup.js",
    "stack.js",
    "readers.js",
    "errors.js",
    "json.js",
    "json_parse.js",
    "bridge.js",  # the realm's own __cm_call (Intl asks the host through it)
    "settled.js",
    "intl.js",
    "promise_any.js",
    *NOTEBOOK_PARTS,  # inspect / format / MIME bundles of values
    "repeat.js",  # after the formatting parts, which keep the built-in repeat for themselves
    "realm.js",  # the realm's registry of running cells
    "realm_members.js",  # its bindings and their members, for completion (last: the baseline)
)
"""The parts the notebook realm evaluates once (QuickJS only)."""
REALM_CELL_PARTS = (
    "realm_cell.js",  # the cell's host calls, configuration, exit()
    "bridge.js",
    "content.js",
    "store.js",
    "timers.js",
    "tools.js",
    "notebook_helpers.js",  # console, display, html, markdown, svg
    "report.js",
    "dispatch.js",
    "realm_install.js",  # the cell's helpers (routed; the helper table's code before it) and its dispatcher
)
"""The body of ``__cm_cell_factory(__cm_cell_id, __cm_cell_config)``, run once per cell."""

_SOURCES: dict[str, str] = {}
_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prelude")
"""The prelude's files: package data next to this module (read as plain files, not through
``importlib.resources``, whose import costs the host's start several milliseconds; the package
is always installed as a folder, never imported from a zip)."""


READERS = (
    "callsite.js",  # the expression V8 names in a TypeError, from QuickJS's position
    "iterable.js",  # V8's message for a for-of or spread over a value that is not iterable
    "destructure.js",  # V8's message for the one pattern of a cell that can have failed
)
"""The call-site readers, not in any assembly: ``readers.js`` asks the host for their source
(:func:`readers_source`) and compiles it the first time an error text needs them (compiled
with the rest, they were a third of each context's preparation, paid by every cell for the few
that fail so)."""


def _part(name: str) -> str:
    with open(os.path.join(_FOLDER, name), encoding="utf-8") as file:
        return file.read()


GENERATED = {"install.js": "strict", "realm_install.js": "notebook"}
"""The parts preceded by the install code of a profile's helpers, which the helper table
generates (:func:`codemode.runtime.helper_table.install_source`): no prelude file installs a
helper by hand."""


def _read(names: tuple[str, ...]) -> str:
    chunks = []
    for name in names:
        profile = GENERATED.get(name)
        if profile is not None:
            header = f"// ---- helpers of the {profile} profile (runtime/helper_table.py) ----\n"
            chunks.append(header + install_source(profile))
        chunks.append(f"// ---- {name} ----\n" + _part(name))
    return "\n".join(chunks)


def prelude_source(engine: str = "quickjs", *, called: bool = True) -> str:
    """The assembled prelude script of ``engine`` (read from the package data once).

    ``called=False``: the same function, not called: the script's value is ``__cm_install``
    itself, which a context can compile before its cell is known and call later
    (``runtime/cell_thread.py``); called, it returns the dispatcher as the script does.
    """
    key = engine if called else engine + ":function"
    source = _SOURCES.get(key)
    if source is None:
        source = assemble(ENGINE_PARTS[engine], called=called)
        _SOURCES[key] = source
    return source


def assemble(names: tuple[str, ...] | list[str], epilogue: str = "", *, called: bool = True) -> str:
    """The prelude files ``names`` (of ``runtime/prelude/``) concatenated in one strict
    function ``__cm_install``, called at once (unless ``called`` is False), with ``epilogue``
    (JavaScript) at its end.

    :func:`prelude_source` assembles an engine's whole prelude so; tests load a few parts
    standalone the same way (e.g. ``intrinsics.js`` and ``notebook.js`` with an epilogue
    that returns the functions under test). Raises ``FileNotFoundError`` for a missing part.
    """
    body = _read(tuple(names)) + ("\n" + epilogue if epilogue else "")
    return '(function __cm_install() {\n"use strict";\n' + body + "\n})" + ("()" if called else "") + "\n"


def readers_source() -> str:
    """The call-site readers (:data:`READERS`) concatenated: the source ``readers.js`` compiles in
    a function of its own (read from the package data once)."""
    source = _SOURCES.get("readers")
    if source is None:
        source = _read(READERS)
        _SOURCES["readers"] = source
    return source


def realm_prelude_source() -> str:
    """The notebook realm's prelude: its completion value is the realm's entry,
    ``entry("cell", cell_id, config_json)`` (the cell factory, which returns the cell's
    dispatcher), ``entry("members", path_json)`` (``realm_members.js``'s listing) or
    ``entry("unwound")`` (JavaScript was interrupted, which runs no ``finally``: no helper of
    an ended cell runs any more, ``realm.js``'s ``__cm_ended_caller``)."""
    source = _SOURCES.get("realm")
    if source is None:
        factory = "function __cm_cell_factory(__cm_cell_id, __cm_cell_config) {\n" + _read(REALM_CELL_PARTS) + "\n}"
        entry = (
            "return function __cm_realm_entry(op, a, b) {\n"
            '  if (op === "members") return __cm_realm_members(a);\n'
            '  if (op === "unwound") { __cm_ended_caller = undefined; return ""; }\n'
            "  return __cm_cell_factory(a, b);\n};"
        )
        source = assemble(REALM_PARTS, factory + "\n" + entry)
        _SOURCES["realm"] = source
    return source
