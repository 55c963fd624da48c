"""The notebook profile's cell transform: a cell's source as the body of an async function.

In the notebook profile every cell of a session runs in one JavaScript realm, and what a cell
declares at its top level persists for the later cells, as in Deno's REPL mode and Node's REPL
(``processTopLevelAwait`` in Node's ``lib/internal/repl/await.js`` also turns top-level
declarations into assignments, ``class C`` into ``C=class C``, and returns the last expression
from an async wrapper). :func:`transform`
parses a cell with tree-sitter-javascript and rewrites only its direct top-level statements; the
caller runs :attr:`NotebookSource.body` as the body of an ``async function`` (strict mode, top-level
``await``) after making every name of :attr:`NotebookSource.declared` a property of the global
object and before publishing :attr:`NotebookSource.functions` as globals.

The rules, each on the statement's own lines:

========================================  ===================================================
source (top level)                        body
========================================  ===================================================
``const x = 1;`` / ``let x = 1;``         ``      x = 1;`` / ``    x = 1;``
``const a = 1, b = a + 1``                ``      a = 1, b = a + 1;``
``const {a, b: [c]} = o;``                ``;(    {a, b: [c]} = o);``
``let [a, b] = o``                        ``;   [a, b] = o;``
``let x;``                                ``    x = undefined;`` (re-running resets it)
``var x;`` / ``var x = 1, y;``            ``       ;`` / ``    x = 1   ;`` (var keeps a value)
``class C {...}``                         ``C = class C {...};``
``function f() {}`` (also async, ``*``)   unchanged, hoisted in the body; its name in ``functions``
last statement, an expression ``e;``      ``return [(e)];`` (``has_value``; the array keeps a
                                          returned promise from being awaited)
========================================  ===================================================

Everything else is left as it is: declarations inside blocks, loops and functions (a ``var`` in a
top-level block or ``for (var ...)`` stays local to the cell), ``for (let i ...)``, labelled
statements, ``import`` / ``export`` (the caller refuses static imports). Strings, template
literals, regular expressions and comments are never touched: only nodes of the syntax tree are
rewritten.

Positions: the body has the source's lines, each statement on its own lines. A keyword is
replaced by spaces of its length (``;`` and ``(`` take its first columns where the rewritten
statement would start with ``[`` or ``(``, so that it cannot continue the statement before it),
so the columns of a declaration's names and values are unchanged. Text must be inserted, on the
line where it goes only, and shifts the rest of that line to the right by its length, for:

- ``return [(`` (9 columns) before the last expression, ``)]`` (2) after it, ``;`` (1) when it
  had none;
- ``C = `` (the class name's length + 3) before a class declaration, ``;`` after its ``}`` when
  no ``;`` follows;
- `` = undefined`` (12) after each ``let`` name without a value, ``)`` (1) after an object
  pattern's statement, ``;`` (1) after a declaration that had none (so the assignment ends
  where the declaration ended, whatever the next line starts with).

Not kept from a real declaration: ``const`` bindings can be reassigned, and a name read before
its declaration in the cell gives the global's current value instead of a ``ReferenceError``.
A top-level ``var`` whose name is also a top-level function's assigns the function's binding
in the body, not the global; so does a declared name that is one of the body's parameters (the
caller's helpers). A top-level ``return`` is not refused here: it is legal in the body.

Source the engine must refuse is returned unchanged (``body == source``, nothing declared,
``has_value`` false), so the engine reports its own ``SyntaxError``: a tree with ``ERROR`` or
``MISSING`` nodes, and a name declared twice by ``let`` / ``const`` / ``class`` or by one of them
and a ``var`` or function, at the top level. tree-sitter-javascript 0.25 also has an ERROR for
a few valid forms, which then run unchanged (their declarations stay in the cell): a ``let`` or
``var`` whose last name has no value, followed on the next line by ``(``, ``[``, a template or
a regular expression (``let x\n[1].map(f)``, which JavaScript splits after ``x``).

Cost: importing this module loads the grammar (5 to 18 ms), and the parser is built once per
process, on the first call (0.1 ms); calls share it under a lock. Transforming a 1 000-line
cell (54 kB: destructuring with defaults, ``let`` / ``var``, classes, functions, generators,
loops, labels, templates, regular expressions, a last expression) takes 11.5 ms, of which the
parse is 8.7 ms (medians of 50 runs on the project's 2-core machine under a load of 3, Python
3.11, tree-sitter 0.26.1, tree-sitter-javascript 0.25.0); a one-line cell 0.02 ms.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import tree_sitter
import tree_sitter_javascript


@dataclass(frozen=True)
class NotebookSource:
    """A cell's source transformed for the notebook realm (see the module docstring).

    ``body``: an async function body; line N of it is line N of the source.
    ``declared``: names of the top-level ``const`` / ``let`` / ``var`` / ``class`` declarations,
    in order of first appearance, without duplicates (binding names only: not property keys nor
    default values of a pattern; ``\\u0061`` escapes decoded, as in ``functions``).
    ``functions``: names of the top-level function declarations (plain, async, generator).
    ``has_value``: the last top-level statement (empty statements aside) is an expression
    statement, and ``body`` returns ``[(<that expression>)]``.
    ``top_level_return``: a ``return`` outside every function (legal in the async function the
    body runs in, but not in a module: the caller refuses it as Codex's module does).
    """

    body: str
    declared: tuple[str, ...]
    functions: tuple[str, ...]
    has_value: bool
    top_level_return: bool = False


_FUNCTION_DECLARATIONS = frozenset({"function_declaration", "generator_function_declaration"})
_FUNCTIONS = _FUNCTION_DECLARATIONS | {
    "function_expression",
    "generator_function",
    "arrow_function",
    "method_definition",
    "class_static_block",
}
"""Nodes whose ``return`` statements are their own, not the cell's."""
_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})")
_lock = threading.Lock()
_parser: tree_sitter.Parser | None = None


