"""The notebook profile's cell transform: the exact body for each rule (runtime/notebook_source.py).

Each case pins the whole transformed body, the declared and function names and ``has_value``:
the body's lines and columns are what error positions and stack traces of the cell point at,
so a change of one space is a change the kernel's users see. The execution of these bodies in
one QuickJS realm is checked in ``test_notebook_source_run.py``.
"""

from __future__ import annotations

import pytest

from codemode.runtime.notebook_source import NotebookSource, transform

# (source, body, declared, functions, has_value)
CASES = {
    # const / let / var with values: the keyword becomes spaces of its width.
    "const": ("const x = 1;", "      x = 1;", ("x",), (), False),
    "let": ("let x = 1;", "    x = 1;", ("x",), (), False),
    "var with a value": ("var x = 1", "    x = 1;", ("x",), (), False),
    "several declarators": ("const a = 1, b = a + 1", "      a = 1, b = a + 1;", ("a", "b"), (), False),
    "declarators over lines": (
        "let a = 1,\n    b = 2;\nb",
        "    a = 1,\n    b = 2;\nreturn [(b)];",
        ("a", "b"),
        (),
        True,
    ),
    # Destructuring: an object pattern is parenthesised, `;` guards a statement starting with `(` / `[`.
    "object pattern": (
        "const {a, b: [c], ...rest} = o;",
        ";(    {a, b: [c], ...rest} = o);",
        ("a", "c", "rest"),
        (),
        False,
    ),
    "nested destructuring with defaults and renames": (
        "const {a = d1, b: {c: e = d2} = {}, [k]: v, ...rest} = o;",
        ";(    {a = d1, b: {c: e = d2} = {}, [k]: v, ...rest} = o);",
        ("a", "e", "v", "rest"),
        (),
        False,
    ),
    "array pattern": ("let [p, , q = 1, ...[r]] = x", ";   [p, , q = 1, ...[r]] = x;", ("p", "q", "r"), (), False),
    "object pattern over lines": ("const {\n  a,\n  b\n} = o", ";(    {\n  a,\n  b\n} = o);", ("a", "b"), (), False),
    "object pattern after a plain declarator": (
        "let n = 1, {m} = o;",
        "    n = 1, {m} = o;",
        ("n", "m"),
        (),
        False,
    ),
    # let without a value resets; var without a value keeps the global's value.
    "let without a value": ("let x;", "    x = undefined;", ("x",), (), False),
    "let with and without values": ("let x, y = 2;", "    x = undefined, y = 2;", ("x", "y"), (), False),
    "var without a value": ("var x;", "     ;", ("x",), (), False),
    "var without a value nor semicolon": ("var x\nx", ";    \nreturn [(x)];", ("x",), (), True),
    "var with and without values": ("var x = 1, y;", "    x = 1   ;", ("x", "y"), (), False),
    "var without then with a value": ("var x, y = 2;", "       y = 2;", ("x", "y"), (), False),
    "var without, pattern, without": ("var x, {a} = o, y", ";(     {a} = o   );", ("x", "a", "y"), (), False),
    # Classes: a declaration becomes an assignment of a class expression of the same name.
    "class declaration": (
        "class C extends B { m() { return 1; } }",
        "C = class C extends B { m() { return 1; } };",
        ("C",),
        (),
        False,
    ),
    "class declaration followed by a semicolon": ("class C {};", "C = class C {};", ("C",), (), False),
    "class expression": ("const D = class {};", "      D = class {};", ("D",), (), False),
    "class expression as the value": ("(class E {})", "return [((class E {}))];", (), (), True),
    # Function declarations stay, hoisted in the body, and are listed.
    "function declarations": (
        "function f() {}\nasync function g() {}\nfunction* h() {}\nasync function* i() { yield 1 }",
        "function f() {}\nasync function g() {}\nfunction* h() {}\nasync function* i() { yield 1 }",
        (),
        ("f", "g", "h", "i"),
        False,
    ),
    "function then its call": (
        "function sq(n) { return n * n }\nsq(3)",
        "function sq(n) { return n * n }\nreturn [(sq(3))];",
        (),
        ("sq",),
        True,
    ),
    # Only direct top-level statements change.
    "let in a for at the top level": (
        "for (let i = 0; i < 3; i++) { const j = i; }",
        "for (let i = 0; i < 3; i++) { const j = i; }",
        (),
        (),
        False,
    ),
    "declarations in blocks and functions": (
        "{ const x = 1; }\nif (c) { let y = 2 }\nfunction f() { const z = 1; return z }",
        "{ const x = 1; }\nif (c) { let y = 2 }\nfunction f() { const z = 1; return z }",
        (),
        ("f",),
        False,
    ),
    "export and import are left alone": (
        'import fs from "fs";\nexport const x = 1;',
        'import fs from "fs";\nexport const x = 1;',
        (),
        (),
        False,
    ),
    # The last statement's value.
    "last expression": ("1 + 1", "return [(1 + 1)];", (), (), True),
    "last expression with a semicolon": ("x;", "return [(x)];", (), (), True),
    "last expression after empty statements": ("x;;", "return [(x)];;", (), (), True),
    "last expression is a sequence": ("a, b", "return [(a, b)];", (), (), True),
    "last expression over lines": ("foo(\n  1,\n)", "return [(foo(\n  1,\n))];", (), (), True),
    "last statement an await": (
        "const r = await p\nawait r.json()",
        "      r = await p;\nreturn [(await r.json())];",
        ("r",),
        (),
        True,
    ),
    "last statement an if": ("if (x) { 1 } else { 2 }", "if (x) { 1 } else { 2 }", (), (), False),
    "last statement a declaration": ("x\nlet y = x", "x\n    y = x;", ("y",), (), False),
    "labels": (
        "outer: for (const a of xs) { break outer }\nlbl: x",
        "outer: for (const a of xs) { break outer }\nlbl: x",
        (),
        (),
        False,
    ),
    "comments at the end": (
        "x + 1 // the sum\n/* done */\n",
        "return [(x + 1)]; // the sum\n/* done */\n",
        (),
        (),
        True,
    ),
    "comments between the declarators": (
        "let x = 1 /* a */, /* b */ y // c\n",
        "    x = 1 /* a */, /* b */ y = undefined; // c\n",
        ("x", "y"),
        (),
        False,
    ),
    # Text that only looks like a declaration is never touched.
    "regex and template literal containing const": (
        "const s = `const x = ${1}`, r = /const x = 1/g;\ns.match(r) // const y = 2",
        "      s = `const x = ${1}`, r = /const x = 1/g;\nreturn [(s.match(r))]; // const y = 2",
        ("s", "r"),
        (),
        True,
    ),
    "string containing let": ('"let x = 1"', 'return [("let x = 1")];', (), (), True),
    "comment containing class": ("// class C {}\n/* const x = 1 */", "// class C {}\n/* const x = 1 */", (), (), False),
    # ASI: statements without semicolons stay apart after the rewrite.
    "ASI without semicolons": (
        "const a = 1\nlet [b] = [a]\nconst {c} = {c: b}\nclass K {}\n(a)",
        "      a = 1;\n;   [b] = [a];\n;(    {c} = {c: b});\nK = class K {};\nreturn [((a))];",
        ("a", "b", "c", "K"),
        (),
        True,
    ),
    "non-ASCII names keep their columns": (
        "const café = 1, ü = 2; café",
        "      café = 1, ü = 2; return [(café)];",
        ("café", "ü"),
        (),
        True,
    ),
    "names in first-appearance order without duplicates": (
        "var a = 1\nlet b = 2\nvar a = 3\nvar c",
        "    a = 1;\n    b = 2;\n    a = 3;\n;    ",
        ("a", "b", "c"),
        (),
        False,
    ),
    "empty source": ("", "", (), (), False),
    "only a comment": ("// nothing", "// nothing", (), (), False),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_transform_gives_the_pinned_body(case):
    source, body, declared, functions, has_value = case
    got = transform(source)
    assert got == NotebookSource(body, declared, functions, has_value)
    assert got.body.count("\n") == source.count("\n")


REFUSED = {
    "unclosed parenthesis": "let x = (",
    "missing operand": "const y = 1 +",
    "a declaration cut short": "let x = 1\nconst",
    "a MISSING node (an unclosed block)": "const z = 0\n{ let a = 1",
    "const declared twice": "const x = 1; const x = 2;",
    "let and var of one name": "let x = 1;\nvar x = 2;",
    "class and function of one name": "function C() {}\nclass C {}",
    "let of a function's name": "let f = 1; function f() {}",
}


@pytest.mark.parametrize("source", REFUSED.values(), ids=REFUSED.keys())
def test_source_the_engine_refuses_is_returned_unchanged(source):
    """The engine then reports its own SyntaxError, with the source's positions."""
    assert transform(source) == NotebookSource(source, (), (), False)


def test_var_and_function_of_one_name_are_both_listed():
    """Legal JavaScript (the function wins at hoisting); the caller publishes both."""
    got = transform("var f = 1;\nfunction f() {}")
    assert got == NotebookSource("    f = 1;\nfunction f() {}", ("f",), ("f",), False)


def test_lone_surrogates_survive():
    """A cell's text comes from JSON, which may carry lone surrogates (inside strings)."""
    got = transform('const s = "\ud800";\ns')
    assert got.body == '      s = "\ud800";\nreturn [(s)];'
    assert got.declared == ("s",)
