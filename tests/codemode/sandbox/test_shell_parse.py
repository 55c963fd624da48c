"""A bash script as bash reads it, with tree-sitter-bash (Codex's ``bash.rs``): Codex's word-only
sequence, and every simple command with its words and standard input."""

from __future__ import annotations

import pytest

from codemode.sandbox.shell_parse import (
    OUTSIDE,
    Pattern,
    SimpleCommand,
    decode_escapes,
    plain_commands,
    simple_commands,
)


@pytest.mark.parametrize(
    ("script", "commands"),
    [
        # Codex's bash.rs tests (accepts_*, extracts_double_and_single_quoted_strings).
        ("ls -1", [["ls", "-1"]]),
        ("ls && pwd; echo 'hi there' | wc -l", [["ls"], ["pwd"], ["echo", "hi there"], ["wc", "-l"]]),
        ('echo "hello world"', [["echo", "hello world"]]),
        ('git commit -m "line1\nline2"', [["git", "commit", "-m", "line1\nline2"]]),
        ('echo "/usr"\'/\'"local"/bin', [["echo", "/usr/local/bin"]]),
        ("echo 123 456", [["echo", "123", "456"]]),
        ('rg -n "foo" -g"*.py"', [["rg", "-n", "foo", "-g*.py"]]),
        # Bash's own reading of escapes (Codex keeps the backslash).
        ('echo "a\\"b" \\$x', [["echo", 'a"b', "$x"]]),
        ("r\\\nm x", [["rm", "x"]]),
        # Codex's rejects_* tests.
        ('echo "hi ${USER}"', None),
        ('echo "$HOME"', None),
        ("(ls)", None),
        ("ls || (pwd && echo hi)", None),
        ("ls > out.txt", None),
        ("echo hi & echo bye", None),
        ("echo $(pwd)", None),
        ("echo `pwd`", None),
        ("FOO=bar ls", None),
        ("ls &&", None),
        ("&& ls", None),
        ("ls ;; pwd", None),
        ("ls | | wc", None),
        ('rg -g"$VAR" pattern', None),
        # Stricter than Codex: a brace expansion, $'...', a trailing ";", separate lines, a comment.
        ("find . {-delete,-name} x", None),
        ("echo $'x'", None),
        ("ls;", None),
        ("ls\npwd", None),
        ("ls # note", None),
    ],
)
def test_plain_commands(script, commands):
    assert plain_commands(script) == commands


def test_an_unquoted_glob_is_a_pattern():
    assert plain_commands("ls *.py '*.md'") == [["ls", "*.py", "*.md"]]
    words = simple_commands("ls *.py '*.md' a\\*")[0].words  # type: ignore[index]
    assert [type(word) for word in words] == [str, Pattern, str, str]


@pytest.mark.parametrize(
    ("script", "commands"),
    [
        ("rm $'-f' x", [SimpleCommand(("rm", "-f", "x"), OUTSIDE)]),
        ("rm {-f,x} \\{a,b} '{a,b}' {}", [SimpleCommand(("rm", None, "{a,b}", "{a,b}", "{}"), OUTSIDE)]),
        (
            'rm "$f" $x ${y} $(z) `w` $((1))',
            [
                SimpleCommand(("rm", None, None, None, None, None, None), OUTSIDE),
                SimpleCommand(("z",), OUTSIDE),
                SimpleCommand(("w",), OUTSIDE),
            ],
        ),
        ("x=$(rm -f y) ls", [SimpleCommand(("ls",), OUTSIDE), SimpleCommand(("rm", "-f", "y"), OUTSIDE)]),
        (
            "echo 'rm -f x' | bash",
            [SimpleCommand(("echo", "rm -f x"), OUTSIDE), SimpleCommand(("bash",), ("rm -f x\n",))],
        ),
        (
            "echo -e 'a\\tb' | sh",
            [SimpleCommand(("echo", "-e", "a\\tb"), OUTSIDE), SimpleCommand(("sh",), ("a\\tb\n", "a\tb\n"))],
        ),
        (
            "printf '%s %b\\n' x 'y\\tz' | sh",
            [SimpleCommand(("printf", "%s %b\\n", "x", "y\\tz"), OUTSIDE), SimpleCommand(("sh",), ("x y\tz\n",))],
        ),
        (
            "printf '%d' 1 | sh",
            [SimpleCommand(("printf", "%d", "1"), OUTSIDE), SimpleCommand(("sh",), None)],
        ),
        ("ls | sh", [SimpleCommand(("ls",), OUTSIDE), SimpleCommand(("sh",), None)]),
        ("sh <<< 'a b'", [SimpleCommand(("sh",), ("a b\n",))]),
        ("sh <<'E'\na $x\nE", [SimpleCommand(("sh",), ("a $x\n",))]),
        ("sh <<E\na $x\nE", [SimpleCommand(("sh",), None)]),
        ("sh < f", [SimpleCommand(("sh",), OUTSIDE)]),
        (
            "cat <<E | sh\na\nE",
            [SimpleCommand(("cat",), ("a\n",)), SimpleCommand(("sh",), ("a\n",))],
        ),
        # tree-sitter-bash cannot read a brace expansion in a command's place.
        ("{rm,-f,x}", None),
    ],
)
def test_simple_commands(script, commands):
    assert simple_commands(script) == commands


@pytest.mark.parametrize(
    ("script", "commands"),
    [
        ("ls\n\\rm -f x", [SimpleCommand(("ls",), OUTSIDE), SimpleCommand(("rm", "-f", "x"), OUTSIDE)]),
        (
            "ls | echo rm | sh\nls && ls",
            [
                SimpleCommand(("ls",), OUTSIDE),
                SimpleCommand(("echo", "rm"), None),
                SimpleCommand(("sh",), ("rm\n",)),
                SimpleCommand(("ls",), OUTSIDE),
                SimpleCommand(("ls",), OUTSIDE),
            ],
        ),
    ],
)
def test_a_newline_ends_a_command(script, commands):
    """tree-sitter-bash 0.25 reads these newlines as spaces (``\\rm`` and ``ls`` become words
    of the command before); such a tree is refused (None) rather than trusted."""
    assert simple_commands(script) in (None, commands)
    assert plain_commands(script) is None


def test_line_continuations_and_newlines_in_quotes_are_not_misreadings():
    assert simple_commands("ls \\\n -l 'a\nb' \"c\nd\"") == [SimpleCommand(("ls", "-l", "a\nb", "c\nd"), OUTSIDE)]


def test_nesting_deeper_than_pythons_stack_is_read():
    script = "( " * 3000 + "rm -f x" + " )" * 3000
    assert simple_commands(script) == [SimpleCommand(("rm", "-f", "x"), OUTSIDE)]


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("\\x2df", "-f"),
        ("\\055f", "-f"),
        ("a\\tb\\n", "a\tb\n"),
        ("\\e[0m", "\x1b[0m"),
        ("\\u00e9\\U0001F600", "é😀"),
        ("\\cA", "\x01"),
        ("\\'\\\"\\\\", "'\"\\"),
        ("\\q", "\\q"),
    ],
)
def test_decode_escapes(text, decoded):
    assert decode_escapes(text) == decoded
