"""A bash script as the simple commands it runs, parsed with tree-sitter-bash as Codex parses it.

Codex reads ``bash -lc`` scripts with tree-sitter-bash (``codex-rs/shell-command/src/bash.rs``,
``try_parse_word_only_commands_sequence``) and trusts only what reduces to plain words; this
module does the same, in two shapes:

- :func:`plain_commands`: Codex's word-only sequence. Plain words, quoted strings without
  expansions, joined by ``&&``, ``||``, ``;`` and ``|``; anything else (a redirection, a
  substitution, a subshell, ``&``, an assignment, a comment, a brace expansion) gives None.
  Stricter than Codex in two places, as this project always was: a trailing ``;`` and commands
  on separate lines give None too.
- :func:`simple_commands`: every simple command of any script, wherever it sits (in a subshell,
  a ``$(...)``, an ``if``, a function body), with its words as bash passes them (quotes removed,
  ``\\`` escapes and ``$'...'`` decoded, ``\\`` + newline joined) and ``None`` for a word the
  script decides only when it runs (``$VAR``, ``$(...)``, ``{a,b}`` brace expansion), and with
  the text it reads on standard input when the script itself decides it (a ``<<<`` here-string,
  a here-document, the output of an ``echo`` or ``printf`` of plain words piped into it).

:func:`read_script` gives the simple commands with the script's other literal strings, which
bash may evaluate later (:class:`Script`).

Words: :class:`Pattern` marks an unquoted word with ``*``, ``?`` or ``[``, which bash replaces
by the file names it matches. Standard input: :data:`Input`.

tree-sitter-bash 0.25 is not bash everywhere. Where a comparison with bash (every argv bash
runs, tests/codemode/sandbox/test_shell_parse.py) found it reading otherwise, the tree is
mended (a word split in two nodes, words after a redirection's target, a reserved word read as
a command name, a backquoted command) or refused as misread (:func:`_misread`): both functions
then give None, as for a script it cannot parse.

One parser serves the process (created on first use); parsing is guarded by a lock, since a
tree-sitter parser is not safe to share between threads.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field, replace

import tree_sitter
import tree_sitter_bash


class Pattern(str):
    """An unquoted word with a glob character (``*.o``): bash replaces it by the matching file
    names (which may start with ``-``), or keeps it when nothing matches."""


Word = str | None
"""A word of a command as bash passes it, or None when the script decides it only when it runs."""

Input = tuple[str, ...] | None
"""What a command reads on standard input: the texts it may be (an ``echo`` is read both with
and without its escapes decoded, as bash's and dash's ``echo`` differ), ``()`` when that is a
file or the caller's input (nothing the script itself decides), or None when the script
decides it only when it runs (the output of ``cat file`` or ``ls`` piped into it)."""

OUTSIDE: Input = ()
"""Standard input that comes from outside the script: ``exec_command`` gives ``/dev/null``."""


@dataclass(frozen=True)
class SimpleCommand:
    """One simple command: its ``words`` (the program first), what it reads on ``stdin``, and
    whether its output is ``captured`` by a ``$(...)``, a backquote or a ``<(...)`` (a word or a
    file of another command, which may evaluate it)."""

    words: tuple[Word, ...]
    stdin: Input
    captured: bool = field(default=False, compare=False)
    partial: tuple[str, ...] = field(default=(), compare=False)
    """The literal texts of its words with expansions, which are None (``"rm -f $x"``)."""


_lock = threading.Lock()
_parser: tree_sitter.Parser | None = None


def _parse(script: str) -> tuple[tree_sitter.Node, bytes]:
    """The root node of ``script`` and the bytes it points into (one parser for the process)."""
    global _parser
    data = script.encode("utf-8", "surrogatepass")
    with _lock:
        if _parser is None:
            _parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        return _parser.parse(data).root_node, data


_RAW_NEWLINE = re.compile(rb"(?:^|[^\\])(?:\\\\)*\n")
"""A newline not escaped by a backslash."""
_RAW_BLANK = re.compile(rb"(?:^|[^\\])(?:\\\\)*[ \t\n]")
"""A blank or newline not escaped by a backslash: it ends a plain word."""


_ONE_LINE = frozenset({"command", "declaration_command", "unset_command"})
_TEXT_NODES = frozenset({"string", "heredoc_body", "heredoc_redirect", "raw_string", "ansi_c_string", "comment"})
"""Nodes whose text between their children is their own text, not blanks."""
_STATEMENT_NODES = frozenset(
    "program list pipeline command command_name redirected_statement subshell compound_statement "
    "if_statement elif_clause else_clause while_statement for_statement case_statement case_item do_group "
    "function_definition negated_command declaration_command unset_command file_redirect herestring_redirect".split()
)
"""Nodes whose text between their children can only be blanks and line continuations."""
_EXPANSIONS = frozenset({"expansion", "arithmetic_expansion", "arithmetic_command", "test_command"})
"""Nodes with a grammar of their own (``${x:-a b}``, ``$((1 + 2))``, ``[[ -f x ]]``), whose text
is not checked for misreadings (the commands substituted inside them are)."""
_BLANKS = re.compile(rb"(?:[ \t\n]|\\\n)*")
_DROPPED = re.compile(rb"\\[^\n]")
"""A backslash between nodes escaping something other than a newline: a word left out."""


def _misread(root: tree_sitter.Node, data: bytes) -> bool:
    """True when tree-sitter-bash 0.25's tree is not bash's, in one of the ways a comparison with
    bash found (each hid a forced delete):

    - a plain word (or a here-document's delimiter) holding an unescaped blank or newline
      (``ls<newline>\\rm -f x`` read as ``ls`` with the word ``<newline>\\rm``;
      ``! { { x; }; }`` with a word ``{ {``; ``'r'\\ <<E`` with a delimiter ``\\ <<E``);
    - a newline between the parts of a command (``a | b | sh<newline>ls && ls``: ``ls`` a
      word of ``sh``);
    - a comment whose ``#`` starts no word for bash (``ls\\<newline>#;rm -f x`` is
      ``ls#;rm -f x``; ``ls \\ #;rm -f x`` has the word `` #``);
    - a digit right before a redirection, which bash reads as its descriptor
      (``sh\\<newline> 2>x``: tree-sitter makes ``2`` a word, ``sh``'s script file);
    - an assignment running on into the next word (``x=1\\<newline>a rm -f y`` assigns ``1a``);
    - text left out of every node: an escaped blank (``bash \\  -c '...'``: bash has a word
      `` ``), a lone ``-`` (``- 2>&1``);
    - a redirection with words after its target on a statement that is not a command;
    - an operator of no width (tree-sitter assumed it)."""
    stack = [(root, False)]
    while stack:
        node, in_expansion = stack.pop()
        if node.type in _EXPANSIONS:
            in_expansion = True  # ${x:-a b}: words with blanks, operators of their own
        elif node.type in ("command_substitution", "process_substitution"):
            in_expansion = False
        if in_expansion:
            stack.extend((child, True) for child in node.children)
            continue
        if node.type in ("word", "heredoc_start") and _RAW_BLANK.search(node.text or b""):
            return True
        if node.type == "comment" and not _starts_word(data, node.start_byte):
            return True
        if not node.is_named and node.start_byte == node.end_byte and node.type.strip():
            return True  # an operator tree-sitter assumed but the text lacks (`'r'\\ <<E`)
        if node.type in _REDIRECTS and data[node.start_byte - 1 : node.start_byte].isdigit():
            return True
        children = node.children
        if node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            if (body is None or body.type != "command") and any(
                _run_on(child) for child in children if child.type in _REDIRECTS
            ):
                return True  # `{ ls; } >f rm`: bash refuses it; tree-sitter gives no command
        if node.type not in _TEXT_NODES:
            blank_only = node.type in _STATEMENT_NODES
            gaps = [
                data[before.end_byte : after.start_byte] for before, after in zip(children, children[1:], strict=False)
            ]
            if node.type == "program":  # the script's own edges
                gaps += [data[: children[0].start_byte], data[children[-1].end_byte :]] if children else [data]
            for gap in gaps:
                if _DROPPED.search(gap) or (blank_only and not _BLANKS.fullmatch(gap)):
                    return True
        if node.type in _ONE_LINE:
            for before, after in zip(children, children[1:], strict=False):
                gap = data[before.end_byte : after.start_byte]
                if before.type == "variable_assignment" and _JOINED.fullmatch(gap.decode("latin-1")):
                    return True  # x=1\<newline>a: bash assigns "1a"
                if b"\n" in gap:
                    ending = before.text or b""
                    escaping = (len(ending) - len(ending.rstrip(b"\\"))) % 2  # a backslash ending `before`
                    if _RAW_NEWLINE.search(b"\\" * escaping + gap):
                        return True
        stack.extend((child, False) for child in children)
    return False


def _starts_word(data: bytes, offset: int) -> bool:
    """True when a ``#`` at ``offset`` starts a word, and so a comment (bash manual, "Comments"):
    at the start, or after an unescaped blank, newline or operator character."""
    if offset == 0:
        return True
    if data[offset - 1 : offset] not in (b" ", b"\t", b"\n", b";", b"&", b"|", b"(", b")", b"<", b">"):
        return False
    before = data[: offset - 1]
    return (len(before) - len(before.rstrip(b"\\"))) % 2 == 0


def _text(node: tree_sitter.Node) -> str:
    return (node.text or b"").decode("utf-8", "surrogatepass")


# ---------------------------------------------------------------- escapes

_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.)|(.))", re.S)
_SIMPLE_ESCAPES = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
    "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def decode_escapes(text: str) -> str:
    """``text`` with bash's backslash escapes decoded, as in ``$'...'`` (bash manual,
    "ANSI-C Quoting"): ``\\n``, ``\\t``, ``\\e``, octal ``\\nnn``, ``\\xHH``, ``\\uHHHH``,
    ``\\UHHHHHHHH``, ``\\cX`` (control-X). ``printf``'s format and ``echo -e`` use the same
    escapes (``\\0nnn`` reads as octal ``0nn`` here; the result differs only in which octal
    escapes are meant). An unknown escape keeps its backslash."""

    def one(match: re.Match[str]) -> str:
        octal, hex2, u4, u8, control, other = match.groups()
        if octal is not None:
            return chr(int(octal, 8) & 0xFF)
        if hex2 is not None:
            return chr(int(hex2, 16))
        if u4 is not None or u8 is not None:
            code = int(u4 or u8, 16)
            return chr(code) if code <= 0x10FFFF else match.group()
        if control is not None:
            return chr(ord(control) & 0x1F)
        return _SIMPLE_ESCAPES.get(other, match.group())

    return _ESCAPE.sub(one, text)


# ---------------------------------------------------------------- words

_BRACE_EXPANSION = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
"""An unquoted ``{a,b}`` or ``{1..3}`` (bash manual, "Brace Expansion"), matched on a word's
shape, in which quoted and escaped characters are blanked out."""
_GLOB = frozenset("*?[")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
"""A word that bash takes for a ``NAME=value`` (or ``NAME+=value``) assignment before a command."""
_JOINED = re.compile(r"(?:\\\n)*")
"""What may stand between two nodes that are one word for bash: nothing, or line continuations."""
_DOUBLE_QUOTE_ESCAPE = re.compile(r"\\([$`\"\\\n])")


def _unquoted(text: str) -> tuple[str, str, bool]:
    """An unquoted word's value, its shape (escaped characters blanked) and whether an unescaped
    glob character is in it."""
    value, shape, glob = [], [], False
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            escaped = text[index + 1]
            if escaped != "\n":  # a backslash-newline is removed (a line continuation)
                value.append(escaped)
                shape.append("_")
            index += 2
            continue
        value.append(char)
        shape.append(char)
        glob = glob or char in _GLOB
        index += 1
    return "".join(value), "".join(shape), glob


def _part(node: tree_sitter.Node) -> tuple[str, str, bool] | None:
    """(value, shape, has a glob character) of one part of a word, or None when the script
    decides it only when it runs."""
    kind, text = node.type, _text(node)
    if kind in ("word", "number"):
        return None if node.named_child_count else _unquoted(text)
    if kind == "raw_string":  # '...'
        return text[1:-1], "_" * (len(text) - 2), False
    if kind == "ansi_c_string":  # $'...'
        value = decode_escapes(text[2:-1])
        return value, "_" * len(value), False
    if kind == "string":  # "...": only literal text inside, no expansion
        if any(child.type != "string_content" for child in node.named_children):
            return None
        value = _DOUBLE_QUOTE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text[1:-1])
        return value, "_" * len(value), False
    if kind == "concatenation":
        if any(not child.is_named for child in node.children):
            return None
        parts = [_part(child) for child in node.named_children]
        if any(part is None for part in parts):
            return None
        known = [part for part in parts if part is not None]
        return "".join(p[0] for p in known), "".join(p[1] for p in known), any(p[2] for p in known)
    return None  # $x, ${x}, $(...), `...`, <(...), $((...)), {1..3}, ...


def _word(node: tree_sitter.Node) -> Word:
    """One word's value as bash passes it, or None (see :data:`Word`)."""
    return _finished(_part(node))


def _finished(part: tuple[str, str, bool] | None) -> Word:
    """The word a part makes: None when it is unknown or a brace expansion, a :class:`Pattern`
    when it has a glob character."""
    if part is None:
        return None
    value, shape, glob = part
    if _BRACE_EXPANSION.search(shape):
        return None
    return Pattern(value) if glob else value


_REDIRECTS = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})
_WORD_KINDS = frozenset(
    "word string raw_string ansi_c_string translated_string number concatenation simple_expansion expansion "
    "command_substitution process_substitution arithmetic_expansion brace_expression".split()
)


def _words(parent: tree_sitter.Node, children: list[tree_sitter.Node]) -> tuple[Word, ...]:
    """The words ``children`` (of ``parent``) make. Nodes that tree-sitter-bash 0.25 splits
    with nothing or only a backslash-newline between them are one word for bash
    (``r\\<newline>m`` and ``'r'\\m`` are ``rm``), and are joined here."""
    spans: list[tuple[int, tuple[str, str, bool] | None]] = []  # (end byte, part)
    for child in children:
        target = child.named_children[0] if child.type == "command_name" and child.named_child_count else child
        part = _part(target) if child.is_named else None  # an operator token inside a command: unknown
        if spans and _JOINED.fullmatch(_between(parent, spans[-1][0], child.start_byte)):
            previous = spans.pop()[1]
            if previous is None or part is None:
                part = None
            else:
                part = (previous[0] + part[0], previous[1] + part[1], previous[2] or part[2])
        spans.append((child.end_byte, part))
    return tuple(_finished(part) for _, part in spans)


def _command_words(node: tree_sitter.Node) -> tuple[Word, ...]:
    """The words of a ``command`` node, the program first; redirections and ``NAME=value``
    prefixes are not words, but words a redirection runs on into are (:func:`_run_on`)."""
    own = _words(node, [child for child in node.children if child.type not in _REDIRECTS | {"variable_assignment"}])
    return own + tuple(word for child in node.children if child.type in _REDIRECTS for word in _run_on_words(child))


def _run_on(redirect: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The words tree-sitter-bash 0.25 puts in a redirection after its target: in
    ``rm >/dev/null -f x`` and ``rm <<EOF -f x``, ``-f x`` are ``rm``'s arguments for bash."""
    words = [child for child in redirect.named_children if child.type in _WORD_KINDS]
    return words if redirect.type == "heredoc_redirect" else words[1:]


def _run_on_words(redirect: tree_sitter.Node) -> tuple[Word, ...]:
    return _words(redirect, _run_on(redirect))


RESERVED_WORDS = frozenset(
    "! { } ( ) if then else elif fi do done while until for select case esac in function".split()
)
"""Bash's reserved words (bash manual, "Reserved Words"), and the parentheses."""


def _program_and_arguments(node: tree_sitter.Node, more: tuple[Word, ...] = ()) -> tuple[Word, ...]:
    """A command's words without the ``NAME=value`` assignments and reserved words that lead
    them. tree-sitter sees most assignments as such, but not ``r\\<newline>m=1 rm -f x``
    (bash assigns ``rm=1`` and runs ``rm``); and it reads ``! { rm -f x; }`` as a command ``{``
    with the words ``rm -f x``, where bash runs ``rm -f x``. ``more``: words that the
    redirections of an enclosing redirected statement run on into."""
    words = _command_words(node) + more
    index = 0
    while index < len(words) and words[index] is not None:
        word = str(words[index])
        if not (word in RESERVED_WORDS or ASSIGNMENT.match(word)):
            break
        index += 1
    return words[index:]


def _between(node: tree_sitter.Node, start: int, end: int) -> str:
    data = node.text or b""
    return data[start - node.start_byte : end - node.start_byte].decode("utf-8", "surrogatepass")


# ---------------------------------------------------------------- Codex's word-only sequence

_PLAIN_KINDS = frozenset(
    "program list pipeline command command_name word string string_content raw_string number concatenation".split()
)
_PLAIN_TOKENS = frozenset({"&&", "||", ";", "|", '"'})


def plain_commands(script: str) -> list[list[str]] | None:
    """The commands of ``script`` when it is only plain commands joined by ``&&``, ``||``,
    ``;`` or ``|`` (Codex's ``try_parse_word_only_commands_sequence``, with its node kinds and
    operator tokens), else None. Also None: a parse error, a trailing ``;``, commands on
    separate lines, a word bash would expand (``{a,b}``)."""
    root, data = _parse(script)
    if root.has_error or not root.named_child_count or _misread(root, data):
        return None
    expect_statement = True
    for child in root.children:  # statement (";" statement)*: no newline separator, no trailing ";"
        if child.is_named != expect_statement:
            return None
        expect_statement = not expect_statement
    if expect_statement:
        return None
    stack, commands = [root], []
    while stack:
        node = stack.pop()
        if node.is_named and node.type not in _PLAIN_KINDS:
            return None
        if not node.is_named and node.type not in _PLAIN_TOKENS:
            return None
        if node.type == "command":
            commands.append(node)
        stack.extend(node.children)
    result = []
    for command in sorted(commands, key=lambda n: n.start_byte):
        words = _command_words(command)
        if any(word is None for word in words) or ASSIGNMENT.match(words[0] or ""):
            return None  # an assignment tree-sitter did not see as one (N\\<newline>AME=x)
        result.append([word for word in words if word is not None])
    return result


# ---------------------------------------------------------------- every simple command

_STDIN_OPERATORS = frozenset({"<", "<&", "<>"})


def simple_commands(script: str, stdin: Input = OUTSIDE) -> list[SimpleCommand] | None:
    """Every simple command of ``script`` in source order (see the module docstring), or None
    when tree-sitter-bash cannot parse it (or misreads it, :func:`_misread`). ``stdin`` is what the script itself reads."""
    parsed = read_script(script, stdin)
    return None if parsed is None else parsed.commands


@dataclass(frozen=True)
class Script:
    """A script's simple commands (:func:`simple_commands`) and its other ``texts``: the literal
    strings that are neither a command's words nor its standard input, which bash may evaluate
    later as a script (an assignment's value, ``PS4='$(...)'``, ``x='a[$(...)]'`` evaluated
    by ``$((x))``; a string inside an expansion, ``${a['$(...)']}``, ``${x:-`...`}``; an
    argument of ``declare``, ``unset``, ``[[ ]]``), and each unquoted here-document's body as a
    double-quoted string (bash expands it now: its ``$(...)`` and backquotes run; tree-sitter-bash
    0.25 misses backquotes there and substitutions after a ``<<-`` tab)."""

    commands: list[SimpleCommand]
    texts: list[str]


def read_script(script: str, stdin: Input = OUTSIDE) -> Script | None:
    """``script`` read as a :class:`Script`, or None as for :func:`simple_commands`."""
    root, data = _parse(script)
    if root.has_error or _misread(root, data):
        return None
    found: list[tuple[int, SimpleCommand]] = []
    texts: list[tuple[int, str]] = []
    try:
        _walk(root, stdin, found, texts)
    except _Unreadable:
        return None
    return Script(
        [command for _, command in sorted(found, key=lambda item: item[0])],
        [text for _, text in sorted(texts, key=lambda item: item[0])],
    )


_LITERAL_KINDS = frozenset({"word", "raw_string", "ansi_c_string", "string", "concatenation"})


def _own_literals(node: tree_sitter.Node) -> set[tuple[int, int]]:
    """The spans of the nodes of a command (or redirected statement) that are its words or its
    standard input: their texts are judged with the command (``echo '$(x)'`` only prints)."""
    spans = set()
    for child in node.children:
        if child.type == "command_name" and child.named_child_count:
            child = child.named_children[0]
        if child.type in _LITERAL_KINDS:
            spans.add((child.start_byte, child.end_byte))
        elif child.type in _REDIRECTS:
            for part in child.named_children:
                if child.type != "file_redirect" or part.type in _LITERAL_KINDS:
                    spans.add((part.start_byte, part.end_byte))
    return spans


def _partial(node: tree_sitter.Node) -> str:
    """The literal text of a word with expansions, which are left out (``"a[\\$(rm -f x)]$y"``
    gives ``a[$(rm -f x)]``, ``'rm -f '"$x"`` gives ``rm -f ``): what they add is unknown."""
    if node.type == "string_content":
        return _DOUBLE_QUOTE_ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), _text(node))
    if node.type in ("string", "concatenation"):
        return "".join(_partial(child) for child in node.named_children)
    part = _part(node) if node.type in _LITERAL_KINDS else None
    return "" if part is None else part[0]


