"""Source preparation and compile-time error texts in Codex's (V8's) words.

QuickJS and V8 word syntax errors differently; Codex shows V8's bare message with no
location (recorded from Codex 0.171's host: ``SyntaxError: Unexpected token '='``,
``SyntaxError: Illegal return statement``, ``SyntaxError: Unexpected end of input``).
This module maps a QuickJS ``JSException`` text (``SyntaxError: <msg>\\n    at
<input>:L:C``) onto V8's text by looking at the token at the reported position, and
turns QuickJS's ``could not load module 'x'`` into Codex's
``Unsupported import in exec: x``.
"""

from __future__ import annotations

import re

_DYNAMIC_IMPORT_HELPER = '\n;function __cm_dynamic_import() { return Promise.reject("unsupported import in exec"); }\n'
_LOCATION = re.compile(r"^\s*at (?:.*\()?<input>:(\d+):(\d+)\)?\s*$", re.M)
_IDENT = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_NUMBER = re.compile(r"(?:0[xXoObB][0-9a-fA-F_]+|\d[\d_]*\.?\d*(?:[eE][+-]?\d+)?|\.\d+)n?")
_PUNCT = re.compile(
    r">>>=|\.\.\.|===|!==|\*\*=|<<=|>>=|>>>|&&=|\|\|=|\?\?=|=>|==|!=|<=|>=|&&|\|\||\?\?|\?\.|"
    r"\+\+|--|\+=|-=|\*=|/=|%=|&=|\|=|\^=|\*\*|<<|>>|[{}()\[\];,<>+\-*/%&|^!~?:=.@#]"
)
_RESERVED = frozenset(
    "await break case catch class const continue debugger default delete do else enum export "
    "extends false finally for function if import in instanceof new null return super switch "
    "this throw true try typeof var void while with yield let static implements interface "
    "package private protected public".split()
)


def prepare_source(source: str) -> str:
    """The cell source as handed to QuickJS.

    NUL characters and lone surrogates cannot pass the binding's C string interface;
    they become ``\\u`` escapes (valid inside string literals, where they belong). When
    the source calls ``import(...)``, a hoisted module-local function is appended (no
    line or column moves) and the calls are redirected to it, so dynamic imports reject
    with Codex's string ``unsupported import in exec``.
    """
    text = re.sub("[\x00\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", source)
    if re.search(r"\bimport\s*\(", text):
        text = _rewrite_dynamic_imports(text)
    return text


def _rewrite_dynamic_imports(text: str) -> str:
    """Replace ``import(`` outside strings and comments by a same-line helper call."""
    out: list[str] = []
    i = 0
    n = len(text)
    changed = False
    while i < n:
        c = text[i]
        if c in "'\"`":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(text[i:j])
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(text[i:j])
            i = j
            continue
        m = re.compile(r"import(\s*)\(").match(text, i)
        if m and (i == 0 or not re.match(r"[A-Za-z0-9_$.]", text[i - 1])):
            out.append("__cm_dynamic_import" + m.group(1) + "(")
            i = m.end()
            changed = True
            continue
        out.append(c)
        i += 1
    result = "".join(out)
    return result + _DYNAMIC_IMPORT_HELPER if changed else text


def _token_at(source: str, line: int, col: int) -> str | None:
    """The token starting at 1-based ``line``/``col``; None at the end of input."""
    lines = source.split("\n")
    if line < 1 or line > len(lines):
        return None
    offset = sum(len(x) + 1 for x in lines[: line - 1]) + col - 1
    rest = source[offset:]
    stripped = rest.lstrip()
    if not stripped:
        return None
    return stripped


def _describe_token(rest: str | None) -> str:
    """V8's ``Unexpected ...`` message for the token at the front of ``rest``."""
    if rest is None:
        return "Unexpected end of input"
    if rest[0] in "'\"":
        end = rest.find(rest[0], 1)
        if end < 0 or "\n" in rest[1:end]:
            return "Invalid or unexpected token"
        return "Unexpected string"
    if rest[0] == "`":
        return "Unexpected template string"
    m = _IDENT.match(rest)
    if m:
        word = m.group()
        if word in _RESERVED:
            return f"Unexpected token '{word}'"
        return f"Unexpected identifier '{word}'"
    m = _NUMBER.match(rest)
    if m and m.group():
        return "Unexpected number"
    m = _PUNCT.match(rest)
    if m:
        return f"Unexpected token '{m.group()}'"
    return "Invalid or unexpected token"


def _previous_identifier(source: str, line: int, col: int) -> str | None:
    lines = source.split("\n")
    if line < 1 or line > len(lines):
        return None
    offset = sum(len(x) + 1 for x in lines[: line - 1]) + col - 1
    names = _IDENT.findall(source[:offset])
    names = [n for n in names if n not in _RESERVED]
    return names[-1] if names else None


_STRICT_RESERVED = frozenset("implements interface let package private protected public static yield".split())
_DIRECT = {
    "unexpected end of regexp": "Invalid regular expression: missing /",
    "invalid assignment left-hand side": "Invalid left-hand side in assignment",
    "cannot delete a direct reference in strict mode": "Delete of an unqualified identifier in strict mode.",
    "invalid keyword: with": "Strict mode code may not include a with statement",
    "assignment rest property must be last": "Rest element must be last element",
    "new.target only allowed within functions": "new.target expression is not allowed here",
    "unexpected 'yield' keyword": "Unexpected strict mode reserved word",
    "break must be inside loop or switch": "Illegal break statement",
    "continue must be inside loop": "Illegal continue statement: no surrounding iteration statement",
    "return not in a function": "Illegal return statement",
    "unexpected end of input": "Unexpected end of input",
    "unexpected end of comment": "Unexpected end of input",
}
_NOT_CALLS = frozenset("if for while switch catch with function return typeof await in of new delete void".split())


