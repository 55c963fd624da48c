"""Display bundles of the notebook profile (``__cm_bundle`` in runtime/prelude/notebook.js) on
QuickJS and V8: ``text/plain`` always, a ``text/html`` table for a non-empty array of plain
objects, else ``application/json`` for plain objects and arrays JSON holds exactly (never both:
JupyterLab shows the JSON viewer before HTML, and the table would be hidden)."""

from __future__ import annotations

import json

import pytest
from notebook_js import ENGINES, engine, in_engine

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module", params=ENGINES)
def run(request):
    with engine(request.param) as evaluate:
        yield evaluate


def bundle(run, source: str) -> dict:
    (text,) = in_engine(run, [("b", source)])
    assert not text.startswith("THROWS"), text
    return json.loads(text)


TABLE_2X2 = (
    "<table>\n<thead>\n<tr><th>a</th><th>b</th></tr>\n</thead>\n<tbody>\n"
    "<tr><td>1</td><td>x</td></tr>\n<tr><td>2</td><td>y</td></tr>\n</tbody>\n</table>"
)


def test_array_of_plain_objects_is_a_table_without_json(run):
    assert bundle(run, "[{a: 1, b: 'x'}, {a: 2, b: 'y'}]") == {
        "text/plain": "[ { a: 1, b: 'x' }, { a: 2, b: 'y' } ]",
        "text/html": TABLE_2X2,
    }


def test_plain_object_has_json(run):
    assert bundle(run, "{a: 1, b: [1.5, 'x', null, true], c: {d: {}}}") == {
        "text/plain": "{ a: 1, b: [ 1.5, 'x', null, true ], c: { d: {} } }",
        "application/json": {"a": 1, "b": [1.5, "x", None, True], "c": {"d": {}}},
    }


@pytest.mark.parametrize(
    ("source", "copy"),
    [
        ("[]", []),
        ("{}", {}),
        ("Object.assign(Object.create(null), {a: 1})", {"a": 1}),
        ('JSON.parse(\'{"__proto__": {"x": 1}}\')', {"__proto__": {"x": 1}}),
        ("(() => { const s = {v: 1}; return {p: s, q: [s]}; })()", {"p": {"v": 1}, "q": [{"v": 1}]}),
        ("Object.defineProperty({a: 1}, 'hidden', {value: () => 1})", {"a": 1}),
        ("['\\ud800']", ["\ud800"]),
    ],
)
def test_json_part_is_an_exact_copy(run, source, copy):
    assert bundle(run, source)["application/json"] == copy


@pytest.mark.parametrize(
    "source",
    [
        "{f() {}}",
        "{u: undefined}",
        "[1n]",
        "{s: Symbol('s')}",
        "(() => { const o = {}; o.o = o; return o; })()",
        "(() => { const a = [1]; a.push([a]); return a; })()",
        "{d: new Date(0)}",
        "{m: new Map()}",
        "[new Set()]",
        "[1, , 2]",
        "[1, , ]",
        "{[Symbol('k')]: 1}",
        "{n: NaN}",
        "{i: -Infinity}",
        "{z: -0}",
        "new (class A { constructor() { this.a = 1; } })()",
        "{inner: new (class B {})()}",
        "Object.assign([1], {x: 2})",
        "{get g() { return 1; }}",
        "new Map([[1, 2]])",
        "/re/",
        "'text'",
        "42",
        "null",
    ],
)
def test_no_json_part_for_what_json_cannot_hold(run, source):
    parts = bundle(run, source)
    assert "application/json" not in parts
    assert parts["text/plain"]


def test_primitive_bundle_is_text_only(run):
    assert bundle(run, "'text'") == {"text/plain": "'text'"}
    assert bundle(run, "undefined") == {"text/plain": "undefined"}


def test_table_cells_are_escaped(run):
    html = bundle(run, """[{'<k&>': `<b>"x" & 'y'</b>`}]""")["text/html"]
    assert "<tr><th>&lt;k&amp;&gt;</th></tr>" in html
    assert "<tr><td>&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;</td></tr>" in html
    assert "<script" not in html


def test_table_columns_missing_keys_and_nested_values(run):
    parts = bundle(run, "[{a: 1}, {b: {c: [1, 2]}, a: null}, {d: new Date(0), a: 'raw <s>'}]")
    assert parts["text/html"] == (
        "<table>\n<thead>\n<tr><th>a</th><th>b</th><th>d</th></tr>\n</thead>\n<tbody>\n"
        "<tr><td>1</td><td></td><td></td></tr>\n"
        "<tr><td>null</td><td>{ c: [ 1, 2 ] }</td><td></td></tr>\n"
        "<tr><td>raw &lt;s&gt;</td><td></td><td>1970-01-01T00:00:00.000Z</td></tr>\n"
        "</tbody>\n</table>"
    )
    assert "application/json" not in parts  # a table


def test_table_shows_at_most_1000_rows(run):
    parts = bundle(run, "Array.from({length: 1001}, (_, i) => ({i}))")
    html = parts["text/html"]
    assert html.count("<tr>") == 1 + 1000 + 1
    assert "<tr><td>999</td></tr>\n" in html
    assert "<tr><td>1000</td></tr>" not in html
    assert html.endswith('<tr><td colspan="1">... 1 more row</td></tr>\n</tbody>\n</table>')
    assert "application/json" not in parts
    wide = bundle(run, "Array.from({length: 1500}, (_, i) => ({i, j: -i}))")["text/html"]
    assert wide.count("<tr>") == 1002
    assert wide.endswith('<tr><td colspan="2">... 500 more rows</td></tr>\n</tbody>\n</table>')
    exact = bundle(run, "Array.from({length: 1000}, (_, i) => ({i}))")["text/html"]
    assert exact.count("<tr>") == 1001
    assert "more row" not in exact


@pytest.mark.parametrize(
    "source",
    ["[1, 2]", "[{a: 1}, 2]", "[[1]]", "[new (class A {})()]", "[{a: 1}, , ]", "[new Map()]", "{a: {b: 1}}"],
)
def test_no_table_unless_every_item_is_a_plain_object(run, source):
    assert "text/html" not in bundle(run, source)


def test_table_of_null_prototype_rows(run):
    html = bundle(run, "[Object.assign(Object.create(null), {k: 'v'})]")["text/html"]
    assert "<tr><th>k</th></tr>" in html
    assert "<tr><td>v</td></tr>" in html
