"""Completion and inspection for code-mode cells, from static tables only (no JS is run).

Per the Jupyter messaging specification's ``complete_request`` and ``inspect_request``: ``tools.`` completes tool names,
a bare word completes the code-mode globals (``text``, ``store``, ``tools``, ...), ``%``
completes magics, and the word after ``%wait``/``%terminate`` completes live cell ids.
All offsets are Unicode code points (Python ``str`` indices), as messaging 5.2 requires.
Replies carry ``metadata._jupyter_types_experimental`` (``start``, ``end``, ``text``,
``type``, ``signature``) so consoles can show what each match is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from codemode.kernel.magics import MAGICS


class ToolLike(Protocol):
    """What completion needs from a tool (``codemode.tools.registry.Tool`` fits)."""

    js_name: str
    description: str
    declaration: str


@dataclass(frozen=True)
class Helper:
    """A global the prelude installs: its call signature and a one-paragraph description."""

    name: str
    signature: str
    doc: str


HELPERS: tuple[Helper, ...] = (
    Helper(
        "tools",
        "tools: { [name: string]: (args?: object) => Promise<any> }",
        "The enabled tools; `await tools.NAME(args)` calls one. See %tools.",
    ),
    Helper(
        "ALL_TOOLS",
        "ALL_TOOLS: { name: string; description: string }[]",
        "Every enabled tool's JavaScript name and description.",
    ),
    Helper(
        "text", "text(value: unknown): void", "Append a text item to the cell's output (objects are JSON.stringify-ed)."
    ),
    Helper(
        "image",
        "image(urlOrItem: string | object, detail?: string): void",
        "Append an image: a data: URL, {image_url, detail?} or an MCP image block.",
    ),
    Helper(
        "notify",
        "notify(value: unknown): void",
        "Show a message at once, outside the cell's output (must not be blank).",
    ),
    Helper(
        "store", "store(key: string, value: unknown): void", "Keep a JSON value for later cells of this kernel session."
    ),
    Helper("load", "load(key: string): unknown", "A fresh copy of a value stored by an earlier cell, or undefined."),
    Helper(
        "yield_control",
        "yield_control(): void",
        "Hand the output so far to the waiting execute or %wait now; the cell keeps running.",
    ),
    Helper("exit", "exit(): never", "End the cell successfully at once."),
    Helper(
        "setTimeout",
        "setTimeout(callback: () => void, delayMs?: number): number",
        "Run a callback later (pending timers are dropped when the cell ends).",
    ),
    Helper("clearTimeout", "clearTimeout(id?: number): void", "Cancel a timer."),
)
"""Globals of a cell: the ones Codex's code-mode prelude installs."""

_WORD_BEFORE = re.compile(r"[A-Za-z_$][\w$]*$|$")
_TOOLS_MEMBER = re.compile(r"\btools\s*\.\s*([A-Za-z_$][\w$]*)?$")
_TOOLS_INDEX = re.compile(r"\btools\s*\[\s*(['\"])([^'\"]*)$")


def _reply(matches: list[tuple[str, str, str]], start: int, end: int) -> dict[str, Any]:
    """A complete_reply content from ``(text, type, signature)`` triples."""
    return {
        "status": "ok",
        "matches": [m[0] for m in matches],
        "cursor_start": start,
        "cursor_end": end,
        "metadata": {
            "_jupyter_types_experimental": [
                {"start": start, "end": end, "text": t, "type": kind, "signature": sig} for t, kind, sig in matches
            ]
        },
    }


