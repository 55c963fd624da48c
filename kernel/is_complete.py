"""Answer ``is_complete_request`` with a lexer-level scan of JavaScript (no parser, no JS run).

Consoles send every line typed; jupyter console gives up on the kernel after 1 s without an
answer, so this is a single linear pass over the tokens of :mod:`codemode.kernel.jslex`
(string, template and regular expression literals, comments). It tracks brackets, then:

- a closing bracket that does not match, or a quote string broken by a newline -> ``invalid``
  (the console executes at once so the syntax error shows);
- an open bracket, template literal, block comment, an ``// @exec:`` pragma with no code
  after it, or a line ending in a binary operator / ``,`` / ``.`` / ``=>`` -> ``incomplete``
  with an indent of two spaces per open bracket;
- a magic line (``%...``) or anything else -> ``complete``.
"""

from __future__ import annotations

from typing import Any

from codemode.kernel.jslex import tokens

_CLOSERS = {")": "(", "]": "[", "}": "{"}
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


def scan(code: str) -> dict[str, Any]:
    """The ``is_complete_reply`` content for ``code`` (``status`` and, if incomplete, ``indent``)."""
    if code.lstrip().startswith("%"):
        return {"status": "complete"}
    stack: list[str] = []
    for token in tokens(code):
        if token.kind in ("string", "regex") and not token.closed:
            return {"status": "invalid"}
        if token.kind == "comment" and not token.closed:
            return {"status": "incomplete", "indent": ""}
        if token.kind == "template":
            if token.text.startswith("}"):
                if not stack or stack[-1] != "${":
                    return {"status": "invalid"}
                stack.pop()
            if not token.closed:
                return {"status": "incomplete", "indent": ""}
            if token.text.endswith("${"):
                stack.append("${")
        elif token.kind == "punct" and token.text in "([{":
            stack.append(token.text)
        elif token.kind == "punct" and token.text in ")]}":
            if not stack or stack[-1] != _CLOSERS[token.text]:
                return {"status": "invalid"}
            stack.pop()
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