def _partial_texts(node: tree_sitter.Node) -> tuple[str, ...]:
    """The literal texts (:func:`_partial`) of a command's words and here-strings that have
    expansions (their words are None)."""
    parts = [child for child in node.children if child.type in ("string", "concatenation")]
    parts += [
        part
        for child in node.children
        if child.type == "herestring_redirect"
        for part in child.named_children
        if part.type in ("string", "concatenation")
    ]
    return tuple(text for text in (_partial(part) for part in parts if _part(part) is None) if text)


def _captured(node: tree_sitter.Node) -> bool:
    """True when ``node`` is inside a ``$(...)`` or ``<(...)``: its output is captured."""
    parent = node.parent
    while parent is not None:
        if parent.type in ("command_substitution", "process_substitution"):
            return True
        parent = parent.parent
    return False


def _heredoc_now(node: tree_sitter.Node) -> str | None:
    """An unquoted here-document body as the double-quoted string bash expands it like, or None
    for a quoted one (bash manual, "Here Documents")."""
    start = next((child for child in node.children if child.type == "heredoc_start"), None)
    body = next((child for child in node.named_children if child.type == "heredoc_body"), None)
    if start is None or body is None or re.search(r"[\\'\"]", _text(start)):
        return None
    return '"' + _text(body).replace('"', '\\"') + '"'


