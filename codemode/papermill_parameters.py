"""papermill parameters for codemode notebooks: ``papermill in.ipynb out.ipynb -k codemode -p city Berlin``.

papermill injects parameters as a cell written by a *translator* it finds by the kernel's name,
then by its language (``papermill.translators.papermill_translators.find_translator``). It has no
entry-point group for translators; it loads only its engines (``papermill.engine``) and I/O
handlers from entry points, when it is imported. So the package names, in pyproject's
``[project.entry-points."papermill.engine"]``, an engine ``codemode`` (papermill's own
nbclient engine, unchanged, so ``--engine codemode`` also works), and loading it imports this
module, which registers :class:`CodeModeTranslator` for the kernel names in
``codemode.install.KERNEL_NAMES`` (:class:`NotebookTranslator` for the notebook profile's kernelspecs,
:data:`NOTEBOOK_KERNEL_NAMES`). The language ``javascript`` is left alone: other JavaScript
kernels (IJavascript, tslab) have no ``store()``.

The injected cell stores each parameter as JSON, so every profile reads it with ``load``::

    // Parameters
    store("city", "Berlin");
    store("days", 3);

In the notebook profile (the ``codemode-notebook`` kernelspecs) each parameter also becomes a
binding later cells read by its name (a strict cell keeps no bindings, so only there)::

    // Parameters
    store("city", "Berlin"); const city = load("city");
    store("days", 3); const days = load("days");

A parameter whose name is not a JavaScript identifier, is a reserved word or names one of the
cell's helpers (:data:`UNBOUND_NAMES`: a binding would hide ``text`` or ``tools``) is only
stored. A value JSON cannot hold (a date from ``-y``) is stored as its string. A number JSON
cannot hold (``-p x inf``, ``-p x nan``, ``.inf`` in YAML), anywhere in the value, is refused
with a :class:`~papermill.exceptions.PapermillException` naming the parameter: ``store()`` keeps
JSON, so it would have become ``null`` without a word.

:meth:`CodeModeTranslator.inspect` reads the notebook's ``parameters`` cell for papermill's
``--help-notebook`` and its warning about unknown parameters, one parameter per line in any of
these forms, each optionally followed by ``// help``: ``store("name", value);``, the notebook
profile's ``store("name", value); const name = load("name");``, and a declaration
``const name = value;`` (also ``let`` / ``var``), as a notebook-profile user writes defaults.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from papermill.engines import NBClientEngine
from papermill.exceptions import PapermillException
from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

from codemode.install import KERNEL_NAMES, KERNELSPECS
from codemode.runtime.helper_table import HELPERS

NOTEBOOK_KERNEL_NAMES = tuple(spec.name for spec in KERNELSPECS if spec.profile == "notebook")
"""The kernelspecs whose cells run in the notebook profile (:class:`NotebookTranslator`)."""

_HELP = r"\s*(?://\s*(?P<help>.*))?$"
_STORE_LINE = re.compile(
    r"^\s*store\(\s*(?P<name>\"(?:[^\"\\]|\\.)*\")\s*,\s*(?P<value>.*?)\s*\)\s*;?"
    r"(?:\s*const\s+(?P<binding>[\w$]+)\s*=\s*load\(\s*(?P=name)\s*\)\s*;?)?" + _HELP
)
_DECLARATION_LINE = re.compile(r"^\s*(?:const|let|var)\s+(?P<binding>[\w$]+)\s*=\s*(?P<rest>.*)$")

RESERVED_WORDS = frozenset(
    "await break case catch class const continue debugger default delete do else enum export extends false "
    "finally for function if implements import in instanceof interface let new null package private "
    "protected public return static super switch this throw true try typeof var void while with yield "
    "arguments eval undefined NaN Infinity globalThis".split()
)
"""Names a ``const`` cannot bind (ECMAScript's reserved words, and the globals a binding would
break: ``undefined``, ``globalThis``, ...)."""
UNBOUND_NAMES = RESERVED_WORDS | frozenset(h.name for h in HELPERS)
"""Parameter names the notebook profile's injected cell stores without a binding: reserved
words and the cells' helpers (every profile's, from the helper table
:mod:`codemode.runtime.helper_table`)."""
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*", re.ASCII)
_JSON_TYPES = (
    (bool, "boolean"),
    (int, "number"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


class CodeModeTranslator(Translator):
    """papermill's translator for codemode cells (see the module docstring)."""

    @classmethod
    def translate(cls, val: Any) -> str:
        """``val`` as a JSON literal (valid JavaScript); what JSON cannot hold, as its string."""
        try:
            return json.dumps(val, ensure_ascii=False)
        except (TypeError, ValueError):
            return json.dumps(str(val), ensure_ascii=False)

    @classmethod
    def codify(cls, parameters: dict[str, Any], comment: str = "Parameters") -> str:
        """papermill's injected cell, after every parameter's value was checked
        (:func:`check_finite`)."""
        for name, value in parameters.items():
            check_finite(name, value)
        return str(super().codify(parameters, comment))

    @classmethod
    def comment(cls, cmt_str: str) -> str:
        return f"// {cmt_str}".strip()

    @classmethod
    def assign(cls, name: str, str_val: str) -> str:
        return f"store({json.dumps(name, ensure_ascii=False)}, {str_val});"

    @classmethod
    def inspect(cls, parameters_cell: Any) -> list[Parameter]:
        """The parameters a ``parameters`` cell declares, one per line in a form of the module
        docstring (an optional ``// help`` after it); other lines are ignored.
        ``inferred_type_name`` is the value's JSON type, ``"None"`` when the value is not a
        JSON literal."""
        found = []
        for line in str(parameters_cell.source).splitlines():
            match = _STORE_LINE.match(line)
            if match is not None:
                name = json.loads(match.group("name"))
                if match.group("binding") not in (None, name):
                    continue  # store("a", 1); const b = load("a"): not a parameter's line
                value, help_text = match.group("value"), match.group("help") or ""
            else:
                match = _DECLARATION_LINE.match(line)
                if match is None:
                    continue
                name = match.group("binding")
                value, help_text = _value_and_help(match.group("rest"))
            found.append(Parameter(name, _json_type(value), value, help_text))
        return found


