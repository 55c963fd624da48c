"""A notebook cell's source as the script the realm evaluates, and its compile-time errors.

The realm (``runtime/realm.py``) evaluates, for each cell, one script

``(async function __cm_cell$<id>(<helpers>) {"use strict";<globals><hoisted functions>``
``<body>``
``})``

whose first line is a header and whose body is the cell's source transformed by
:mod:`~codemode.runtime.notebook_source` (line N of the body is line N of the source, so
positions in the script are one line below the cell's; ``prelude/stack.js`` and
:func:`compile_error` move them back). The header makes each declared name a property of
the realm's global object when it is missing, and publishes the cell's top-level functions
as globals; a name equal to a helper's stays the cell's own (the parameter). A static
``import`` and a ``return`` outside every function are refused with Codex's texts, as in the
strict profile.

The function's name, ``__cm_cell$<id>``, is how the realm knows whose body an interrupt stopped
(:func:`interrupted_cell`): QuickJS names it in the interrupt's stack (at most its first ten
frames), and ``prelude/stack.js`` shows its frames as the cell's own, unnamed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .jserrors import compile_error_text, first_static_import, prepare_source
from .notebook_source import transform

HELPERS = (
    "tools",
    "ALL_TOOLS",
    "clearTimeout",
    "setTimeout",
    "text",
    "content",
    "image",
    "audio",
    "generatedImage",
    "store",
    "load",
    "notify",
    "yield_control",
    "exit",
    "as_settled",
    "stream_settled",
    "console",
    "display",
    "html",
    "markdown",
    "svg",
)
"""The parameters of every cell's function: its own helpers (``prelude/realm_install.js``)."""

_LOCATION = re.compile(r"(<input>:)(\d+)(:\d+)")
_BODY_FRAME = re.compile(r"^\s*at __cm_cell\$(\w+) \(", re.MULTILINE)


@dataclass(frozen=True)
class CellScript:
    """What the realm runs for one cell: ``script`` and the ``body`` its positions refer to,
    or ``error``, the cell's ``error_text`` when it cannot run at all."""

    script: str
    body: str
    has_value: bool
    error: str | None = None


def _function_name(cell_id: str) -> str:
    return "__cm_cell$" + "".join(c if c.isalnum() or c == "_" else "_" for c in cell_id)


def cell_script(source: str, cell_id: str) -> CellScript:
    """The script of the ``source`` of cell ``cell_id`` (see the module docstring)."""
    specifier = first_static_import(source)
    if specifier is not None:
        return CellScript("", source, False, f"Unsupported import in exec: {specifier}")
    transformed = transform(source)
    if transformed.top_level_return:
        # What Codex's module and the strict profile answer (a module has no top-level return).
        return CellScript("", source, False, "SyntaxError: Illegal return statement")
    body = prepare_source(transformed.body)
    header = ['"use strict";']
    for name in transformed.declared:
        if name not in HELPERS:
            key = json.dumps(name)
            header.append(f"if (!({key} in globalThis)) globalThis[{key}] = undefined;")
    for name in transformed.functions:
        if name not in HELPERS:
            header.append(f"globalThis[{json.dumps(name)}] = {name};")
    script = f"(async function {_function_name(cell_id)}({', '.join(HELPERS)}) {{{''.join(header)}\n{body}\n}})"
    return CellScript(script, body, transformed.has_value)


def interrupted_cell(exception_text: str) -> str | None:
    """The id of the cell whose body an interrupt stopped, from QuickJS's ``exception_text``
    (``InternalError: interrupted`` and its stack): the outermost ``__cm_cell$<id>`` frame, or
    None when no cell's body is on the stack (a ``.then`` callback, an async function resumed on
    its own, a stack deeper than QuickJS's ten frames)."""
    found = _BODY_FRAME.findall(exception_text)
    return found[-1] if found else None


def compile_error(exception_text: str, body: str) -> str:
    """The ``error_text`` of a cell script the engine refused (``exception_text``, QuickJS's)."""
    moved = _LOCATION.sub(lambda m: f"{m.group(1)}{int(m.group(2)) - 1}{m.group(3)}", exception_text)
    return compile_error_text(moved, body, True)