class _Unreadable(Exception):
    """A part of the script (a backquoted command) that cannot be read."""


_BARE_BACKQUOTE = re.compile(r"(?:^|[^\\])(?:\\\\)*`")
_BACKQUOTE_ESCAPE = re.compile(r"\\([\\`$])")


def _walk(
    root: tree_sitter.Node, stdin: Input, found: list[tuple[int, SimpleCommand]], texts: list[tuple[int, str]]
) -> None:
    """Collect the simple commands and other texts (:class:`Script`) under ``root`` (a loop with
    a stack: nesting depth is the script's to choose)."""
    stack: list[tuple[tree_sitter.Node, Input]] = [(root, stdin)]
    run_on: dict[int, tuple[Word, ...]] = {}  # a command's words in its statement's redirections
    own: set[tuple[int, int]] = set()  # spans of commands' words and standard input
    while stack:
        node, stdin = stack.pop()
        kind = node.type
        if kind in _LITERAL_KINDS:
            value = _part(node)
            if (node.start_byte, node.end_byte) in own:  # and so are its parts ('a'$x'b')
                own |= {(child.start_byte, child.end_byte) for child in node.children}
            elif value is not None:
                texts.append((node.start_byte, value[0]))
            if value is not None:
                continue  # a literal's parts are in its value
            if kind in ("string", "concatenation") and (node.start_byte, node.end_byte) not in own:
                texts.append((node.start_byte, _partial(node)))
        elif kind == "heredoc_redirect":
            now = _heredoc_now(node)
            if now is not None:
                texts.append((node.start_byte, now))
        if kind == "command":
            own |= _own_literals(node)
            words = _program_and_arguments(node, run_on.get(node.start_byte, ()))
            found.append(
                (node.start_byte, SimpleCommand(words, _redirected(node, stdin), _captured(node), _partial_texts(node)))
            )
            # Then the substitutions inside its words, assignments and redirections.
            stack.extend((child, stdin) for child in node.named_children)
        elif kind == "pipeline":
            stack.extend(_pipeline(node, stdin, None))
        elif kind == "command_substitution" and node.children and node.children[0].type == "`":
            # Inside `...`, bash removes the backslash before \, ` and $ first, then reads the
            # rest as a script: `r\\m -f x` runs rm (bash manual, "Command Substitution").
            text = _text(node)[1:-1]
            if _BARE_BACKQUOTE.search(text):
                raise _Unreadable  # bash ends `...` at the first bare backquote, quoted or not
            inner = read_script(_BACKQUOTE_ESCAPE.sub(r"\1", text), stdin)
            if inner is None:
                raise _Unreadable
            found.extend((node.start_byte + 1, replace(command, captured=True)) for command in inner.commands)
            texts.extend((node.start_byte + 1, text) for text in inner.texts)
        elif kind == "redirected_statement":
            body = node.child_by_field_name("body")
            body_stdin = _redirected(node, stdin)
            if body is not None and body.type == "command":
                own |= _own_literals(node)
                run_on[body.start_byte] = tuple(
                    word for child in node.named_children if child.type in _REDIRECTS for word in _run_on_words(child)
                )
            for child in node.named_children:
                if child == body:
                    stack.append((child, body_stdin))
                elif child.type == "heredoc_redirect" and body is not None:
                    now = _heredoc_now(child)
                    if now is not None:
                        texts.append((child.start_byte, now))
                    # `cat <<EOF | sh`: tree-sitter puts the rest of the pipeline in the heredoc.
                    for part in child.named_children:
                        if part.type == "pipeline":
                            stack.extend(_pipeline(part, stdin, _output(body, body_stdin)))
                        else:
                            stack.append((part, stdin))
                else:
                    stack.append((child, stdin))
        else:
            stack.extend((child, stdin) for child in node.named_children)