def complete(
    code: str, cursor_pos: int | None, tools: Iterable[ToolLike], live_cells: Iterable[str] = ()
) -> dict[str, Any]:
    """The ``complete_reply`` content for ``code`` with the cursor at ``cursor_pos``.

    ``cursor_pos`` is in code points (None means the end of ``code``); it is clamped into
    range. ``tools`` are the enabled tools, ``live_cells`` the ids ``%wait`` could name.
    """
    pos = len(code) if cursor_pos is None else max(0, min(cursor_pos, len(code)))
    before = code[:pos]
    line_start = before.rfind("\n") + 1
    line = before[line_start:]
    tool_list = list(tools)

    if line_start == 0 and line.lstrip().startswith("%"):
        stripped = line.lstrip()
        words = stripped[1:].split(" ")
        if len(words) == 1:  # completing the magic's name
            prefix = words[0]
            found = [("%" + m, "magic", MAGICS[m]) for m in MAGICS if m.startswith(prefix)]
            return _reply(found, pos - len(prefix) - 1, pos)
        if words[0] in ("wait", "terminate") and len(words) == 2:
            prefix = words[1]
            found = [(c, "cell", f"cell {c}") for c in live_cells if c.startswith(prefix)]
            return _reply(found, pos - len(prefix), pos)
        if words[0] == "tools" and len(words) == 2:
            prefix = words[1]
            found = [(t.js_name, "function", t.declaration) for t in tool_list if t.js_name.startswith(prefix)]
            return _reply(found, pos - len(prefix), pos)
        return _reply([], pos, pos)

    member = _TOOLS_MEMBER.search(before)
    if member is not None:
        prefix = member.group(1) or ""
        found = [(t.js_name, "function", t.declaration) for t in tool_list if t.js_name.startswith(prefix)]
        return _reply(found, pos - len(prefix), pos)
    index = _TOOLS_INDEX.search(before)
    if index is not None:
        prefix = index.group(2)
        found = [(t.js_name, "function", t.declaration) for t in tool_list if t.js_name.startswith(prefix)]
        return _reply(found, pos - len(prefix), pos)

    word = _WORD_BEFORE.search(before).group(0)  # type: ignore[union-attr]
    if not word or before[: pos - len(word)].rstrip().endswith("."):
        return _reply([], pos, pos)
    found = [
        (h.name, "function" if "(" in h.signature.split(":")[0] else "instance", h.signature)
        for h in HELPERS
        if h.name.startswith(word)
    ]
    return _reply(found, pos - len(word), pos)


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


def inspect(code: str, cursor_pos: int | None, tools: Iterable[ToolLike], detail_level: int = 0) -> dict[str, Any]:
    """The ``inspect_reply`` content: a tool's description and TypeScript declaration, a
    global's signature and description, or a magic's usage; ``found`` False otherwise.

    With ``detail_level`` 1 a tool also shows its JSON input schema when it has one.
    """
    pos = len(code) if cursor_pos is None else max(0, min(cursor_pos, len(code)))
    qualifier, word = _word_at(code, pos)
    by_name = {t.js_name: t for t in tools}
    plain = markdown = None
    if word in by_name and (qualifier == "tools" or word not in {h.name for h in HELPERS}):
        tool = by_name[word]
        plain = f"tools.{word}\n\n{tool.description}\n\n{tool.declaration}"
        markdown = f"**tools.{word}**\n\n{tool.description}\n\n```ts\n{tool.declaration}\n```"
        schema = getattr(tool, "input_schema", None)
        if detail_level >= 1 and schema:
            import json

            dumped = json.dumps(schema, indent=2, sort_keys=True)
            plain += f"\n\nInput schema:\n{dumped}"
            markdown += f"\n\nInput schema:\n\n```json\n{dumped}\n```"
    else:
        helper = next((h for h in HELPERS if h.name == word and not qualifier), None)
        if helper is not None:
            plain = f"{helper.signature}\n\n{helper.doc}"
            markdown = f"```ts\n{helper.signature}\n```\n\n{helper.doc}"
        elif code.lstrip().startswith("%") and word in MAGICS:
            plain = markdown = MAGICS[word]
    if plain is None:
        return {"status": "ok", "found": False, "data": {}, "metadata": {}}
    return {
        "status": "ok",
        "found": True,
        "data": {"text/plain": plain, "text/markdown": markdown},
        "metadata": {},
    }
