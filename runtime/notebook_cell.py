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

The function's name, ``__cm_cell$<id>$<token>`` (:func:`body_name`; ``token`` random per
cell), is how the realm knows whose body an interrupt stopped in a promise job
(:func:`interrupted_cell`): QuickJS names it in the interrupt's stack (at most its first ten
frames), and ``prelude/stack.js`` shows its frames as the cell's own, unnamed. The token keeps
a cell from passing its code off as another's: any function may be named ``__cm_cell$2``, but
a cell learns another cell's token only from a stack taken while that cell's body calls code
it supplied (a replaced built-in, say), which is that cell's own choice to trust.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import dataclass

from codemode.runtime.helper_table import names_of
from codemode.runtime.jserrors import compile_error_text, first_static_import, prepare_source
from codemode.runtime.notebook_source import transform

HELPERS = names_of("notebook")
"""The parameters of every cell's function: its own helpers (``prelude/realm_install.js``), the
notebook profile's names in the helper table (:mod:`codemode.runtime.helper_table`)."""

_LOCATION = re.compile(r"(<input>:)(\d+)(:\d+)")
_FRAME_NAME = re.compile(r"^\s*at (.+) \(", re.MULTILINE)


@dataclass(frozen=True)
class CellScript:
    """What the realm runs for one cell: ``script`` and the ``body`` its positions refer to,
    or ``error``, the cell's ``error_text`` when it cannot run at all."""

    script: str
    body: str
    has_value: bool
    error: str | None = None


def body_name(cell_id: str) -> str:
    """A new name for the body function of cell ``cell_id``: ``__cm_cell$<id>$<token>``, the
    id's characters other than letters, digits and ``_`` as ``_``, the token 16 random hex digits."""
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in cell_id)
    return f"__cm_cell${safe}${secrets.token_hex(8)}"


def cell_script(source: str, function_name: str) -> CellScript:
    """The script of a cell's ``source``, its function named ``function_name`` (:func:`body_name`; see
    the module docstring)."""
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
    script = f"(async function {function_name}({', '.join(HELPERS)}) {{{''.join(header)}\n{body}\n}})"
    return CellScript(script, body, transformed.has_value)


def interrupted_cell(exception_text: str, bodies: dict[str, str]) -> str | None:
    """The id of the cell whose body an interrupt stopped in a promise job, from QuickJS's
    ``exception_text`` (``InternalError: interrupted`` and its stack): of ``bodies`` (body
    function name -> cell id, :func:`body_name`), the one of the outermost frame named exactly
    so, or None when no cell's body is on the stack (a ``.then`` callback, an async function
    resumed on its own, a stack deeper than QuickJS's ten frames)."""
    found = [bodies[name] for name in _FRAME_NAME.findall(exception_text) if name in bodies]
    return found[-1] if found else None


def compile_error(exception_text: str, body: str) -> str:
    """The ``error_text`` of a cell script the engine refused (``exception_text``, QuickJS's)."""
    moved = _LOCATION.sub(lambda m: f"{m.group(1)}{int(m.group(2)) - 1}{m.group(3)}", exception_text)
    return compile_error_text(moved, body, True)
