"""The helper table is the one place a cell's helpers are written: the prelude's install code is
generated from it, every Python list of helpers is read from it, and nothing else names them."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import quickjs

from codemode.kernel import helpers as kernel_helpers
from codemode.runtime import notebook_cell
from codemode.runtime.helper_table import HELPERS, PROFILES, helpers_of, install_source, names_of
from codemode.runtime.prelude_source import GENERATED, prelude_source, realm_prelude_source

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PRELUDE = ROOT / "runtime" / "prelude"

# What the generated functions do, recorded instead of done: each helper's (global or member)
# label, implementation's name, shown name and length, in install order.
_RECORDER = """
const calls = [];
const implementation = (name) => ({ implementation: name });
const __cm_define_value = (target, name, value) => calls.push([name, value.implementation ?? value.label, null, null]);
const __cm_define = (name, fn, shown, length) => calls.push([name, fn.implementation, shown, length]);
const __cm_helper = (label, fn, shown, length) => { calls.push([label, fn.implementation, shown, length]); return { label }; };
const __cm_record = () => Object.create(null);
"""


def _recorded(profile: str) -> tuple[list[list[object]], dict[str, object]]:
    """The calls ``install_source(profile)``'s function makes, and (notebook) what it returns
    (each value as the label it was made with, or its implementation's name)."""
    names = {h.implementation for h in HELPERS} | {m.implementation for h in HELPERS for m in h.members}
    names |= {h.notebook_implementation for h in HELPERS if h.notebook_implementation}
    stubs = "".join(f"const {name} = implementation({json.dumps(name)});" for name in sorted(names) if name)
    entry = "__cm_install_helpers" if profile == "strict" else "__cm_cell_helpers"
    script = (
        "(() => {" + _RECORDER + stubs + install_source(profile) + f"const made = {entry}();"
        "const shown = (v) => v === undefined ? null : v.label ?? v.implementation ?? "
        "Object.fromEntries(Object.entries(v).map(([k, m]) => [k, m.label]));"
        "return JSON.stringify([calls, made === undefined ? {} : "
        "Object.fromEntries(Object.entries(made).map(([k, v]) => [k, shown(v)]))]); })()"
    )
    calls, made = json.loads(quickjs.Context().eval(script))
    return calls, made


def _expected_calls(profile: str) -> list[list[object]]:
    expected: list[list[object]] = []
    for h in helpers_of(profile):
        if h.form == "value":
            if profile == "strict":
                expected.append([h.name, h.implementation, None, None])
        elif h.form == "namespace":
            expected += [[f"{h.name}.{m.name}", m.implementation, m.shown_name, m.length] for m in h.members]
        else:
            expected.append([h.name, h.implementation, h.shown_name, h.length])
    return expected


def test_the_generated_install_code_installs_exactly_the_table():
    """Evaluated with the prelude's installers recorded, each profile's generated code installs
    the table's helpers of that profile, in its order, each with its implementation, shown name
    and length; a notebook cell's helpers are all routed, and its ``tools`` is the routed tools object."""
    calls, made = _recorded("strict")
    assert calls == _expected_calls("strict")
    assert [c[0] for c in calls] == [
        "tools", "ALL_TOOLS", "clearTimeout", "setTimeout", "text", "content", "image", "audio",
        "generatedImage", "store", "load", "notify", "yield_control", "exit", "as_settled", "stream_settled",
    ]  # fmt: skip
    assert calls[5] == ["content", "__cm_content", "content", 1]
    assert calls[15] == ["stream_settled", "__cm_stream_settled", "stream_settled", 2]

    calls, made = _recorded("notebook")
    assert calls == _expected_calls("notebook")
    assert list(made) == list(names_of("notebook"))
    assert made["tools"] == "__cm_routed_tools" and made["ALL_TOOLS"] == "allTools"
    assert made["as_settled"] == "as_settled" and made["text"] == "text"
    assert made["console"] == {n: f"console.{n}" for n in ("log", "info", "debug", "warn", "error")}


def test_every_assembly_carries_the_generated_code_before_its_install_file():
    for source, profile, part in (
        (prelude_source("quickjs"), "strict", "install.js"),
        (prelude_source("v8"), "strict", "install.js"),
        (realm_prelude_source(), "notebook", "realm_install.js"),
    ):
        generated = install_source(profile)
        assert source.count(generated) == 1
        assert source.index(generated) < source.index(f"// ---- {part} ----\n")
    assert GENERATED == {"install.js": "strict", "realm_install.js": "notebook"}


def test_every_python_list_of_helpers_is_the_table():
    import papermill  # noqa: F401  (papermill loads the translator module through its entry point)

    from codemode import papermill_parameters

    assert notebook_cell.HELPERS == names_of("notebook")
    assert [h.name for h in kernel_helpers.HELPERS] == list(names_of("strict"))
    assert kernel_helpers.HELPER_NAMES == frozenset(names_of("strict"))
    assert [h.name for h in kernel_helpers.NOTEBOOK_HELPERS] == ["console", "display", "html", "markdown", "svg"]
    assert kernel_helpers.helpers_of("notebook") == kernel_helpers.HELPERS + kernel_helpers.NOTEBOOK_HELPERS
    assert kernel_helpers.CONSOLE_MEMBERS == tuple((n, "function") for n in ("debug", "error", "info", "log", "warn"))
    assert papermill_parameters.UNBOUND_NAMES - papermill_parameters.RESERVED_WORDS == {h.name for h in HELPERS}
    assert {h.name: kernel_helpers.kind(h) for h in HELPERS if kernel_helpers.kind(h) != "function"} == {
        "tools": "instance",
        "ALL_TOOLS": "instance",
        "console": "instance",
    }
    for h in HELPERS:
        assert set(h.profiles) <= set(PROFILES) and h.profiles
        assert re.match(rf"{re.escape(h.name)}[(:]", h.signature), h.signature
        assert h.doc.endswith("."), h.name
    with pytest.raises(ValueError, match="unknown profile 'lenient'"):
        helpers_of("lenient")


# How a prelude file would install a helper by hand, and how it would hand-write the dispatcher.
_HAND_INSTALLS = (
    re.compile(r"__cm_define\(\s*\""),  # a strict global
    # a strict global value (the built-ins the prelude replaces are not helpers)
    re.compile(r"__cm_define_value\(\s*globalThis\s*,\s*\"(?!(Intl|Proxy)\")"),
    re.compile(r"__cm_helper\(\s*\"(?!tools\.)"),  # a notebook cell's routed helper
    re.compile(r"__cm_exposed\s*(\.\s*\w+|\[[^\]]*\])\s*=(?!=)"),  # a notebook cell's helper by name
    re.compile(r"globalThis\s*(\.\s*\w+|\[[^\]]*\])\s*=(?!=)"),  # any global, assigned
)


def test_no_prelude_file_installs_a_helper_or_writes_a_dispatcher_by_hand():
    """A helper added to a prelude file by hand (not to the table) fails here, and so does a
    second dispatcher: ``dispatch.js`` is the only one."""
    found = []
    for path in sorted(PRELUDE.glob("*.js")):
        code = re.sub(r"//[^\n]*", "", path.read_text())
        found += [(path.name, m.group(0)) for pattern in _HAND_INSTALLS for m in pattern.finditer(code)]
        if path.name != "dispatch.js":
            assert not re.search(r"\bop === \"(fire|settle)\"", code), path.name
    assert found == []


def _helper_name_lists(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """The literals of a module that list three or more helper names: a tuple, list or set of
    strings, a string of words (``"a b c".split()``), docstrings left out, or the first
    arguments of calls to one function (``Helper("text", ...)``, as the kernel's docs were
    written; reported at the first call's line)."""
    names = {h.name for h in HELPERS} | {m.name for h in HELPERS for m in h.members}
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    found = []
    calls: dict[str, list[tuple[int, str]]] = {}
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            words = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words = node.value.split()
        listed = [w for w in words if w in names]
        if len(set(listed)) >= 3:
            found.append((getattr(node, "lineno", 0), listed))
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            if node.args[0].value in names:
                calls.setdefault(ast.unparse(node.func), []).append((node.lineno, node.args[0].value))
    for named in calls.values():
        if len({name for _, name in named}) >= 3:
            found.append((named[0][0], [name for _, name in named]))
    return found


_SIMPLE_LITERAL = re.compile(r"[\"']([\w$ ]+)[\"']")
"""A string literal of identifiers and spaces: where a hand-written list would name helpers."""


def _may_list_helpers(source: str) -> bool:
    """Whether ``source``'s simple string literals name three helpers or more (parsing every
    module instead takes seconds)."""
    names = {h.name for h in HELPERS} | {m.name for h in HELPERS for m in h.members}
    return len({w for literal in _SIMPLE_LITERAL.findall(source) for w in literal.split()} & names) >= 3


def test_no_python_module_lists_the_helpers_but_the_table():
    """A Python list of helper names written anywhere but ``runtime/helper_table.py`` (as the
    notebook cell's parameters, the kernel's docs and papermill's unbound names were) fails here."""
    found = {}
    for folder in ("runtime", "kernel", "codemode"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name == "helper_table.py" and folder == "runtime":
                continue
            source = path.read_text()
            if not _may_list_helpers(source):
                continue
            lists = _helper_name_lists(ast.parse(source))
            if lists:
                found[str(path.relative_to(ROOT))] = lists
    assert found == {}


def test_the_scan_finds_a_hand_written_list():
    """The scan above sees the forms a second list took before the table (so it can fail)."""
    assert _helper_name_lists(ast.parse('H = ("tools", "text", "exit")')) == [(1, ["tools", "text", "exit"])]
    split = _helper_name_lists(ast.parse('U = frozenset("tools text store".split())'))
    assert split == [(1, ["tools", "text", "store"])]
    assert _helper_name_lists(ast.parse('"""tools text store"""')) == []
    helpers = 'H = (Helper("tools", "t"), Helper("text", "x"))\nN = (Helper("exit", "e"),)'
    assert _helper_name_lists(ast.parse(helpers)) == [(1, ["tools", "text", "exit"])]
    assert _may_list_helpers('H = ("tools",\n "text", "exit")') and _may_list_helpers('"tools ALL_TOOLS " "text"')
    assert not _may_list_helpers('"tools", "text"')
    code = '__cm_define("text", __cm_text, "", 0);\n__cm_exposed.x = __cm_helper("x", __cm_x, "", 0);'
    assert [p.pattern for p in _HAND_INSTALLS if p.search(code)] == [_HAND_INSTALLS[i].pattern for i in (0, 2, 3)]
    assert [p.pattern for p in _HAND_INSTALLS if p.search('globalThis["x"] = 1; globalThis.y == 2')] == [
        _HAND_INSTALLS[4].pattern
    ]
    code = '__cm_define_value(globalThis, "helper", 1);\n__cm_define_value(globalThis, "Intl", 1);'
    assert [m.group(0) for p in _HAND_INSTALLS for m in p.finditer(code)] == ['__cm_define_value(globalThis, "']