def _offset(source: str, line: int | None, col: int | None) -> int | None:
    if line is None or col is None:
        return None
    lines = source.split("\n")
    if line < 1 or line > len(lines):
        return None
    return sum(len(x) + 1 for x in lines[: line - 1]) + col - 1


def _inside_call_arguments(source: str, offset: int) -> bool:
    """True when ``offset`` lies in the argument list of an unclosed call ``f(...``."""
    stack: list[int] = []
    i = 0
    end = min(offset, len(source))
    while i < end:
        c = source[i]
        if c in "'\"`":
            j = i + 1
            while j < end and source[j] != c:
                j += 2 if source[j] == "\\" else 1
            i = j + 1
            continue
        if source.startswith("//", i):
            j = source.find("\n", i)
            i = end if j < 0 else j
            continue
        if source.startswith("/*", i):
            j = source.find("*/", i + 2)
            i = end if j < 0 else j + 2
            continue
        if c in "([{":
            stack.append(i)
        elif c in ")]}" and stack:
            stack.pop()
        i += 1
    if not stack or source[stack[-1]] != "(":
        return False
    j = stack[-1] - 1
    while j >= 0 and source[j].isspace():
        j -= 1
    if j < 0:
        return False
    if source[j] in ")]":
        return True
    m = re.search(r"[A-Za-z0-9_$]+$", source[: j + 1])
    if not m:
        return False
    word = m.group()
    before = source[: m.start()].rstrip()
    return word not in _NOT_CALLS and not before.endswith("function") and not before.endswith("function*")


def syntax_message(message: str, source: str, line: int | None, col: int | None) -> str:
    """V8's text for a QuickJS ``SyntaxError`` message at ``line``/``col`` (1-based).

    Known QuickJS wordings are mapped directly; a generic parse failure is described
    from the token at the reported position (``Unexpected token 'X'``,
    ``Unexpected identifier 'x'``, ``Unexpected end of input``, …), and inside an
    unclosed call V8's ``missing ) after argument list`` is used.
    """
    offset = _offset(source, line, col)
    rest = _token_at(source, line or 0, col or 0) if offset is not None else None
    if message in _DIRECT:
        return _DIRECT[message]
    if message == "unexpected end of string":
        return "Unexpected end of input" if rest is not None and rest.startswith("`") else "Invalid or unexpected token"
    if message in ("unexpected end of template", "unterminated string"):
        return "Invalid or unexpected token"
    if message.startswith("invalid redefinition of") or message.endswith("already declared"):
        name = _previous_identifier(source, line or 0, col or 0)
        if name:
            return f"Identifier '{name}' has already been declared"
    if message == "duplicate label name" and rest is not None:
        m = _IDENT.match(rest)
        if m:
            return f"Label '{m.group()}' has already been declared"
    if message == "Octal literals are not allowed in strict mode" and rest is not None:
        m = _NUMBER.match(rest)
        if m and re.search("[89]", m.group()):
            return "Decimals with leading zeros are not allowed in strict mode."
        return "Octal literals are not allowed in strict mode."
    if message == "missing initializer for variable":
        return "Missing initializer in const declaration"
    if message == "variable name expected" and rest is not None:
        m = _IDENT.match(rest)
        word = m.group() if m else ""
        if word in ("await", "enum"):
            return "Unexpected reserved word"
        before = source[:offset].rstrip() if offset is not None else ""
        if word in _RESERVED and before.endswith("let"):
            return "Unexpected strict mode reserved word"
    m = re.match(r"unexpected token in expression: '(.*)'$", message)
    if m:
        token = m.group(1)
        if token == "":
            return "Unexpected end of input"
        if token in _STRICT_RESERVED:
            return "Unexpected strict mode reserved word"
        if token.startswith("#"):
            return f"Private field '{token}' must be declared in an enclosing class"
        if token == "@":
            return "Invalid or unexpected token"
    if message == "invalid number literal" and offset is not None and source[:offset].rstrip().endswith("let"):
        return "Unexpected strict mode reserved word"
    if message.startswith("Unexpected ") and offset is not None and _inside_call_arguments(source, offset):
        # QuickJS already words these like V8, except inside an unclosed call.
        return "missing ) after argument list"
    if message[:1].isupper():
        return message
    if offset is not None:
        return _describe_token(rest)
    return message[:1].upper() + message[1:]


_STATIC_IMPORT = re.compile(r"""^\s*(?:import|export)\b[^'"`;]*?(?:\bfrom\s*)?['"]([^'"]+)['"]""", re.M)


def first_static_import(source: str) -> str | None:
    """The specifier of the first static ``import``/``export … from`` in ``source``."""
    m = _STATIC_IMPORT.search(source)
    return m.group(1) if m else None


def compile_error_text(exception_text: str, source: str, compile_time: bool) -> str:
    """The ``error_text`` for an exception that escaped QuickJS.

    ``exception_text``: the binding's ``JSException`` text, ``Name: message`` then
    QuickJS frames. At compile time a ``SyntaxError`` becomes V8's bare message and a
    failed static import Codex's ``Unsupported import in exec: <specifier>``.
    """
    head, _, rest = exception_text.partition("\n")
    m = re.match(r"ReferenceError: could not load module '(.*)'$", head)
    if m:
        return f"Unsupported import in exec: {first_static_import(source) or m.group(1)}"
    if compile_time and head.startswith("SyntaxError: "):
        loc = _LOCATION.search(rest)
        line, col = (int(loc.group(1)), int(loc.group(2))) if loc else (None, None)
        return "SyntaxError: " + syntax_message(head[len("SyntaxError: ") :], source, line, col)
    if "interrupted" in head:
        return head
    return head
