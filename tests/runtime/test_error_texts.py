"""Error texts of a cell in V8's words: uncaught values, parse errors, runtime errors, JSON.parse.

Each test names the recorded Codex cases whose behaviour it pins."""

from __future__ import annotations

import pytest
from rt_client import body_of, start_host, text_items


async def test_uncaught_error_texts(host):
    """error_text: stack for Errors, V8 header, plain values converted (throw_* cases)."""
    cases = {
        'text("before"); throw new Error("boom");': "Error: boom\n    at exec_main.mjs:1:23",
        'throw "plain";': "plain",
        "throw null;": "null",
        "throw undefined;": "undefined",
        "throw 42;": "42",
        "throw {a: 1};": "[object Object]",
        # V8 names an error by its `name`, which a subclass inherits (error_texts_thrown_values).
        "class MyError extends Error {}\nthrow new MyError('m');": "Error: m\n    at exec_main.mjs:2:7",
        "throw Object.create(null);": "",
        # the frame of a for-of's iterable is at the iterable, not at `for` (error_texts_iteration).
        "const list = null;\nfor (const x of list) {}": "TypeError: list is not iterable\n    at exec_main.mjs:2:17",
        'throw new Error("");': "Error\n    at exec_main.mjs:1:7",
        "null.x;": "TypeError: Cannot read properties of null (reading 'x')\n    at exec_main.mjs:1:1",
        "undefinedThing();": "ReferenceError: undefinedThing is not defined\n    at exec_main.mjs:1:1",
    }
    for source, expected in cases.items():
        body = body_of(await host.run(source))
        assert body["error_text"] == expected, source
    body = body_of(await host.run('text("kept"); throw new Error("x");'))
    assert [i["text"] for i in body["content_items"]] == ["kept"]


async def test_syntax_errors_are_bare_v8_messages(host):
    """Nothing runs; error_text is V8's message without location (syntax_errors)."""
    cases = {
        'text("x");\nconst = ;': "SyntaxError: Unexpected token '='",
        'text("unterminated);': "SyntaxError: Invalid or unexpected token",
        "function f( {": "SyntaxError: Unexpected end of input",
        "return 5;": "SyntaxError: Illegal return statement",
        "await;": "SyntaxError: Unexpected token ';'",
        "let x = 1; let x = 2;": "SyntaxError: Identifier 'x' has already been declared",
        '{"json": "object literal as source"}': "SyntaxError: Unexpected token ':'",
    }
    for source, expected in cases.items():
        body = body_of(await host.run(source))
        assert body["error_text"] == expected, source
        assert body["content_items"] == []


async def test_imports_are_refused(host):
    """Static import fails the cell; dynamic import rejects with a string (imports)."""
    body = body_of(await host.run('import fs from "fs";\ntext("never");'))
    assert body["error_text"] == "Unsupported import in exec: fs"
    texts = text_items(
        await host.run('try { await import("fs"); } catch (e) { text(typeof e + " " + e); }\ntext("import(" + "x)");')
    )
    assert texts == ["string unsupported import in exec", "import(x)"]


async def test_module_semantics_and_empty_sources(host):
    """ES module: strict, this undefined, import.meta {}, TLA; empty source -> [] (top_level_await, empty_source)."""
    texts = text_items(
        await host.run(
            "text(typeof this); text(JSON.stringify(import.meta));"
            "text((function () { return this === undefined; })());"
            "for await (const x of [Promise.resolve('a')]) text(x); 42;"
        )
    )
    assert texts == ["undefined", "{}", "true", "a"]
    for source in ["", "   \n  ", "// only a comment"]:
        body = body_of(await host.run(source))
        assert body["content_items"] == [] and body["error_text"] is None


async def test_stack_overflow_fails_only_the_cell(host):
    """Runaway recursion: RangeError, the session survives (deep_recursion)."""
    body = body_of(await host.run("function down(n) { return down(n + 1) + 1; }\ndown(0);"))
    # V8 keeps 10 frames of a stack overflow, and so do we.
    assert (
        body["error_text"] == "RangeError: Maximum call stack size exceeded" + "\n    at down (exec_main.mjs:1:27)" * 10
    )
    texts = text_items(
        await host.run(
            "let depth = 0; function m() { depth++; m(); }\ntry { m(); } catch (e) { text(e.constructor.name + ' ' + (depth > 1000)); }"
        )
    )
    assert texts == ["RangeError true"]


