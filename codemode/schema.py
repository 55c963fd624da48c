"""``jsonschema``, imported without the optional backends of its format checkers.

The kernel validates the content of Jupyter requests (:mod:`codemode.kernel.request_checks`) and the
arguments of tool calls (:mod:`codemode.dispatch.dispatcher`) with ``jsonschema``, and neither
checks ``format`` (in JSON Schema 2020-12 a format is an annotation unless a format checker is
asked for). Importing ``jsonschema`` imports, in ``jsonschema._format``, every installed library
behind a format checker: ``rfc3987_syntax`` among them, which builds 38 Lark grammars at import,
0.8 to 2.4 s (python-jsonschema/jsonschema issue 1428), and ``isoduration`` with ``arrow``. Those
libraries come with JupyterLab's dependencies, so on most machines the kernel would pay that
at start-up for checkers it never runs.

Importing this module imports ``jsonschema`` with those libraries hidden (a ``None`` entry in
``sys.modules`` makes their ``import`` raise ``ImportError``, which ``jsonschema._format``
treats as "not installed") and then un-hides them: a later ``import idna`` anywhere in the
process works as usual. The one difference: this process's ``jsonschema.FormatChecker`` has no
checker for the formats those libraries provide (``iri``, ``idn-hostname``, ``duration``,
``json-pointer``, ``color``, ...). If ``jsonschema`` was already imported, nothing changes.
"""

from __future__ import annotations

import sys

FORMAT_BACKENDS = (
    "fqdn",
    "idna",
    "isoduration",
    "jsonpointer",
    "rfc3339_validator",
    "rfc3986_validator",
    "rfc3987",
    "rfc3987_syntax",
    "uri_template",
    "webcolors",
)
"""The modules ``jsonschema._format`` imports when they are installed (jsonschema 4.26)."""


def _import_without_format_backends() -> None:
    hidden = [name for name in FORMAT_BACKENDS if name not in sys.modules]
    if "jsonschema" in sys.modules:
        return
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]
    try:
        import jsonschema  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name, ...) is None:
                del sys.modules[name]


_import_without_format_backends()

import jsonschema  # noqa: E402
from jsonschema.exceptions import ValidationError, best_match  # noqa: E402

__all__ = ["FORMAT_BACKENDS", "ValidationError", "best_match", "jsonschema"]
