"""What of the runtime a cell can reach: none of its functions, and no frame field.

A cell's callbacks run below the runtime's own JavaScript (a tool argument's ``toJSON`` below
the prelude's serialiser, a timer below its dispatcher, ...). V8's call sites
(``Error.prepareStackTrace``, ``Error.captureStackTrace``) answer ``getFunction()`` with
undefined for strict code and all below it; QuickJS answered every frame's function, so a cell
got the prelude's ``__cm_tool`` and 17 more, and through ``__cm_tool`` wrote fields of the
``delegate/request`` frame itself. The host checks every argument of the prelude's calls
(``runtime/bridge.py``), so even a prelude function called with what the helpers never pass
makes no frame field.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rt_client import body_of, start_host, text_items

from codemode.runtime import bridge

# Every function a call site hands out, from stacks taken in the callbacks each helper runs.
HARVEST = r"""
const seen = [];
const mine = new Set();
function collect(stack) {
  if (!Array.isArray(stack)) return;
  for (const site of stack) {
    const fn = site.getFunction();
    if (typeof fn === "function" && !mine.has(fn)) seen.push(fn.name || "(anonymous)");
  }
}
function sites() {
  Error.prepareStackTrace = (e, s) => s;
  try { collect(new Error().stack); const o = {}; Error.captureStackTrace(o); collect(o.stack); }
  finally { Error.prepareStackTrace = undefined; }
  return 1;
}
const probes = [
  () => tools.echo({ toJSON: sites }),
  () => tools.echo({ get x() { sites(); return 1; } }),
  () => text({ toJSON: sites }),
  () => store("k", { toJSON: sites }),
  () => notify({ toString() { sites(); return "n"; } }),
  () => image({ get image_url() { sites(); return "data:image/png;base64,AA=="; } }),
  () => new Promise((resolve) => setTimeout(() => resolve(sites()), 0)),
  () => tools.echo(1).then(sites),
  () => { const p = tools.echo(2); p.then = undefined; return Promise.resolve({ then(r) { sites(); r(1); } }); },
  () => [1].map(sites),
];
for (const probe of probes) mine.add(probe);
mine.add(collect); mine.add(sites);
for (const probe of probes) { try { await probe(); } catch (e) { text("probe failed: " + e); } }
text(JSON.stringify(seen));
"""


@pytest.mark.parametrize(("engine", "profile"), [("quickjs", None), ("v8", None), ("quickjs", "notebook")])
async def test_call_sites_hand_out_no_runtime_function(engine: str, profile: str | None) -> None:
    """No call site hands out a function the cell did not make, on either engine: the pinned
    case (``__cm_tool`` from a tool argument's ``toJSON``) and every helper that calls back into
    the cell. A sloppy function of the cell's own on top of the stack (``new Function`` code) is
    handed out, as V8 does; the wrapped method still shows as V8's built-in (name, length, no
    ``prototype``, read-only and non-configurable). The notebook profile's realm too."""
    host = await start_host(engine=engine, profile=profile)
    try:
        await host.hello()
        await host.open("s1")
        response = await host.run(HARVEST)
        assert body_of(response)["error_text"] is None
        # text() prints its probe's value; no probe failed, no function came out
        assert text_items(response) == ["1", "[]"]
        own = await host.run(
            'const f = new Function("Error.prepareStackTrace = (e, s) => s; const s = new Error().stack;'
            ' Error.prepareStackTrace = undefined; return s[0].getFunction();");\n'
            "const site = (() => { Error.prepareStackTrace = (e, s) => s; const s = new Error().stack;"
            " Error.prepareStackTrace = undefined; return s[0]; })();\n"
            "const d = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(site), 'getFunction');\n"
            "text([f() === f, site.getFunction(), d.value.name, d.value.length, d.writable, d.enumerable,"
            " d.configurable, 'prototype' in d.value].join());"
        )
        assert text_items(own) == ["true,,getFunction,0,false,false,false,false"]
    finally:
        await host.close()