# Recorded from Codex's host 0.171 (a run over common model mistakes).
SYNTAX_CASES = [
    ("const x = {a: 1,, };", "SyntaxError: Unexpected token ','"),
    ("text((1);", "SyntaxError: missing ) after argument list"),
    ("let 1a = 2;", "SyntaxError: Unexpected strict mode reserved word"),
    ('text("a" "b");', "SyntaxError: missing ) after argument list"),
    ("const t = `unterminated;", "SyntaxError: Unexpected end of input"),
    ("const r = /unterminated;", "SyntaxError: Invalid regular expression: missing /"),
    ("text(1); }", "SyntaxError: Unexpected token '}'"),
    ("else { text(1); }", "SyntaxError: Unexpected token 'else'"),
    ("let class = 1;", "SyntaxError: Unexpected strict mode reserved word"),
    ("const a = {}; a?.b = 1;", "SyntaxError: Invalid left-hand side in assignment"),
    ("const x: number = 1;", "SyntaxError: Missing initializer in const declaration"),
    ("interface Foo { a: string }", "SyntaxError: Unexpected strict mode reserved word"),
    ("const f = (a: string) => a;", "SyntaxError: Unexpected token ':'"),
    ("function f(a, a) { 'use strict'; }", "SyntaxError: Duplicate parameter name not allowed in this context"),
    ("const y = 1; y++ ++;", "SyntaxError: Unexpected token '++'"),
    ("for (let i = 0; i < 3; i++ { }", "SyntaxError: Unexpected token '{'"),
    ("if (true) { text(1);", "SyntaxError: Unexpected end of input"),
    ("const obj = { a: 1 b: 2 };", "SyntaxError: Unexpected identifier 'b'"),
    ("await tools.echo({a: 1}", "SyntaxError: missing ) after argument list"),
    ("const s = 'line\nbreak';", "SyntaxError: Invalid or unexpected token"),
    ("text(1)\n)", "SyntaxError: Unexpected token ')'"),
    ("var await = 1;", "SyntaxError: Unexpected reserved word"),
    ("delete x;", "SyntaxError: Delete of an unqualified identifier in strict mode."),
    ("with (Math) { text(PI); }", "SyntaxError: Strict mode code may not include a with statement"),
    ("const {a, ...rest,} = {};", "SyntaxError: Rest element must be last element"),
    ("new.target;", "SyntaxError: new.target expression is not allowed here"),
    ("yield 5;", "SyntaxError: Unexpected strict mode reserved word"),
    ("text(08);", "SyntaxError: Decimals with leading zeros are not allowed in strict mode."),
    ("const x = 1; const x = 2;", "SyntaxError: Identifier 'x' has already been declared"),
    ("function g() { let z; var z; }", "SyntaxError: Identifier 'z' has already been declared"),
    ("label: label: 1;", "SyntaxError: Label 'label' has already been declared"),
    ("break;", "SyntaxError: Illegal break statement"),
    ("continue;", "SyntaxError: Illegal continue statement: no surrounding iteration statement"),
    ("text('a' + );", "SyntaxError: Unexpected token ')'"),
    ("@decorator class A {}", "SyntaxError: Invalid or unexpected token"),
    ("x => { ", "SyntaxError: Unexpected end of input"),
    ("text(1);\n#private;", "SyntaxError: Private field '#private' must be declared in an enclosing class"),
    ("const enum E { A }", "SyntaxError: Unexpected reserved word"),
    ("type T = string;", "SyntaxError: Unexpected identifier 'T'"),
    ("text(1 +* 2);", "SyntaxError: Unexpected token '*'"),
    ("import { a } from './x.js';", "Unsupported import in exec: ./x.js"),
]