def _pipeline(node: tree_sitter.Node, stdin: Input, previous: Input) -> list[tuple[tree_sitter.Node, Input]]:
    """The elements of a pipeline with what each reads: the output of the one before it, known
    only for an ``echo`` or ``printf`` of plain words (or a ``cat`` of known input);
    ``previous`` is the output before the node's first ``|``, if any."""
    elements, piped = [], False
    for child in node.children:
        if child.type in ("|", "|&"):
            piped = True
        elif child.is_named:
            element_stdin = previous if piped else stdin
            elements.append((child, element_stdin))
            previous, piped = _output(child, element_stdin), False
    return elements


def _redirected(node: tree_sitter.Node, stdin: Input) -> Input:
    """What ``node`` (a command or a redirected statement) reads once its own redirections of
    standard input are applied (``<<<``, ``<<``, ``<``, in order: the last one wins)."""
    for child in node.named_children:
        if child.type == "herestring_redirect":
            words = [_word(part) for part in child.named_children]
            stdin = None if len(words) != 1 or words[0] is None else (words[0] + "\n",)
        elif child.type == "heredoc_redirect":
            stdin = _heredoc(child)
        elif child.type == "file_redirect":
            descriptor = child.child_by_field_name("descriptor")
            operator = next((part.type for part in child.children if not part.is_named), "")
            if operator in _STDIN_OPERATORS and (descriptor is None or _text(descriptor) == "0"):
                stdin = _substituted_output(child)
    return stdin