def check_finite(name: str, value: Any) -> None:
    """Raise ``PapermillException`` when parameter ``name``'s ``value`` is or holds (in a list or
    a dict, at any depth) a float that is infinite or NaN, naming the parameter and where in
    the value; JSON has no such numbers, and ``store()`` would keep ``null``."""
    pending: list[tuple[str, Any]] = [("", value)]
    while pending:
        path, item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            where = f" at {name}{path}" if path else ""
            raise PapermillException(
                f"Parameter {name!r} holds {item!r}{where}: JSON, which store() keeps, has no infinity or NaN "
                "(it would become null). Pass a finite number, or the text with -r to store it as a string."
            )
        if isinstance(item, dict):
            pending.extend((f"{path}[{key!r}]", inner) for key, inner in reversed(item.items()))
        elif isinstance(item, (list, tuple)):
            pending.extend((f"{path}[{index}]", inner) for index, inner in reversed(list(enumerate(item))))


def binds(name: str) -> bool:
    """True when the notebook profile's injected cell binds parameter ``name`` (module
    docstring): an ASCII JavaScript identifier that is not in :data:`UNBOUND_NAMES`."""
    return _IDENTIFIER.fullmatch(name) is not None and name not in UNBOUND_NAMES


class NotebookTranslator(CodeModeTranslator):
    """The translator of the notebook profile's kernelspecs: each parameter is stored and
    bound (module docstring)."""

    @classmethod
    def assign(cls, name: str, str_val: str) -> str:
        stored = super().assign(name, str_val)
        if not binds(name):
            return stored
        return f"{stored} const {name} = load({json.dumps(name, ensure_ascii=False)});"


def _value_and_help(rest: str) -> tuple[str, str]:
    """The value and the help of a declaration's text after ``=``: the value ends at the first
    ``//`` before which it is a JSON literal (a string may hold ``//``), else at the first
    ``//``; a final ``;`` is not part of it."""
    cuts = [i for i in range(len(rest)) if rest.startswith("//", i)]
    for cut in [*cuts, len(rest)]:
        value = rest[:cut].rstrip().removesuffix(";").rstrip()
        if _json_type(value) != "None":
            return value, rest[cut + 2 :].strip()
    cut = cuts[0] if cuts else len(rest)
    return rest[:cut].rstrip().removesuffix(";").rstrip(), rest[cut + 2 :].strip()


def _json_type(literal: str) -> str:
    try:
        value = json.loads(literal)
    except ValueError:
        return "None"
    if value is None:
        return "null"
    return next(name for kind, name in _JSON_TYPES if isinstance(value, kind))


class CodeModeEngine(NBClientEngine):
    """papermill's nbclient engine under the name ``codemode``: the entry point whose loading
    registers the translator (module docstring)."""


for _name in KERNEL_NAMES:
    papermill_translators.register(_name, NotebookTranslator if _name in NOTEBOOK_KERNEL_NAMES else CodeModeTranslator)

__all__ = [
    "KERNEL_NAMES",
    "NOTEBOOK_KERNEL_NAMES",
    "UNBOUND_NAMES",
    "CodeModeEngine",
    "CodeModeTranslator",
    "NotebookTranslator",
    "binds",
    "check_finite",
]
