"""papermill parameters for codemode notebooks: ``papermill in.ipynb out.ipynb -k codemode -p city Berlin``.

papermill injects parameters as a cell written by a *translator* it finds by the kernel's name,
then by its language (``papermill.translators.papermill_translators.find_translator``). It has no
entry-point group for translators; it loads only its engines (``papermill.engine``) and I/O
handlers from entry points, when it is imported. So the package names, in pyproject's
``[project.entry-points."papermill.engine"]``, an engine ``codemode`` (papermill's own
nbclient engine, unchanged, so ``--engine codemode`` also works), and loading it imports this
module, which registers :class:`CodeModeTranslator` for the kernel names in
:data:`KERNEL_NAMES`. The language ``javascript`` is left alone: other JavaScript kernels
(IJavascript, tslab) have no ``store()``.

The injected cell stores each parameter as JSON, so every profile reads it with ``load``::

    // Parameters
    store("city", "Berlin");
    store("days", 3);

A value JSON cannot hold (a date from ``-y``) is stored as its string. :meth:`CodeModeTranslator.inspect`
reads the same form from the notebook's ``parameters`` cell (``store("name", value); // help``),
which papermill uses for ``--help-notebook`` and to warn about unknown parameters.
"""

from __future__ import annotations

import json
import re
from typing import Any

from papermill.engines import NBClientEngine
from papermill.models import Parameter
from papermill.translators import Translator, papermill_translators

KERNEL_NAMES = ("codemode", "codemode-v8", "codemode-notebook")
"""The kernelspec names the translator is registered for (the default kernelspecs' names)."""

_STORE_LINE = re.compile(
    r"^\s*store\(\s*(?P<name>\"(?:[^\"\\]|\\.)*\")\s*,\s*(?P<value>.*?)\s*\)\s*;?\s*(?://\s*(?P<help>.*))?$"
)
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
    def comment(cls, cmt_str: str) -> str:
        return f"// {cmt_str}".strip()

    @classmethod
    def assign(cls, name: str, str_val: str) -> str:
        return f"store({json.dumps(name, ensure_ascii=False)}, {str_val});"

    @classmethod
    def inspect(cls, parameters_cell: Any) -> list[Parameter]:
        """The parameters a ``parameters`` cell stores, one ``store("name", value);`` per line
        (an optional ``// help`` after it); other lines are ignored. ``inferred_type_name``
        is the value's JSON type, ``"None"`` when the value is not a JSON literal."""
        found = []
        for line in str(parameters_cell.source).splitlines():
            match = _STORE_LINE.match(line)
            if match is None:
                continue
            name = json.loads(match.group("name"))
            value = match.group("value")
            found.append(Parameter(name, _json_type(value), value, match.group("help") or ""))
        return found


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
    papermill_translators.register(_name, CodeModeTranslator)

__all__ = ["KERNEL_NAMES", "CodeModeEngine", "CodeModeTranslator"]
