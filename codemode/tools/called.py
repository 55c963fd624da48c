"""Which tools a program calls, read from its source before it runs, and which of them are missing.

Programs written for Codex call Codex's nested tools (``exec_command``, ``write_stdin``,
``apply_patch``, ``view_image``, MCP tools ``mcp__SERVER__tool`` ...). :func:`tool_uses` reads
the names a source gives them, without running it:

- a member access on ``tools``: ``tools.NAME``, ``tools?.NAME``, ``tools["NAME"]``,
  ``tools['NAME']`` (called or not: ``const f = tools.NAME`` counts);
- a destructuring of ``tools``: ``const {a, b: c, "d-e": f, g = h} = tools`` (also
  ``= await tools``) names ``a``, ``b``, ``d-e`` and ``g``.

What static reading cannot name is listed in :attr:`ToolUses.unread`, one entry per place,
with its line: ``tools`` used as a value (``f(tools)``, ``tools[name]``, ``...rest`` in a
destructuring), ``ALL_TOOLS`` (a program may pick a tool from the list), ``globalThis``,
``eval``, ``Function`` and ``\\u`` escapes (which can reach or spell ``tools``; the same words
:mod:`codemode.tools.reach` treats as reaching the tools). Comments and the text of string
and template literals are skipped (``text("my tools")`` names nothing; the code inside a
template's ``${...}`` is read). What it misses: a local variable called ``tools`` is taken for
the global one, a regular expression literal is read as code, and a tool reached through an
alias (``const t = tools; t.x()``) shows only as ``tools used as a value``.

:func:`missing_tools` compares the names with the tools a registry has, by their JavaScript
names and their code-mode names (``mcp__everything__get_sum`` and
``mcp__everything__get-sum`` both name that tool).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from codemode.tools.base import Tool
from codemode.tools.reach import MEMBER, REACHING

_DESTRUCTURING = re.compile(r"\{([^{}]*)\}\s*=\s*(?:await\s+)?(tools)(?![\w$])")
"""``{...} = tools``: the pattern's text and where ``tools`` is."""

_PROPERTY = re.compile(r"""\s*(?:([A-Za-z_$][\w$]*)|"([^"\\\n]*)"|'([^'\\\n]*)')\s*(?:[:=].*)?\Z""", re.S)
"""One property of a destructuring pattern: ``name``, ``name: alias``, ``"name": alias``, ``name = default``."""


@dataclass(frozen=True)
class ToolUses:
    """The tools a source names (``names``, each once, first use first) and the places where
    it reaches the tools in a way static reading cannot name (``unread``, e.g.
    ``"line 3: tools used as a value"``)."""

    names: tuple[str, ...]
    unread: tuple[str, ...]

    def missing(self, available: Collection[str]) -> tuple[str, ...]:
        """The names not in ``available``, in :attr:`names` order."""
        return tuple(name for name in self.names if name not in available)


def code_only(source: str) -> str:
    """``source`` with comments and the text of string and template literals replaced by
    spaces (newlines kept), so positions stay the same; the code of a template's ``${...}``
    is kept."""
    out = list(source)
    templates: list[int] = []  # per open template substitution: its unclosed `{` count
    i, n = 0, len(source)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if out[k] != "\n":
                out[k] = " "

    def template_text(start: int) -> int:
        """Blank a template's text from ``start``; return where code resumes."""
        k = start
        while k < n:
            if source[k] == "\\":
                k += 2
            elif source[k] == "`":
                blank(start, k)
                return k + 1
            elif source.startswith("${", k):
                blank(start, k)
                templates.append(0)
                return k + 2
            else:
                k += 1
        blank(start, n)
        return n

    while i < n:
        char = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif char in "'\"":
            k = i + 1
            while k < n and source[k] not in (char, "\n"):
                k += 2 if source[k] == "\\" else 1
            blank(i + 1, min(k, n))
            i = k + 1
        elif char == "`":
            i = template_text(i + 1)
        elif char == "{" and templates:
            templates[-1] += 1
            i += 1
        elif char == "}" and templates:
            if templates[-1] == 0:
                templates.pop()
                i = template_text(i + 1)
            else:
                templates[-1] -= 1
                i += 1
        else:
            i += 1
    return "".join(out)


def _line(source: str, position: int) -> int:
    return source.count("\n", 0, position) + 1


def _destructured(pattern: str) -> tuple[list[str], bool]:
    """The names of a destructuring pattern's properties, and whether it has one that cannot
    be read (``...rest``, a computed key)."""
    names, unread = [], False
    for part in pattern.split(","):
        if not part.strip():
            continue
        match = _PROPERTY.match(part)
        if match is None:
            unread = True
            continue
        names.append(next(group for group in match.groups() if group is not None))
    return names, unread


def tool_uses(source: str) -> ToolUses:
    """Read ``source`` (a cell's JavaScript) as the module docstring says."""
    names: dict[str, None] = {}
    unread: list[str] = []
    destructured: dict[int, str] = {}
    for match in _DESTRUCTURING.finditer(source):
        destructured[match.start(2)] = match.group(1)
    for match in REACHING.finditer(code_only(source)):
        word, line = match.group(), _line(source, match.start())
        if word != "tools":
            unread.append(f"line {line}: {word}" if not word.startswith("\\u") else f"line {line}: a \\u escape")
            continue
        member = MEMBER.match(source, match.end())
        if member is not None:
            names.setdefault(next(group for group in member.groups() if group is not None))
        elif match.start() in destructured:
            found, partly = _destructured(destructured[match.start()])
            for name in found:
                names.setdefault(name)
            if partly:
                unread.append(f"line {line}: a destructuring of tools with a part that names no tool")
        else:
            unread.append(f"line {line}: tools used as a value")
    return ToolUses(tuple(names), tuple(unread))


def available_names(tools: Iterable[Tool]) -> set[str]:
    """The names a program may use for ``tools``: each tool's JavaScript and code-mode name."""
    return {name for tool in tools for name in (tool.js_name, tool.raw_name)}


def missing_tools(source: str, tools: Iterable[Tool]) -> ToolUses:
    """The tools ``source`` names that ``tools`` (e.g. a registry's ``tools``) lacks, with the
    places static reading could not judge: ``ToolUses(names=<missing>, unread=<places>)``."""
    uses = tool_uses(source)
    return ToolUses(uses.missing(available_names(tools)), uses.unread)


__all__ = ["ToolUses", "available_names", "code_only", "missing_tools", "tool_uses"]