@pytest.mark.parametrize(("source", "expected"), SYNTAX_CASES)
async def test_parse_errors_worded_like_v8(host, source, expected):
    """Parse failures, static imports and strict-mode errors give V8's exact texts."""
    body = body_of(await host.run(source))
    assert body["error_text"] == expected
    assert body["content_items"] == []


# Recorded from Codex's host 0.171; the header line of error_text.
RUNTIME_ERROR_CASES = [
    ("const o = {}; o.foo();", "TypeError: o.foo is not a function"),
    ("let u; u.foo;", "TypeError: Cannot read properties of undefined (reading 'foo')"),
    ("const x = {y: undefined}; x.y.z;", "TypeError: Cannot read properties of undefined (reading 'z')"),
    ("JSON.parse('bad');", "SyntaxError: Unexpected token 'b', \"bad\" is not valid JSON"),
    ("JSON.parse('');", "SyntaxError: Unexpected end of JSON input"),
    (
        "JSON.parse('{\"a\": 1,}');",
        "SyntaxError: Expected double-quoted property name in JSON at position 8 (line 1 column 9)",
    ),
    ("[].reduce((a, b) => a);", "TypeError: Reduce of empty array with no initial value"),
    ("null[0];", "TypeError: Cannot read properties of null (reading '0')"),
    ("Symbol() + '';", "TypeError: Cannot convert a Symbol value to a string"),
    ("1n + 1;", "TypeError: Cannot mix BigInt and other types, use explicit conversions"),
    ("let q = q;", "ReferenceError: Cannot access 'q' before initialization"),
    ("const f = 5; f();", "TypeError: f is not a function"),
    ("zz = 1;", "ReferenceError: zz is not defined"),
    ("decodeURIComponent('%');", "URIError: URI malformed"),
    (
        "const o = Object.freeze({x: 1}); o.x = 2;",
        "TypeError: Cannot assign to read only property 'x' of object '#<Object>'",
    ),
    # a constant assigned, compounded, incremented (QuickJS: 'w' is read-only)
    ("const w = 1;\nw = 2;", "TypeError: Assignment to constant variable."),
    ("const w = 1;\nw *= 3;", "TypeError: Assignment to constant variable."),
    ("const w = 1;\nw++;", "TypeError: Assignment to constant variable."),
    ("const w = 1;\n--w;", "TypeError: Assignment to constant variable."),
    ("for (const i = 0; i < 3; i++) {}", "TypeError: Assignment to constant variable."),
    ("undefined.x = 1;", "TypeError: Cannot set properties of undefined (setting 'x')"),
    ("null.x = 1;", "TypeError: Cannot set properties of null (setting 'x')"),
    ("class A { constructor() { this.x; } } A();", "TypeError: Class constructor A cannot be invoked without 'new'"),
    ("const s = 'x'; s.foo.bar;", "TypeError: Cannot read properties of undefined (reading 'bar')"),
    ("new Date(NaN).toISOString();", "RangeError: Invalid time value"),
    ("const t = tools.missing; t();", "TypeError: t is not a function"),
    ("const p = Promise.reject(new TypeError('tt')); await p;", "TypeError: tt"),
    ("structuredClone({});", "ReferenceError: structuredClone is not defined"),
    (
        "let arr = [1,2,3]; arr.forEach(x => { x.y.z; });",
        "TypeError: Cannot read properties of undefined (reading 'z')",
    ),
    ("const obj = {a: {b: null}}; obj.a.b.c;", "TypeError: Cannot read properties of null (reading 'c')"),
    ("const fn = () => {}; new fn();", "TypeError: fn is not a constructor"),
    ("throw new AggregateError([new Error('a')], 'agg');", "AggregateError: agg"),
    ("async function f() { throw new Error('async inner'); }\nawait f();", "Error: async inner"),
    ("await new Promise((_, rej) => setTimeout(() => rej(new Error('later')), 5));", "Error: later"),
]


