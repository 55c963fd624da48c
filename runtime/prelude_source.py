"""The prelude: the JavaScript that installs a cell's globals, kept in ``runtime/prelude/``.

The files are concatenated in :data:`PARTS` order inside one strict function,
``(function __cm_install() { ... })()``, evaluated as a global script in every fresh
QuickJS context before the cell's module. They share that function's scope, so a part
may use what an earlier part declared; the completion value is the dispatcher the cell
thread calls (``install.js``). Every function that can appear in a stack trace is named
``__cm_*``: the stack formatting (``stack.js``) drops those frames so error texts show
only the cell's own frames.
"""

from __future__ import annotations

from importlib import resources

PARTS = (
    "intrinsics.js",  # the built-ins the runtime calls, captured before cell code
    "setup.js",  # the bridge and configuration from the cell thread; globals removed
    "stack.js",  # error.stack in V8's form, positions V8 reports
    "errors.js",  # V8's wording of QuickJS messages, the text of a thrown value
    "json.js",  # JSON.stringify of user values and its failure texts, text() conversion
    "json_parse.js",  # JSON.parse with V8's messages
    "bridge.js",  # calls into the cell thread, helper installation, yield_control, exit
    "content.js",  # text, image, audio, generatedImage, content, notify
    "store.js",  # store / load
    "timers.js",  # setTimeout / clearTimeout
    "tools.js",  # tools, ALL_TOOLS, tool-call settlement
    "settled.js",  # as_settled / stream_settled
    "intl.js",  # a minimal Intl.NumberFormat
    "install.js",  # the globals and the dispatcher
)

_SOURCE: str | None = None


def prelude_source() -> str:
    """The assembled prelude script (read from the package data once)."""
    global _SOURCE
    if _SOURCE is None:
        folder = resources.files(__package__).joinpath("prelude")
        parts = [f"// ---- {name} ----\n" + folder.joinpath(name).read_text("utf-8") for name in PARTS]
        _SOURCE = '(function __cm_install() {\n"use strict";\n' + "\n".join(parts) + "\n})()\n"
    return _SOURCE
