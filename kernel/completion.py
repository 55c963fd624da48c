"""Completion for code-mode cells (``complete_request``), from tables only (no cell code runs).

Per the Jupyter messaging specification's ``complete_request``:

- ``tools.`` and ``tools["`` complete tool names; ``%`` completes magics, the word after
  ``%wait`` / ``%terminate`` live cell ids, the one after ``%tools`` tool names;
- a member chain of JavaScript globals completes their members as the engine defines them
  (``Math.fl`` -> ``Math.floor``, ``JSON.str`` -> ``JSON.stringify``, ``Array.prototype.``,
  ``Promise.``, ``globalThis.``; :mod:`codemode.kernel.js_globals`);
- a bare word completes the cell's helpers (:mod:`codemode.kernel.helpers`; in the notebook
  profile also ``console``, ``display``, ``html``, ``markdown``, ``svg``, and ``console.``
  its methods) and then the engine's globals;
- in the notebook profile, the session's realm also answers (:func:`binding_query` says what
  to ask it, codemode's ``session/bindings``): a bare word completes the global bindings
  earlier cells declared (``ro`` -> ``rows``, after the helpers), and a member chain that
  is no engine global's (``rows.ma``, ``rows[0].na``, ``rows.0.na``, ``cfg.inner.de``)
  completes the members of the value it names, own and inherited, read without running
  a getter or proxy trap of the cells. A busy realm answers nothing: what is known still is.

All offsets are Unicode code points (Python ``str`` indices), as messaging 5.2 requires.
Replies carry ``metadata._jupyter_types_experimental`` (``start``, ``end``, ``text``,
``type``, ``signature``) so consoles can show what each match is. Names beginning with ``_``
(``__proto__``, ``__defineGetter__``) come after the others.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Protocol

from codemode.kernel.helpers import CONSOLE_MEMBERS, helpers_of, kind
from codemode.kernel.js_globals import EngineGlobals
from codemode.kernel.magics import MAGICS


class ToolLike(Protocol):
    """What completion needs from a tool (``codemode.tools.registry.Tool`` fits)."""

    js_name: str
    description: str
    declaration: str


_WORD_BEFORE = re.compile(r"[A-Za-z_$][\w$]*$|$")
_TOOLS_MEMBER = re.compile(r"\btools\s*\.\s*([A-Za-z_$][\w$]*)?$")
_TOOLS_INDEX = re.compile(r"\btools\s*\[\s*(['\"])([^'\"]*)$")
_MEMBER_CHAIN = re.compile(r"((?:[A-Za-z_$][\w$]*\s*\.\s*)+)([A-Za-z_$][\w$]*)?$")
_SEGMENT = r"""(?:\.\s*(?:[A-Za-z_$][\w$]*|\d+)|\[\s*(?:\d+|"[^"\\]*"|'[^'\\]*')\s*\])"""
_BINDING_CHAIN = re.compile(r"(?<![\w$.\])])([A-Za-z_$][\w$]*)((?:\s*" + _SEGMENT + r")*)\s*\.\s*([A-Za-z_$][\w$]*)?$")
_SEGMENTS = re.compile(r"""\.\s*([A-Za-z_$][\w$]*|\d+)|\[\s*(\d+|"[^"\\]*"|'[^'\\]*')\s*\]""")

Match = tuple[str, str, str]
"""One completion: ``(text, type, signature)``."""


def _reply(matches: list[Match], start: int, end: int) -> dict[str, Any]:
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


def mentions_tools(code: str) -> bool:
    """Whether completing or inspecting ``code`` may need the tool list (it names ``tools``):
    only then are MCP servers still starting waited for."""
    return "tools" in code


def _tool_matches(tools: list[ToolLike], prefix: str) -> list[Match]:
    return [(t.js_name, "function", t.declaration) for t in tools if t.js_name.startswith(prefix)]


def _member_matches(members: Iterable[tuple[str, str]], prefix: str) -> list[Match]:
    found = {name: kind for name, kind in members if name.startswith(prefix)}
    return [(name, found[name], "") for name in sorted(found, key=lambda n: (n.startswith("_"), n))]


def _binding_chain(line: str, engine: EngineGlobals) -> tuple[list[str], str] | None:
    """The path and prefix of a member chain rooted at a binding (``rows[0].na`` ->
    ``(["rows", "0"], "na")``), or None when ``line`` ends in no such chain or in one the
    engine's globals, ``console`` or ``tools`` answer."""
    match = _BINDING_CHAIN.search(line)
    if match is None:
        return None
    path = [match.group(1)]
    for name, index in _SEGMENTS.findall(match.group(2)):
        path.append(name or (index[1:-1] if index[:1] in "'\"" else index))
    if path[0] in ("console", "tools") or engine.of(".".join(path)):
        return None
    return path, match.group(3) or ""


def binding_query(code: str, cursor_pos: int | None, engine: EngineGlobals | None = None) -> list[str] | None:
    """What to ask the notebook realm for completing ``code`` at ``cursor_pos``: ``[]`` (its
    global bindings) for a bare word, the path of a member chain rooted at a binding, or None
    (the realm knows nothing useful here: a magic, ``tools.``, an engine global's members)."""
    pos = len(code) if cursor_pos is None else max(0, min(cursor_pos, len(code)))
    before = code[:pos]
    line = before[before.rfind("\n") + 1 :]
    if (
        line.lstrip().startswith("%")
        and "\n" not in before
        or _TOOLS_MEMBER.search(before)
        or _TOOLS_INDEX.search(before)
    ):
        return None
    chain = _binding_chain(line, engine or EngineGlobals())
    if chain is not None:
        return chain[0]
    word = _WORD_BEFORE.search(before).group(0)  # type: ignore[union-attr]
    return [] if word and not before[: pos - len(word)].rstrip().endswith(".") else None


def _magic_completion(line: str, pos: int, tools: list[ToolLike], live_cells: Iterable[str]) -> dict[str, Any]:
    words = line.lstrip()[1:].split(" ")
    if len(words) == 1:  # completing the magic's name
        prefix = words[0]
        found = [("%" + m, "magic", MAGICS[m]) for m in MAGICS if m.startswith(prefix)]
        return _reply(found, pos - len(prefix) - 1, pos)
    if words[0] in ("wait", "terminate") and len(words) == 2:
        prefix = words[1]
        return _reply([(c, "cell", f"cell {c}") for c in live_cells if c.startswith(prefix)], pos - len(prefix), pos)
    if words[0] == "tools" and len(words) == 2:
        return _reply(_tool_matches(tools, words[1]), pos - len(words[1]), pos)
    return _reply([], pos, pos)


def complete(
    code: str,
    cursor_pos: int | None,
    tools: Iterable[ToolLike],
    live_cells: Iterable[str] = (),
    engine: EngineGlobals | None = None,
    profile: str = "strict",
    bindings: Iterable[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """The ``complete_reply`` content for ``code`` with the cursor at ``cursor_pos``.

    ``cursor_pos`` is in code points (None means the end of ``code``); it is clamped into
    range. ``tools`` are the enabled tools, ``live_cells`` the ids ``%wait`` could name,
    ``engine`` the JavaScript engine's globals (None: helpers only), ``profile`` the cells'
    profile (``strict`` or ``notebook``: which helpers a cell has), ``bindings`` the realm's
    answer to :func:`binding_query` (``(name, kind)`` pairs; None: none came).
    """
    pos = len(code) if cursor_pos is None else max(0, min(cursor_pos, len(code)))
    before = code[:pos]
    line_start = before.rfind("\n") + 1
    tool_list = list(tools)
    engine = engine or EngineGlobals()
    if line_start == 0 and before.lstrip().startswith("%"):
        return _magic_completion(before, pos, tool_list, live_cells)

    member = _TOOLS_MEMBER.search(before)
    if member is not None:
        prefix = member.group(1) or ""
        return _reply(_tool_matches(tool_list, prefix), pos - len(prefix), pos)
    index = _TOOLS_INDEX.search(before)
    if index is not None:
        prefix = index.group(2)
        return _reply(_tool_matches(tool_list, prefix), pos - len(prefix), pos)
    line = before[line_start:]
    listed = list(bindings or [])
    binding_chain = _binding_chain(line, engine) if profile == "notebook" else None
    if binding_chain is not None:
        prefix = binding_chain[1]
        return _reply(_member_matches(listed, prefix), pos - len(prefix), pos)
    chain = _MEMBER_CHAIN.search(line)
    if chain is not None:
        prefix = chain.group(2) or ""
        after_dot = line[: chain.start()].rstrip().endswith(".")
        path = "" if after_dot else re.sub(r"\s+", "", chain.group(1))[:-1]
        members = list(CONSOLE_MEMBERS) if path == "console" and profile == "notebook" else engine.of(path)
        return _reply(_member_matches(members if path else [], prefix), pos - len(prefix), pos)

    word = _WORD_BEFORE.search(before).group(0)  # type: ignore[union-attr]
    if not word or before[: pos - len(word)].rstrip().endswith("."):
        return _reply([], pos, pos)
    helpers = helpers_of(profile)
    found = [(h.name, kind(h), h.signature) for h in helpers if h.name.startswith(word)]
    known = {h.name for h in helpers}
    found += _member_matches([m for m in listed if m[0] not in known], word)
    known |= {name for name, _ in listed}
    found += _member_matches([m for m in engine.of("") if m[0] not in known], word)
    return _reply(found, pos - len(word), pos)


__all__ = ["ToolLike", "binding_query", "complete", "mentions_tools"]