def _substituted_output(redirect: tree_sitter.Node) -> Input:
    """What ``< target`` reads: a file (:data:`OUTSIDE`), or for ``< <(...)`` the output of the
    process substitution, as for a pipe (``bash < <(echo 'rm -f x')`` reads ``rm -f x``)."""
    target = redirect.child_by_field_name("destination")
    if target is None or target.type != "process_substitution":
        return OUTSIDE
    inner = target.named_children
    return _output(inner[0], OUTSIDE) if len(inner) == 1 else None


def _heredoc(node: tree_sitter.Node) -> Input:
    body = next((child for child in node.named_children if child.type == "heredoc_body"), None)
    if body is None:
        return ("",)
    if any(child.type != "heredoc_content" for child in body.named_children):
        return None  # an expansion in an unquoted here-document
    return (_text(body),)


def _output(node: tree_sitter.Node, stdin: Input) -> Input:
    """What ``node`` writes to standard output, when the script decides it: an ``echo`` or a
    ``printf`` of known words, or a ``cat`` of known input; None otherwise."""
    if node.type == "redirected_statement":
        body = node.child_by_field_name("body")
        if body is None or any(_run_on(child) for child in node.named_children if child.type in _REDIRECTS):
            return None
        return _output(body, _redirected(node, stdin))
    if node.type != "command":
        return None
    words = _command_words(node)
    if not words or any(word is None or isinstance(word, Pattern) for word in words):
        return None  # `echo *` prints file names
    known = [word for word in words if word is not None]
    name, args = known[0].rsplit("/", 1)[-1], known[1:]
    stdin = _redirected(node, stdin)
    if name == "echo":
        return _echo(args)
    if name == "printf":
        printed = _printf(args)
        return None if printed is None else (printed,)
    if name == "cat" and all(arg == "-" for arg in args):
        return stdin
    return None