def _parse(data: bytes) -> tree_sitter.Tree:
    """Parse with the process's one parser (a parser is not safe to share between threads)."""
    global _parser
    with _lock:
        if _parser is None:
            _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))
        return _parser.parse(data)


def transform(source: str) -> NotebookSource:
    """Transform a cell's JavaScript ``source`` (see the module docstring); never raises."""
    unchanged = NotebookSource(source, (), (), False)
    data = source.encode("utf-8", "surrogatepass")
    root = _parse(data).root_node
    if root.has_error:
        return unchanged
    if _returns_at_top_level(root):
        return NotebookSource(source, (), (), False, top_level_return=True)
    edits = _Edits(data)
    names = _Names()
    statements = [node for node in root.named_children if node.type not in ("comment", "hash_bang_line")]
    for node in statements:
        if node.type in ("lexical_declaration", "variable_declaration"):
            _declaration(node, edits, names)
        elif node.type == "class_declaration":
            _class(node, edits, names)
        elif node.type in _FUNCTION_DECLARATIONS:
            name = node.child_by_field_name("name")
            if name is not None:
                names.function(edits.name(name))
    if names.redeclared:
        return unchanged
    last = next((node for node in reversed(statements) if node.type != "empty_statement"), None)
    has_value = last is not None and last.type == "expression_statement"
    if last is not None and has_value:
        _return_value(last, edits)
    return NotebookSource(edits.apply(), tuple(names.declared), tuple(names.functions), has_value)


def _returns_at_top_level(root: tree_sitter.Node) -> bool:
    """Whether a ``return`` statement lies outside every function of ``root`` (walked with a
    stack: a deep nesting must not exhaust Python's recursion)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            return True
        stack.extend(child for child in node.named_children if child.type not in _FUNCTIONS)
    return False


class _Edits:
    """Replacements of byte ranges of the source, applied at once."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._edits: list[tuple[int, int, int, str]] = []

    def text(self, node: tree_sitter.Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "surrogatepass")

    def name(self, identifier: tree_sitter.Node) -> str:
        """The name an identifier node spells (``\\u0061`` and ``\\u{61}`` escapes decoded)."""
        return _ESCAPE.sub(_unescape, self.text(identifier))

    def replace(self, start: int, end: int, text: str) -> None:
        self._edits.append((start, end, len(self._edits), text))

    def insert(self, at: int, text: str) -> None:
        self.replace(at, at, text)

    def blank(self, node: tree_sitter.Node, lead: str = "") -> None:
        """Replace a one-line node by ``lead`` padded with spaces to the node's width in characters."""
        self.replace(node.start_byte, node.end_byte, lead.ljust(len(self.text(node))))

    def apply(self) -> str:
        out: list[bytes] = []
        at = 0
        for start, end, _, text in sorted(self._edits):
            out.append(self.data[at:start])
            out.append(text.encode("utf-8", "surrogatepass"))
            at = end
        out.append(self.data[at:])
        return b"".join(out).decode("utf-8", "surrogatepass")


