"""Runs the notebook profile's formatting parts (runtime/prelude/notebook*.js) standalone on
QuickJS and V8, and runs the same expressions through Node's ``util`` for comparison.

Each engine evaluates ``intrinsics.js`` + :data:`NOTEBOOK_PARTS` assembled as the prelude is
(:func:`runtime.prelude_source.assemble`), which leaves ``__cm_inspect``, ``__cm_format`` and
``__cm_bundle`` (and the JSON.stringify of before any case ran) in ``globalThis.__nb``. A *case* is ``(kind, source)``: kind ``"i"`` is
``inspect(<source>)``, ``"f"`` is ``format(<source as an argument list>)``, ``"b"`` is the
JSON text of ``bundle(<source>)``. Sources are evaluated as strict-mode expressions.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from codemode.runtime.prelude_source import NOTEBOOK_PARTS, assemble

ENGINES = ("quickjs", "v8")
EPILOGUE = (
    "globalThis.__nb = { inspect: __cm_inspect, format: __cm_format, bundle: __cm_bundle, json: JSON.stringify };"
)

Case = tuple[str, str]


def parts_source(epilogue: str = EPILOGUE) -> str:
    """``intrinsics.js`` and the notebook parts in one strict function, then ``epilogue``."""
    return assemble(("intrinsics.js", *NOTEBOOK_PARTS), epilogue)


def cases_program(cases: list[Case], calls: dict[str, str], finish: str = "JSON.stringify(__out)") -> str:
    """A script that collects each case's text in ``__out`` (``THROWS <error>`` when evaluating or
    formatting throws; ``calls[kind]`` is the call on the value ``__v``) and ends with ``finish``
    (by default its completion value is the JSON list of the texts)."""
    return f"""
var __cases = {json.dumps(cases)}, __out = [];
for (var __i = 0; __i < __cases.length; __i++) {{
  var __k = __cases[__i][0], __s = __cases[__i][1], __v;
  try {{
    __v = (0, eval)('"use strict"; ' + (__k === 'f' ? '[' + __s + '\\n]' : '(' + __s + '\\n)'));
    __out[__out.length] = (__k === 'f' ? {calls["f"]} : __k === 'b' ? {calls["b"]} : {calls["i"]});
  }} catch (x) {{ __out[__out.length] = 'THROWS ' + x; }}
}}
{finish}"""


PRELUDE_CALLS = {"i": "__nb.inspect(__v)", "f": "__nb.format(__v)", "b": "__nb.json(__nb.bundle(__v))"}
NODE_CALLS = {"i": "util.inspect(__v)", "f": "util.format(...__v)", "b": "'(no bundle in Node)'"}


def node_available() -> bool:
    return shutil.which("node") is not None


def in_node(cases: list[Case]) -> list[str]:
    """Each case's text in Node (one process for the whole list)."""
    finish = "process.stdout.write(JSON.stringify(__out));"
    program = "const util = require('util');\n" + cases_program(cases, NODE_CALLS, finish)
    done = subprocess.run(["node", "-"], input=program, capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


@contextmanager
def engine(name: str, epilogue: str = EPILOGUE) -> Iterator[Callable[[str], str]]:
    """An ``eval(source) -> str`` of a fresh context of engine ``name`` with the parts loaded."""
    if name == "quickjs":
        import quickjs

        context = quickjs.Context()
        context.eval(parts_source(epilogue))
        yield lambda source: context.eval(source)
    else:
        from py_mini_racer import MiniRacer

        with MiniRacer() as v8:
            v8.eval(parts_source(epilogue))
            yield lambda source: v8.eval(source)


def in_engine(run: Callable[[str], str], cases: list[Case]) -> list[str]:
    """Each case's text in an engine context made by :func:`engine`."""
    return json.loads(run(cases_program(cases, PRELUDE_CALLS, "__nb.json(__out)")))
