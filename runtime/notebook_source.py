"""The notebook profile's cell transform (a minimal stand-in, replaced by the tree-sitter one).

A cell's source becomes the body of an async function whose top-level declarations persist
in the realm: ``const/let/var x = ...`` at the start of a top-level line becomes ``x = ...``
(the keyword replaced by spaces, so columns stay), ``class C`` becomes ``C = class C``, a
top-level ``function f`` stays and is listed in ``functions``, and a last line that is an
expression statement becomes ``return [(<expr>)];``. Only plain forms are handled: one name
per declaration, statements that start their line. Lines are kept (line N of the body is
line N of the source).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_DECLARATION = re.compile(r"^(\s*)(const|let|var)(\s+)([A-Za-z_$][\w$]*)(\s*=)")
_FUNCTION = re.compile(r"^\s*(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(")
_CLASS = re.compile(r"^(\s*)class\s+([A-Za-z_$][\w$]*)")
_STATEMENT_START = re.compile(
    r"^\s*(?:const|let|var|function|async\s+function|class|if|for|while|do|switch|try|return|throw|"
    r"break|continue|import|export)\b|^\s*(?:\{|\}|//|/\*|\*)"
)


@dataclass(frozen=True)
class NotebookSource:
    """A transformed cell: ``body`` runs as an async function body (line N is line N of the source)."""

    body: str
    declared: tuple[str, ...]
    functions: tuple[str, ...]
    has_value: bool


def _depths(lines: list[str]) -> list[int]:
    """The bracket depth at the start of each line (strings and comments are not looked into)."""
    depth = 0
    out = []
    for line in lines:
        out.append(depth)
        depth += sum(line.count(c) for c in "([{") - sum(line.count(c) for c in ")]}")
    return out


def transform(source: str) -> NotebookSource:
    """The body, declared names, hoisted functions and whether the cell has a value."""
    lines = source.split("\n")
    depths = _depths(lines)
    declared: list[str] = []
    functions: list[str] = []
    for i, line in enumerate(lines):
        if depths[i] != 0:
            continue
        m = _DECLARATION.match(line)
        if m:
            lines[i] = (
                m.group(1)
                + " " * len(m.group(2))
                + m.group(3)
                + line[len(m.group(1)) + len(m.group(2)) + len(m.group(3)) :]
            )
            declared.append(m.group(4))
            continue
        m = _CLASS.match(line)
        if m:
            lines[i] = m.group(1) + m.group(2) + " = " + line[len(m.group(1)) :]
            declared.append(m.group(2))
            continue
        m = _FUNCTION.match(line)
        if m:
            functions.append(m.group(1))
    has_value = False
    last = len(lines) - 1
    while last >= 0 and lines[last].strip() == "":
        last -= 1
    original = source.split("\n")
    if last >= 0 and depths[last] == 0:
        text = lines[last].strip().rstrip(";")
        balanced = sum(text.count(c) for c in "([{") == sum(text.count(c) for c in ")]}")
        plain = ";" not in text and not _STATEMENT_START.match(original[last]) and not _CLASS.match(original[last])
        if text and balanced and plain and _DECLARATION.match(original[last]) is None:
            indent = lines[last][: len(lines[last]) - len(lines[last].lstrip())]
            lines[last] = f"{indent}return [({text})];"
            has_value = True
    return NotebookSource("\n".join(lines), tuple(dict.fromkeys(declared)), tuple(dict.fromkeys(functions)), has_value)