class _Names:
    """The names a cell declares at its top level, and whether one is declared twice."""

    def __init__(self) -> None:
        self.declared: dict[str, None] = {}  # a dict keeps the order of first appearance
        self.functions: dict[str, None] = {}
        self._lexical: set[str] = set()
        self._var: set[str] = set()
        self.redeclared = False

    def binding(self, name: str, lexical: bool) -> None:
        if name in self._lexical or (lexical and (name in self._var or name in self.functions)):
            self.redeclared = True
        (self._lexical if lexical else self._var).add(name)
        self.declared.setdefault(name)

    def function(self, name: str) -> None:
        if name in self._lexical:
            self.redeclared = True
        self.functions.setdefault(name)


def _unescape(match: re.Match[str]) -> str:
    code = int(match.group(1) or match.group(2), 16)
    return chr(code) if code <= 0x10FFFF else match.group(0)  # past Unicode: the engine refuses it


def _binding_names(pattern: tree_sitter.Node, edits: _Edits) -> list[str]:
    """The names a binding pattern binds, in source order (not keys, not default values)."""
    out: list[str] = []
    pending = [pattern]  # a stack, not recursion: patterns may nest deeper than Python's limit
    while pending:
        node = pending.pop()
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            out.append(edits.name(node))
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            pending.extend(node.children_by_field_name("left"))
        elif kind == "pair_pattern":
            pending.extend(node.children_by_field_name("value"))
        elif kind in ("object_pattern", "array_pattern", "rest_pattern"):
            pending.extend(reversed(node.named_children))
    return out


def _declaration(node: tree_sitter.Node, edits: _Edits, names: _Names) -> None:
    """``const`` / ``let`` / ``var`` at the top level: assignments to the global bindings."""
    keyword = node.children[0]
    lexical = keyword.type != "var"
    declarators = [child for child in node.named_children if child.type == "variable_declarator"]
    kept: list[tree_sitter.Node] = []
    for declarator in declarators:
        pattern = declarator.child_by_field_name("name")
        for name in _binding_names(pattern, edits) if pattern is not None else []:
            names.binding(name, lexical)
        if declarator.child_by_field_name("value") is None and not lexical:
            edits.blank(declarator)  # `var x`: the global keeps its value
        else:
            kept.append(declarator)
            if declarator.child_by_field_name("value") is None:
                edits.insert(declarator.end_byte, " = undefined")
    for comma in (child for child in node.children if child.type == ","):
        after = comma.next_named_sibling
        while after is not None and after.type == "comment":
            after = after.next_named_sibling
        if after not in kept or not any(d.end_byte <= comma.start_byte for d in kept):
            edits.blank(comma)
    terminated = node.children[-1].type == ";"
    first = kept[0].child_by_field_name("name") if kept else None
    lead = {"object_pattern": ";(", "array_pattern": ";"}.get(first.type if first is not None else "", "")
    if not kept and not terminated:
        lead = ";"  # an empty statement ends the statement before, as the declaration did
    edits.blank(keyword, lead)
    end = declarators[-1].end_byte if declarators else keyword.end_byte
    if lead == ";(":
        edits.insert(end, ")")
    if kept and not terminated:
        edits.insert(end, ";")


def _class(node: tree_sitter.Node, edits: _Edits, names: _Names) -> None:
    """``class C {...}`` at the top level: ``C = class C {...};``."""
    name = node.child_by_field_name("name")
    if name is None:
        return
    text = edits.text(name)
    names.binding(edits.name(name), lexical=True)
    edits.insert(node.start_byte, f"{text} = ")
    after = node.next_named_sibling
    while after is not None and after.type == "comment":
        after = after.next_named_sibling
    if after is None or after.type != "empty_statement":
        edits.insert(node.end_byte, ";")


def _return_value(statement: tree_sitter.Node, edits: _Edits) -> None:
    """The last expression statement ``e;`` becomes ``return [(e)];``."""
    expression = next(child for child in statement.named_children if child.type != "comment")
    edits.insert(expression.start_byte, "return [(")
    edits.insert(expression.end_byte, ")]" if statement.children[-1].type == ";" else ")];")