@pytest.mark.parametrize(("source", "expected"), RUNTIME_ERROR_CASES)
async def test_runtime_errors_worded_like_v8(host, source, expected):
    """Uncaught runtime errors: V8's ``Name: message`` header line."""
    body = body_of(await host.run(source, tools=[]))
    assert body["error_text"].split("\n")[0] == expected


JSON_PARSE_SOURCE = 'const inputs = ["bad", "", "{\\"a\\": 1,}", "{bad", "[1,]", "[1 2]", "{\\"a\\" 1}", "{\\"a\\": 1", "\\"abc", "\\"a\\u0001b\\"", "\\"\\\\x\\"", "\\"\\\\u12G4\\"", "-", "1.", "1e", "01", "tru", "trux", "nul", "{", "[", "   ", "{\\"a\\": 1} x", "undefined", "[object Object]", "{\\"key\\": \\"value\\", \\"other\\": tru}", "this is a long invalid json text here", "{\\"a\\":1,\\n\\"b\\":}", "\\n\\n  x"];\nfor (const s of inputs) { try { JSON.parse(s); text("ok " + s); } catch (e) { text(e.constructor.name + ": " + e.message); } }\ntry { JSON.parse(undefined); } catch (e) { text(e.message); }\ntry { JSON.parse({}); } catch (e) { text(e.message); }\ntext(JSON.parse.name + " " + JSON.parse.length);\ntext(JSON.stringify(JSON.parse(\'{"a":[1,2,{"b":null}]}\', (k, v) => typeof v === "number" ? v * 2 : v)));\n'


JSON_PARSE_EXPECTED = [
    "SyntaxError: Unexpected token 'b', \"bad\" is not valid JSON",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Expected double-quoted property name in JSON at position 8 (line 1 column 9)",
    "SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unexpected token ']', \"[1,]\" is not valid JSON",
    "SyntaxError: Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)",
    "SyntaxError: Expected ':' after property name in JSON at position 5 (line 1 column 6)",
    "SyntaxError: Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)",
    "SyntaxError: Unterminated string in JSON at position 4 (line 1 column 5)",
    "SyntaxError: Bad control character in string literal in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Bad escaped character in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Bad Unicode escape in JSON at position 5 (line 1 column 6)",
    "SyntaxError: No number after minus sign in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unterminated fractional number in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Exponent part is missing a number in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Unexpected number in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Unexpected token 'x', \"trux\" is not valid JSON",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Unexpected non-whitespace character after JSON at position 9 (line 1 column 10)",
    'SyntaxError: "undefined" is not valid JSON',
    'SyntaxError: "[object Object]" is not valid JSON',
    'SyntaxError: Unexpected token \'}\', ..."ther": tru}" is not valid JSON',
    "SyntaxError: Unexpected token 'h', \"this is a l\"... is not valid JSON",
    'SyntaxError: Unexpected token \'}\', "{"a":1,\n"b":}" is not valid JSON',
    "SyntaxError: Unexpected token 'x', \"\n\n  x\" is not valid JSON",
    '"undefined" is not valid JSON',
    '"[object Object]" is not valid JSON',
    "parse 2",
    '{"a":[2,4,{"b":null}]}',
]


async def test_json_parse_errors_worded_like_v8(host):
    """JSON.parse failures give V8's messages (positions, context snippets); JSON.parse still works."""
    assert text_items(await host.run(JSON_PARSE_SOURCE)) == JSON_PARSE_EXPECTED


