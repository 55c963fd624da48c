"""A lexer-level scan of JavaScript: the tokens a cell's text is made of, in one linear pass.

Used where the kernel must understand a cell without running it: completeness
(:mod:`codemode.kernel.is_complete`) and which call the cursor is in (inspection,
:mod:`codemode.kernel.completion`). It tells apart words, punctuation, string literals,
template literals (split at ``${`` and at the ``}`` that resumes them, so their embedded
expressions are scanned as code), comments and regular expression literals (a ``/`` starts one
where the previous significant token cannot end an operand, as ECMAScript's grammar decides).
It is not a parser: it never fails, and reports unterminated pieces with ``closed`` False.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

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


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is ``word``, ``punct`` (one character), ``string``, ``template``
    (a piece of a template literal: from its opening `` ` `` or resuming ``}`` to its closing
    `` ` `` or ``${``), ``regex`` or ``comment``; ``code[start:end]`` is its text. ``closed`` is
    False for a string, template piece, regex or block comment the code ends inside, and for
    a string or regex a newline breaks (the scan goes on after the newline)."""

    kind: str
    start: int
    end: int
    text: str
    closed: bool = True


def _regex_allowed(prev: str) -> bool:
    """Whether a ``/`` after the significant token ``prev`` starts a regex literal."""
    if not prev or prev in _REGEX_AFTER_WORDS:
        return True
    return not (prev[-1].isalnum() or prev[-1] in "_$)]}\"'`")


def _is_word_char(c: str) -> bool:
    return c.isalnum() or c in "_$"


def _end_of_string(code: str, i: int, quote: str) -> tuple[int, bool]:
    """End of the string literal opened at ``i`` and whether it is closed (a newline breaks it)."""
    j, n = i + 1, len(code)
    while j < n and code[j] != quote:
        if code[j] == "\\":
            j += 1
        elif code[j] == "\n":
            return j, False
        j += 1
    return (j + 1, True) if j < n else (n, False)


def _end_of_template(code: str, i: int) -> tuple[int, bool]:
    """End of the template piece starting at ``i`` (after `` ` `` or ``${``'s ``}``): just past
    its closing `` ` `` or ``${``, and whether it has one."""
    j, n = i + 1, len(code)
    while j < n:
        if code[j] == "\\":
            j += 2
            continue
        if code[j] == "`":
            return j + 1, True
        if code[j] == "$" and j + 1 < n and code[j + 1] == "{":
            return j + 2, True
        j += 1
    return n, False


def _end_of_regex(code: str, i: int) -> tuple[int, bool]:
    """End of the regex literal opened at ``i`` (its flags included) and whether it is closed."""
    j, n, in_class = i + 1, len(code), False
    while j < n and (in_class or code[j] != "/"):
        if code[j] == "\n":
            return j, False
        if code[j] == "\\":
            j += 1
        elif code[j] == "[":
            in_class = True
        elif code[j] == "]":
            in_class = False
        j += 1
    if j >= n:
        return n, False
    j += 1
    while j < n and code[j].isalnum():
        j += 1
    return j, True


def tokens(code: str) -> Iterator[Token]:
    """The tokens of ``code`` in order (see the module docstring); whitespace is skipped."""
    braces: list[str] = []  # "{" or "${" for each open brace: which kind a "}" closes
    prev = ""  # the last significant token (regex or division)
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in " \t\r\n":
            i += 1
            continue
        nxt = code[i + 1] if i + 1 < n else ""
        if c == "/" and nxt in ("/", "*"):
            if nxt == "/":
                end = code.find("\n", i)
                end, closed = (n if end < 0 else end), True
            else:
                found = code.find("*/", i + 2)
                end, closed = (n, False) if found < 0 else (found + 2, True)
            yield Token("comment", i, end, code[i:end], closed)
            i = end
            continue
        if c in "'\"":
            end, closed = _end_of_string(code, i, c)
            yield Token("string", i, end, code[i:end], closed)
            i, prev = end, c
            continue
        if c == "`" or (c == "}" and braces and braces[-1] == "${"):
            if c == "}":
                braces.pop()
            end, closed = _end_of_template(code, i)
            text = code[i:end]
            yield Token("template", i, end, text, closed)
            if closed and text.endswith("${"):
                braces.append("${")
                prev = "{"
            else:
                prev = "`"
            i = end
            continue
        if c == "/" and _regex_allowed(prev):
            end, closed = _end_of_regex(code, i)
            yield Token("regex", i, end, code[i:end], closed)
            i, prev = end, ")"  # a regex literal behaves like a value
            continue
        if _is_word_char(c):
            j = i
            while j < n and _is_word_char(code[j]):
                j += 1
            yield Token("word", i, j, code[i:j])
            i, prev = j, code[i:j]
            continue
        if c == "{":
            braces.append("{")
        elif c == "}" and braces:
            braces.pop()
        yield Token("punct", i, i + 1, c)
        i, prev = i + 1, c


__all__ = ["Token", "tokens"]