_ECHO_OPTION = re.compile(r"-[neE]+")


def _echo(args: list[str]) -> tuple[str, ...]:
    """``echo``'s output, both as bash's builtin prints it (escapes only with ``-e``) and as
    dash's (escapes always)."""
    index, newline = 0, "\n"
    while index < len(args) and _ECHO_OPTION.fullmatch(args[index]):
        if "n" in args[index]:
            newline = ""
        index += 1
    text = " ".join(args[index:])
    decoded = decode_escapes(text).split("\\c", 1)[0]
    return tuple(dict.fromkeys((text + newline, decoded + newline)))


_PRINTF_DIRECTIVE = re.compile(r"%(?:%|[-+ #0-9.]*([a-zA-Z]))")


def _printf(args: list[str]) -> str | None:
    """``printf FORMAT ARGS...``'s output for ``%s``, ``%b`` and ``%%`` directives (the format
    repeats while arguments remain, as POSIX says); None for any other directive, or ``-v``."""
    if args and args[0] == "--":
        args = args[1:]
    if not args or args[0].startswith("-"):
        return None
    template, rest = decode_escapes(args[0]), args[1:]
    directives = list(_PRINTF_DIRECTIVE.finditer(template))
    if any(match.group(1) not in (None, "s", "b") for match in directives):
        return None
    out: list[str] = []
    while True:
        used, position = 0, 0
        for match in directives:
            out.append(template[position : match.start()])
            position = match.end()
            if match.group(1) is None:
                out.append("%")
                continue
            value = rest[used] if used < len(rest) else ""
            used += 1
            out.append(decode_escapes(value) if match.group(1) == "b" else value)
        out.append(template[position:])
        rest = rest[used:]
        if not rest or not used:
            return "".join(out)
