"""The global scope a cell sees, as Codex's host 0.171 shows it (``globals_*`` cases).

Codex's native helpers (``text``, ``image``, ``exit``, the ``tools.*`` functions, ...) are
V8 API functions: ``name`` ``""``, ``length`` 0, an own ``prototype``. ``content`` and
``as_settled`` are JavaScript functions with their own name and length;
``stream_settled`` is an async function. The helpers are enumerable own properties of
``globalThis`` in a fixed order.
"""

from __future__ import annotations

import json

from rt_client import text_items, tool_def

SHAPE = (
    "const shape = (f) => [f.name, f.length, Object.getOwnPropertyNames(f).join(','),"
    " Object.hasOwn(f, 'prototype') && f.prototype.constructor === f,"
    " Object.getPrototypeOf(f) === Object.getPrototypeOf(async () => {})].join('|');\n"
)

NATIVE = " |0|length,name,prototype|true|false"


async def test_every_helper_has_codexs_name_and_length(host):
    """Named helpers keep their names and arities; the native ones show "" and 0."""
    names = [
        "text", "image", "audio", "generatedImage", "content", "notify", "store", "load",
        "exit", "yield_control", "setTimeout", "clearTimeout", "as_settled", "stream_settled",
    ]  # fmt: skip
    source = SHAPE + f"for (const n of {json.dumps(names)}) text(n + ' ' + shape(globalThis[n]));\n"
    assert text_items(await host.run(source)) == [
        "text" + NATIVE,
        "image" + NATIVE,
        "audio" + NATIVE,
        "generatedImage" + NATIVE,
        "content content|1|length,name,prototype|true|false",
        "notify" + NATIVE,
        "store" + NATIVE,
        "load" + NATIVE,
        "exit" + NATIVE,
        "yield_control" + NATIVE,
        "setTimeout" + NATIVE,
        "clearTimeout" + NATIVE,
        "as_settled as_settled|1|length,name,prototype|true|false",
        "stream_settled stream_settled|2|length,name|false|true",
    ]


async def test_tool_functions_look_native(host):
    """Every tools.* function, whatever its name, shows name "" and length 0."""
    tools = [tool_def("echo"), tool_def("mcp__srv__get-thing", wire_name="get-thing", namespace="mcp__srv__")]
    source = SHAPE + "for (const n of Object.keys(tools)) text(n + ' ' + shape(tools[n]));\n"
    assert text_items(await host.run(source, tools=tools)) == ["echo" + NATIVE, "mcp__srv__get_thing" + NATIVE]


async def test_helpers_are_enumerable_globals_in_codexs_order(host):
    """Object.keys(globalThis) lists exactly the helpers, in the order of Codex's host."""
    source = (
        "text(JSON.stringify(Object.keys(globalThis)));\n"
        "const d = Object.getOwnPropertyDescriptor(globalThis, 'text');\n"
        "text([d.writable, d.enumerable, d.configurable].join(','));\n"
    )
    assert text_items(await host.run(source)) == [
        '["tools","ALL_TOOLS","clearTimeout","setTimeout","text","content","image","audio","generatedImage",'
        '"store","load","notify","yield_control","exit","as_settled","stream_settled"]',
        "true,true,true",
    ]


GLOBAL_NAMES = (
    "ALL_TOOLS AggregateError Array ArrayBuffer AsyncDisposableStack BigInt BigInt64Array BigUint64Array Boolean"
    " DataView Date DisposableStack Error EvalError FinalizationRegistry Float16Array Float32Array Float64Array"
    " Function Infinity Int16Array Int32Array Int8Array Intl Iterator JSON Map Math NaN Number Object Promise Proxy"
    " RangeError ReferenceError Reflect RegExp Set String SuppressedError Symbol SyntaxError TypeError URIError"
    " Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet as_settled audio clearTimeout"
    " content decodeURI decodeURIComponent encodeURI encodeURIComponent escape eval exit generatedImage globalThis"
    " image isFinite isNaN load notify parseFloat parseInt setTimeout store stream_settled text tools undefined"
    " unescape yield_control"
).split()


async def test_the_global_object_has_exactly_codexs_own_properties(host):
    """Sorted own names as in Codex's host: no QuickJS InternalError, no own symbols, tag Object."""
    source = (
        "text(Object.getOwnPropertyNames(globalThis).sort().join(' '));\n"
        "text(Object.getOwnPropertySymbols(globalThis).length + ' ' + Object.prototype.toString.call(globalThis));\n"
        "try { InternalError; } catch (e) { text(e.constructor.name + ': ' + e.message); }\n"
        "text(['InternalError', '__codemode_host', '__codemode_config'].map((n) => n in globalThis).join(','));\n"
    )
    expected = [" ".join(GLOBAL_NAMES), "0 [object Object]", "ReferenceError: InternalError is not defined"]
    assert text_items(await host.run(source)) == [*expected, "false,false,false"]
    # Each cell starts from the same scope: what one cell defines is gone in the next.
    assert text_items(await host.run("globalThis.InternalError = 1; text(typeof InternalError);")) == ["number"]
    assert text_items(await host.run(source)) == [*expected, "false,false,false"]