# Where QuickJS's position does not single out the site V8 would name, or V8's words depend on
# what QuickJS does not report (null or undefined, the value itself), the message stays
# QuickJS's own: never a V8-looking text that names the wrong thing.
QUICKJS_WORDS_CASES = [
    # a.b() or o.run() failed: QuickJS reports `.b` for both (V8: whichever it was).
    ("const o = {}; const a = {b() {}}; o.run(a.b());", "TypeError: not a function"),
    ("const f = () => ({}); f()();", "TypeError: not a function"),
    # the cell's own function around the call: it may be the one that is not a function.
    ("const show = (x) => x; const o = {}; show(o.f());", "TypeError: not a function"),
    # a name the cell binds is not the global helper (V8: text is not a function).
    ("const text = 5; const o = {f() { return 1; }}; text(o.f());", "TypeError: not a function"),
    ("const a = {}, b = {}; (a || b).f();", "TypeError: not a function"),
    # a built-in's iteration: V8 words each built-in its own way.
    ("Array.from(null);", "TypeError: cannot read property 'Symbol.iterator' of null"),
    ("new Map(5);", "TypeError: value is not iterable"),
    # a callback that failed before recording a position of its own is reported at its
    # caller's position, inside the spread (V8: object null is not iterable ...).
    (
        "const xs = [null]; const all = [...xs.map(([a]) => a)];",
        "TypeError: cannot read property 'Symbol.iterator' of null",
    ),
    ("[...null];", "TypeError: cannot read property 'Symbol.iterator' of null"),
    # a pattern in a callback inside a spread: the spread is not what failed.
    (
        "const xs = [5]; const all = [...xs.map((v) => { const n = v.valueOf(); const [a] = v; return a + n; })];",
        "TypeError: value is not iterable",
    ),
    # a parameter's pattern: QuickJS does not say whether the value was null or undefined.
    ("function f({ x }) {} f(null);", "TypeError: Cannot convert undefined or null to object"),
    ("const r = null; const { a, b } = r;", "TypeError: Cannot convert undefined or null to object"),
    # two patterns: QuickJS reports no position of either, so neither is named.
    ("const [a] = [1]; const [b] = null;", "TypeError: cannot read property 'Symbol.iterator' of null"),
    ("const { a } = {}; const { b } = null;", "TypeError: Cannot convert undefined or null to object"),
    # a property that is not iterable: V8 names its value, which QuickJS does not report.
    ("const o = {a: 5}; const [first] = o.a;", "TypeError: value is not iterable"),
    # a frozen array's element: V8 names the object ('[object Array]'), which QuickJS does not
    # report; no constant is assigned (this said "Assignment to constant variable.").
    ("let a = Object.freeze([1]);\na[0] = 2;", "TypeError: '0' is read-only"),
    ("const a = Object.freeze([1]); const i = 0;\na[i] = 2;", "TypeError: '0' is read-only"),
]


@pytest.mark.parametrize(("source", "expected"), QUICKJS_WORDS_CASES)
async def test_undecidable_sites_keep_quickjs_words(host, source, expected):
    """No V8 text is made up where the failing site or value is not known."""
    body = body_of(await host.run(source, tools=[]))
    assert body["error_text"].split("\n")[0] == expected


async def test_call_site_readers_read_each_cells_own_source():
    """The call-site readers are compiled when an error text first needs them
    (``runtime/prelude/readers.js``) and given the failing cell's source at every call: in a
    notebook realm, where one context runs every cell, each cell's text names its own expression
    at its own line, and a cell that failed first does not steer the next."""
    client = await start_host(profile="notebook")
    try:
        await client.hello()
        await client.open("s1")
        # the messages only: a notebook cell's top-level columns are off (a known gap of the profile)
        cells = {
            "const r = {items: 1}\nr.items.map((x) => x)": "TypeError: r.items.map is not a function",
            "\n\n\nconst q = {}\nq.f()": "TypeError: q.f is not a function",
            "const list = null\nfor (const x of list) {}": "TypeError: list is not iterable",
        }
        for source, expected in cells.items():
            assert body_of(await client.run(source))["error_text"].split("\n")[0] == expected, source
    finally:
        client.process.kill()
        await client.process.wait()


async def test_call_site_readers_load_whatever_the_cell_changed(host):
    """A cell that replaced ``Function`` and put the readers' export names on ``Object.prototype``
    before failing still gets V8's text (the readers are compiled with built-ins captured first)."""
    source = (
        "globalThis.Function = null; Object.prototype.failed_call = () => 'tampered';\n"
        "Object.prototype.ok = 'tampered';\nconst r = {items: 1}\nr.items.map((x) => x)"
    )
    assert (
        body_of(await host.run(source))["error_text"]
        == "TypeError: r.items.map is not a function\n    at exec_main.mjs:4:9"
    )