class _Cell:
    """A cell thread that records what reaches it (the bridge's side of ``__codemode_host``)."""

    def __init__(self) -> None:
        self.reached: list[tuple[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        def record(*args: Any) -> str:
            self.reached.append((name, args))
            return "tool-1"

        return record


FORGED_TOOL_CALLS = {
    # the case: a text that closes the argument and writes the frame's own fields
    '0:null}},"type":"bogus","x":{"y":{"z":null': "a value must be one JSON value",
    '0:1},"cell_id":"1","z":2': "a value must be one JSON value",
    "0:NaN": "a value must be one JSON value",
    "0:1 2": "a value must be one JSON value",
    "0:": "a value must be one JSON value",
    "-1:1": "a tool call names its tool by index",
    " 0:1": "a tool call names its tool by index",
    "1_0:1": "a tool call names its tool by index",
    "\u0661:1": "a tool call names its tool by index",
}


@pytest.mark.unit
@pytest.mark.parametrize(("arg", "refusal"), FORGED_TOOL_CALLS.items())
def test_a_forged_tool_call_never_reaches_a_frame(arg: str, refusal: str) -> None:
    """``tool`` with an index that is not ASCII digits or an input that is not exactly one JSON
    value is refused before the cell thread hears of it (the frame splices the input's text)."""
    cell = _Cell()
    assert bridge.handle(cell, "tool", arg) == f"ecode-mode runtime error: {refusal}"
    assert cell.reached == []


@pytest.mark.unit
def test_a_forged_megabyte_argument_is_refused_too() -> None:
    """A text of a megabyte or more is checked by another parser (``orjson``): the same answers."""
    cell = _Cell()
    value = json.dumps(["x" * 100] * 11000)
    assert len(value) > 1 << 20
    assert bridge.handle(cell, "tool", f'0:{value}}},"type":"bogus","x":{{"y":{{"z"') == (
        "ecode-mode runtime error: a value must be one JSON value"
    )
    assert bridge.handle(cell, "tool", f"0:{value} ") == "ecode-mode runtime error: a value must be one JSON value"
    assert cell.reached == []
    assert bridge.handle(cell, "tool", f"0:{value}") == 'v"tool-1"'
    assert cell.reached == [("call_tool", (0, value, None))]


FORGED_CALLS = [
    ("emit", "{}", "a content item must have a string type"),
    ("emit", '{"type": 1}', "a content item must have a string type"),
    ("emit", "[1]", "a content item must be a JSON object"),
    ("emit", "{", "a content item must be a JSON object"),
    ("notify", '{"text": "x"}', "a notification must be a JSON string"),
    ('store:"k"', "1}, {", "a value must be one JSON value"),
    ('store:"k"', "1 2", "a value must be one JSON value"),
    ("store:1", "1", "a stored value's key must be a JSON string"),
    ('store:"k" "j"', "1", "a stored value's key must be a JSON string"),
    ("load", "[1]", "a key must be a JSON string"),
    ("fail", "{}", "a failure's text must be a JSON string"),
]


@pytest.mark.unit
@pytest.mark.parametrize(("op", "arg", "refusal"), FORGED_CALLS)
def test_a_forged_host_call_is_refused(op: str, arg: str, refusal: str) -> None:
    """Every operation's argument has the shape the prelude sends, or the call is refused with
    a clear text and nothing reaches the cell's state (an item without a string ``type`` would
    make the client drop the host; a notification that is no string, likewise)."""
    cell = _Cell()
    assert bridge.handle(cell, op, arg) == f"ecode-mode runtime error: {refusal}"
    assert cell.reached == []


@pytest.mark.unit
def test_the_shapes_the_prelude_sends_still_pass() -> None:
    """The same operations with the prelude's own arguments reach the cell thread."""
    cell = _Cell()
    assert bridge.handle(cell, "tool", '0:{"a":[1,"x:y"]}') == 'v"tool-1"'
    assert bridge.handle(cell, "tool", "12:null") == 'v"tool-1"'
    assert bridge.handle(cell, "emit", json.dumps({"type": "input_text", "text": "t"})) is None
    assert bridge.handle(cell, "notify", '"n"') is None
    assert bridge.handle(cell, 'store:"k"', '[1,{"b":2}]') is None
    assert cell.reached == [
        ("call_tool", (0, '{"a":[1,"x:y"]}', None)),
        ("call_tool", (12, "null", None)),
        ("emit_item", ({"type": "input_text", "text": "t"},)),
        ("notify", ("n",)),
        ("store", ("k", '[1,{"b":2}]')),
    ]
