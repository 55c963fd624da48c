"""Answer ``is_complete_request`` with a lexer-level scan of JavaScript (no parser, no JS run).

Consoles send every line typed; jupyter console gives up on the kernel after 1 s without an
answer, so this is a single linear pass. It tracks
brackets, string literals, template literals (with nested ``${...}``), comments and regular
expression literals (told apart from division by the previous significant token), then:

- a closing bracket that does not match, or a quote string broken by a newline -> ``invalid``
  (the console executes at once so the syntax error shows);
- an open bracket, template literal, block comment, an ``// @exec:`` pragma with no code
  after it, or a line ending in a binary operator / ``,`` / ``.`` / ``=>`` -> ``incomplete``
  with an indent of two spaces per open bracket;
- a magic line (``%...``) or anything else -> ``complete``.
"""

from __future__ import annotations

from typing import Any

_CLOSERS = {")": "(", "]": "[", "}": "{"}
_REGEX_AFTER_WORDS = {
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
}
_CONTINUATION_SUFFIXES = (
    "=>",
    "&&",
    "||",
    "??",
    "+",
    "-",
    "*",
    "/",
    "%",
    "=",
    ",",
    ".",
    "?",
    ":",
    "<",
    ">",
    "&",
    "|",
    "^",
    "!",
    "~",
)
_POSTFIX_SUFFIXES = ("++", "--")


def _regex_allowed(prev: str) -> bool:
    """Whether a ``/`` after the significant token ``prev`` starts a regex literal."""
    if not prev:
        return True
    if prev in _REGEX_AFTER_WORDS:
        return True
    last = prev[-1]
    return not (last.isalnum() or last in "_$)]}\"'`")


def scan(code: str) -> dict[str, Any]:
    """The ``is_complete_reply`` content for ``code`` (``status`` and, if incomplete, ``indent``)."""
    if code.lstrip().startswith("%"):
        return {"status": "complete"}
    stack: list[str] = []
    prev = ""  # last significant token (a word, or one punctuation character)
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in " \t\r\n":
            i += 1
            continue
        nxt = code[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            end = code.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "/" and nxt == "*":
            end = code.find("*/", i + 2)
            if end < 0:
                return {"status": "incomplete", "indent": ""}
            i = end + 2
            continue
        if c in "'\"":
            j = i + 1
            while j < n and code[j] != c:
                if code[j] == "\\":
                    j += 1
                elif code[j] == "\n":
                    return {"status": "invalid"}
                j += 1
            if j >= n:
                return {"status": "invalid"}
            i, prev = j + 1, c
            continue
        if c == "`" or (c == "}" and stack and stack[-1] == "${"):
            if c == "}":
                stack.pop()
            j = i + 1
            while j < n:
                if code[j] == "\\":
                    j += 2
                    continue
                if code[j] == "`":
                    break
                if code[j] == "$" and j + 1 < n and code[j + 1] == "{":
                    break
                j += 1
            if j >= n:
                return {"status": "incomplete", "indent": ""}
            if code[j] == "`":
                i, prev = j + 1, "`"
            else:
                stack.append("${")
                i, prev = j + 2, "{"
            continue
        if c == "/" and _regex_allowed(prev):
            j, in_class = i + 1, False
            while j < n and (in_class or code[j] != "/"):
                if code[j] == "\n":
                    return {"status": "invalid"}
                if code[j] == "\\":
                    j += 1
                elif code[j] == "[":
                    in_class = True
                elif code[j] == "]":
                    in_class = False
                j += 1
            if j >= n:
                return {"status": "invalid"}
            j += 1
            while j < n and (code[j].isalnum()):
                j += 1
            i, prev = j, ")"  # a regex literal behaves like a value
            continue
        if c in "([{":
            stack.append(c)
        elif c in ")]}":
            if not stack or stack[-1] != _CLOSERS[c]:
                return {"status": "invalid"}
            stack.pop()
        if c.isalnum() or c in "_$":
            j = i
            while j < n and (code[j].isalnum() or code[j] in "_$"):
                j += 1
            prev = code[i:j]
            i = j
            continue
        prev = c
        i += 1
    if stack:
        return {"status": "incomplete", "indent": "  " * len(stack)}
    if _pragma_without_code(code):
        return {"status": "incomplete", "indent": ""}
    tail = _last_code_line(code)
    if tail.endswith(_CONTINUATION_SUFFIXES) and not tail.endswith(_POSTFIX_SUFFIXES):
        return {"status": "incomplete", "indent": "  "}
    return {"status": "complete"}


def _pragma_without_code(code: str) -> bool:
    """True for a cell that is only an ``// @exec:`` pragma line (the code is still to come)."""
    first, _, rest = code.partition("\n")
    return first.lstrip().startswith("// @exec:") and not rest.strip()


def _last_code_line(code: str) -> str:
    """The last non-blank line with a trailing ``//`` comment removed (best effort)."""
    for line in reversed(code.splitlines()):
        stripped = line.strip()
        if not stripped or stripped.startswith("//"):
            continue
        cut = stripped.find(" //")
        if cut >= 0 and stripped.count('"') % 2 == 0 and stripped.count("'") % 2 == 0:
            stripped = stripped[:cut].rstrip()
        return stripped
    return ""
