"""Inspection for code-mode cells (``inspect_request``), from tables only (no cell code runs).

Per the Jupyter messaging specification's ``inspect_request`` (the cursor's object, as
frontends show it on Shift-Tab or in a contextual help panel):

- the name under the cursor: a tool (``tools.echo``: its description and TypeScript
  declaration, with ``detail_level`` 1 also its JSON input schema), a helper of the cell
  (signature and description, :mod:`codemode.kernel.helpers`), or a magic's usage;
- otherwise the innermost call whose arguments hold the cursor, as IPython does for a
  function: ``tools.echo({value: 1|})`` shows ``tools.echo``, ``text(JSON.stringify(x|))``
  shows ``text``. Calls are found with the lexer of :mod:`codemode.kernel.jslex`, so brackets
  inside strings, templates and comments do not count.

``found`` is False when nothing is known there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from codemode.kernel.completion import ToolLike
from codemode.kernel.helpers import Helper, helpers_of
from codemode.kernel.jslex import Token, tokens
from codemode.kernel.magics import MAGICS

_WORD_BEFORE = re.compile(r"[A-Za-z_$][\w$]*$|$")
_PLAIN_STRING = re.compile(r"""^(["'])([A-Za-z_$][\w$]*)\1$""")


def _word_at(code: str, pos: int) -> tuple[str, str]:
    """``(qualifier, word)`` around ``pos``: the identifier under or just before the cursor
    and, when it is written ``tools.NAME``, the qualifier ``tools``."""
    start = pos
    while start > 0 and (code[start - 1].isalnum() or code[start - 1] in "_$"):
        start -= 1
    end = pos
    while end < len(code) and (code[end].isalnum() or code[end] in "_$"):
        end += 1
    word = code[start:end]
    qualifier = ""
    left = code[:start].rstrip()
    if left.endswith("."):
        qualifier = _WORD_BEFORE.search(left[:-1].rstrip()).group(0)  # type: ignore[union-attr]
    return qualifier, word


def _callee(before: list[Token]) -> str | None:
    """The dotted name called by a ``(`` that follows the tokens ``before``: ``a.b.c`` or
    ``tools["name"]`` (as ``tools.name``); None for anything else (a call of a call's result,
    a computed member)."""
    rest = list(before)
    parts: list[str] = []
    if len(rest) >= 3 and rest[-1].text == "]" and rest[-3].text == "[" and rest[-2].kind == "string":
        key = _PLAIN_STRING.match(rest[-2].text)
        if key is None:
            return None
        parts, rest = [key.group(2)], rest[:-3]
    if not rest or rest[-1].kind != "word":
        return None
    parts.insert(0, rest[-1].text)
    rest = rest[:-1]
    while len(rest) >= 2 and rest[-1].text == "." and rest[-2].kind == "word":
        parts.insert(0, rest[-2].text)
        rest = rest[:-2]
    if rest and rest[-1].text == ".":
        return None  # a member of something that is not a plain name
    return ".".join(parts)


def enclosing_calls(code: str, pos: int) -> list[str]:
    """The names of the calls whose argument lists hold offset ``pos`` (code points), the
    innermost first (see :func:`_callee` for which calls have a name)."""
    opened: list[str | None] = []  # per open bracket: the callee of a call's "(", else None
    recent: list[Token] = []
    for token in tokens(code):
        if token.start >= pos:
            break
        if token.kind == "comment":
            continue
        if token.kind == "template":
            if token.text.startswith("}") and opened:
                opened.pop()
            if token.closed and token.text.endswith("${") and token.end <= pos:
                opened.append(None)
        elif token.kind == "punct" and token.text in "([{":
            opened.append(_callee(recent) if token.text == "(" else None)
        elif token.kind == "punct" and token.text in ")]}" and opened:
            opened.pop()
        recent = [*recent[-7:], token]
    return [name for name in reversed(opened) if name]


def _tool_doc(tool: ToolLike, detail_level: int) -> tuple[str, str]:
    name = tool.js_name
    plain = f"tools.{name}\n\n{tool.description}\n\n{tool.declaration}"
    markdown = f"**tools.{name}**\n\n{tool.description}\n\n```ts\n{tool.declaration}\n```"
    schema = getattr(tool, "input_schema", None)
    if detail_level >= 1 and schema:
        dumped = json.dumps(schema, indent=2, sort_keys=True)
        plain += f"\n\nInput schema:\n{dumped}"
        markdown += f"\n\nInput schema:\n\n```json\n{dumped}\n```"
    return plain, markdown


def _helper_doc(name: str, helpers: tuple[Helper, ...]) -> tuple[str, str] | None:
    helper = next((h for h in helpers if h.name == name), None)
    if helper is None:
        return None
    return f"{helper.signature}\n\n{helper.doc}", f"```ts\n{helper.signature}\n```\n\n{helper.doc}"


def _call_doc(
    callee: str, by_name: dict[str, ToolLike], detail_level: int, helpers: tuple[Helper, ...]
) -> tuple[str, str] | None:
    """What to show for the call of ``callee`` (``tools.NAME`` or a helper), or None."""
    qualifier, _, name = callee.rpartition(".")
    if qualifier == "tools" and name in by_name:
        return _tool_doc(by_name[name], detail_level)
    return _helper_doc(callee, helpers) if not qualifier else None


def inspect(
    code: str, cursor_pos: int | None, tools: Iterable[ToolLike], detail_level: int = 0, profile: str = "strict"
) -> dict[str, Any]:
    """The ``inspect_reply`` content for ``code`` with the cursor at ``cursor_pos`` (code
    points; None means the end), see the module docstring; ``profile`` (``strict`` or
    ``notebook``) decides which helpers a cell has."""
    pos = len(code) if cursor_pos is None else max(0, min(cursor_pos, len(code)))
    qualifier, word = _word_at(code, pos)
    by_name = {t.js_name: t for t in tools}
    helpers = helpers_of(profile)
    helper_names = {h.name for h in helpers}
    doc: tuple[str, str] | None = None
    if word in by_name and (qualifier == "tools" or word not in helper_names):
        doc = _tool_doc(by_name[word], detail_level)
    elif not qualifier and word in helper_names:
        doc = _helper_doc(word, helpers)
    elif code.lstrip().startswith("%") and word in MAGICS:
        doc = (MAGICS[word], MAGICS[word])
    else:
        for callee in enclosing_calls(code, pos):
            doc = _call_doc(callee, by_name, detail_level, helpers)
            if doc is not None:
                break
    if doc is None:
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}
    return {"status": "ok", "found": True, "data": {"text/plain": doc[0], "text/markdown": doc[1]}, "metadata": {}}


__all__ = ["enclosing_calls", "inspect"]
