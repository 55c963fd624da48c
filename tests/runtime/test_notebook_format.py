"""The notebook profile's formatting (runtime/prelude/notebook*.js) against Node v20's ``util``.

Every expression of :mod:`notebook_cases` is inspected (or formatted) by Node and by the
prelude parts on QuickJS and on V8; the texts must be equal, except the few an engine cannot
give, which are pinned. A property test does the same for generated JSON-like values.
"""

from __future__ import annotations

import json

import pytest
from dependencies import require
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from notebook_cases import ENGINE_TEXTS, FORMAT, INSPECT
from notebook_js import ENGINES, engine, in_engine, in_node, node_available, parts_source

from codemode.runtime.prelude_source import ENGINE_PARTS, NOTEBOOK_PARTS, assemble

CASES = [("i", source) for source in INSPECT] + [("f", source) for source in FORMAT]


@pytest.fixture(scope="module")
def node_texts() -> dict[tuple[str, str], str]:
    require(node_available(), "node is not installed")
    return dict(zip(CASES, in_node(CASES), strict=True))


@pytest.fixture(scope="module", params=ENGINES)
def engine_run(request):
    """``(name, eval)`` of one engine context holding the parts."""
    with engine(request.param) as run:
        yield request.param, run


@pytest.fixture(scope="module")
def engine_texts(engine_run) -> tuple[str, dict[tuple[str, str], str]]:
    name, run = engine_run
    return name, dict(zip(CASES, in_engine(run, CASES), strict=True))


@pytest.mark.unit
def test_the_table_covers_the_formats():
    """At least 80 cases, and every kind of value the profile promises is among them."""
    assert len(CASES) >= 80
    text = "\n".join(source for _, source in CASES)
    for needle in ["new Map", "new Set", "new Date", "/ab+c/gi", "Error(", "class C", "async function", "Symbol(",
                   "123n", "-0", "[1, , 3]", "length: 101", "Uint8Array", "Promise", "get a()", "__proto__: null",
                   "class Point", "new Number", "'a-b'", "o.self = o", "'%s is %d years'", "'%j'", "'%o'", "'%c",
                   "'%i'", "'%f'", "100%%"]:  # fmt: skip
        assert needle in text, needle


@pytest.mark.parametrize("case", CASES, ids=[f"{kind}:{source[:60]}" for kind, source in CASES])
def test_text_is_nodes(case, node_texts, engine_texts):
    """The engine's text of the case is Node's (or the pinned text, which then differs from Node's)."""
    name, texts = engine_texts
    pinned = ENGINE_TEXTS.get(case[1], {}).get(name) if case[0] == "i" else None
    if pinned is not None:
        assert texts[case] == pinned
        assert node_texts[case] != pinned, "Node now agrees: unpin the case"
    else:
        assert texts[case] == node_texts[case]


@pytest.mark.unit
def test_a_few_texts_are_pinned(engine_texts):
    """Node's texts for the basics, written out (what Node v20 prints)."""
    name, texts = engine_texts
    assert texts["i", "{a: 1}"] == "{ a: 1 }"
    assert texts["i", "(() => { const o = {name: 'o'}; o.self = o; return o; })()"] == (
        "<ref *1> { name: 'o', self: [Circular *1] }"
    )
    assert texts["i", "{a: {b: {c: {d: 1}}}}"] == "{ a: { b: { c: [Object] } } }"
    assert texts["i", "new Map([['a', 1], [{k: 1}, [2]]])"] == "Map(2) { 'a' => 1, { k: 1 } => [ 2 ] }"
    assert texts["i", "[1, , 3]"] == "[ 1, <1 empty item>, 3 ]"
    assert texts["i", "Array.from({length: 101}, (_, i) => i)"].endswith("\n  ... 1 more item\n]")
    assert texts["i", "async function af() {}"] == "[AsyncFunction: af]"
    assert texts["f", "'%s is %d years', 'Bob', 42"] == "Bob is 42 years"
    assert texts["f", "'%j', (() => { const o = {}; o.o = o; return o; })()"] == "[Circular]"


@pytest.mark.unit
def test_the_parts_leak_no_global(engine_run):
    """Loading the parts adds nothing to the global object (all names stay in the function)."""
    name, _ = engine_run
    probe = "JSON.stringify(Object.getOwnPropertyNames(globalThis).sort())"
    with engine(name, epilogue="") as run:
        loaded = run(probe)
    if name == "quickjs":
        import quickjs

        bare = quickjs.Context().eval(probe)
    else:
        from py_mini_racer import MiniRacer

        with MiniRacer() as v8:
            bare = v8.eval(probe)
    assert json.loads(loaded) == json.loads(bare)
    assert "__cm_inspect" in parts_source()


TAMPER = """
Array.prototype.push = function () { throw new Error('push'); };
Array.prototype.join = function () { return 'joined'; };
Array.prototype.indexOf = function () { return -1; };
String.prototype.slice = function () { return 'sliced'; };
String.prototype.repeat = function () { return 'repeated'; };
String.prototype.padStart = String.prototype.padEnd = function () { return 'padded'; };
Object.keys = () => [];
Reflect.ownKeys = () => [];
Object.getOwnPropertyDescriptor = () => undefined;
Map.prototype.forEach = Set.prototype.forEach = function () {};
Object.defineProperty(Map.prototype, 'size', { get() { return 0; } });
Object.defineProperty(Object.prototype, 'value', { get() { return 'proto'; }, configurable: true });
Object.defineProperty(Object.prototype, 'get', { __proto__: null, get() { return () => 1; }, configurable: true });
Date.prototype.toISOString = () => 'iso';
RegExp.prototype.toString = () => 'regexp';
JSON.stringify = () => 'json';
Symbol.prototype.toString = () => 'symbol';
"""
TAMPERED = [
    ("i", "{a: [1, 2, {b: 'xxx'}], m: new Map([[1, new Set([2])]]), d: new Date(0), r: /x/g}"),
    ("i", "(() => { const o = {k: Symbol('s')}; o.o = o; return o; })()"),
    ("i", "Array.from({length: 30}, (_, i) => i * 7)"),
    ("f", "'%s %j %d', 'a', {b: 1}, 2, {c: [3]}"),
    ("b", "[{a: 1, b: '<'}, {a: 2}]"),
]


@pytest.mark.unit
def test_tampered_builtins_do_not_change_the_texts(engine_run):
    """A cell that replaces the built-ins the formatting uses does not change its texts."""
    name, _ = engine_run
    with engine(name) as run:
        before = in_engine(run, TAMPERED)
        run(TAMPER)
        after = in_engine(run, TAMPERED)
    assert after == before
    assert before[0] == "{\n  a: [ 1, 2, { b: 'xxx' } ],\n  m: Map(1) { 1 => Set(1) { 2 } },\n  d: 1970-01-01T00:00:00.000Z,\n  r: /x/g\n}"  # fmt: skip


# ---- generated JSON-like values ------------------------------------------------------

_leaves = st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats(allow_nan=False, allow_infinity=False)
_keys = st.sampled_from(["a", "b_1", "key-dash", "", "1", "__proto__", "$x", "é"]) | st.text(max_size=8)
JSON_VALUES = st.recursive(
    _leaves | st.text(max_size=30) | st.text(alphabet="ab'\"`$ {}\n\t\\", min_size=60, max_size=130),
    lambda inner: st.lists(inner, max_size=9) | st.dictionaries(_keys, inner, max_size=6),
    max_leaves=40,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.lists(JSON_VALUES, min_size=1, max_size=12))
def test_json_like_values_inspect_as_node_does(batch):
    """For generated JSON values (parsed from JSON text), __cm_inspect agrees with Node on both
    engines; one Node process per batch."""
    require(node_available(), "node is not installed")
    cases = [("i", f"JSON.parse({json.dumps(json.dumps(value))})") for value in batch]
    expected = in_node(cases)
    for name in ENGINES:
        with engine(name) as run:
            assert in_engine(run, cases) == expected, name


@pytest.mark.unit
def test_the_parts_fit_in_each_engines_prelude(engine_run):
    """Appended to the engine's whole prelude, the parts compile: no name of theirs is declared twice."""
    name, run = engine_run
    source = assemble((*ENGINE_PARTS[name], *NOTEBOOK_PARTS))
    assert run(f"typeof new Function({json.dumps(source)})") == "function"
    clash = assemble((*ENGINE_PARTS[name], *NOTEBOOK_PARTS, "intrinsics.js"))
    assert run(f"try {{ new Function({json.dumps(clash)}); 'compiled' }} catch (e) {{ e.name }}") == "SyntaxError"
