"""A bash script as bash reads it, with tree-sitter-bash (Codex's ``bash.rs``): Codex's word-only
sequence, and every simple command with its words and standard input."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from codemode.sandbox.shell_parse import (
    OUTSIDE,
    Pattern,
    SimpleCommand,
    decode_escapes,
    plain_commands,
    simple_commands,
)


@pytest.mark.unit
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


@pytest.mark.unit
def test_an_unquoted_glob_is_a_pattern():
    assert plain_commands("ls *.py '*.md'") == [["ls", "*.py", "*.md"]]
    words = simple_commands("ls *.py '*.md' a\\*")[0].words  # type: ignore[index]
    assert [type(word) for word in words] == [str, Pattern, str, str]


@pytest.mark.unit
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


@pytest.mark.unit
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


@pytest.mark.unit
def test_line_continuations_and_newlines_in_quotes_are_not_misreadings():
    assert simple_commands("ls \\\n -l 'a\nb' \"c\nd\"") == [SimpleCommand(("ls", "-l", "a\nb", "c\nd"), OUTSIDE)]


@pytest.mark.unit
def test_nesting_deeper_than_pythons_stack_is_read():
    script = "( " * 3000 + "rm -f x" + " )" * 3000
    assert simple_commands(script) == [SimpleCommand(("rm", "-f", "x"), OUTSIDE)]


@pytest.mark.unit
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


# simple_commands against bash itself: with no PATH, bash hands every command it runs to
# command_not_found_handle, which appends the argv to a log (not to standard output, which a
# redirection may send elsewhere); quotes, escapes, line continuations, comments and
# redirections must give the same words. Assignments that lead a command are set aside on both
# sides (simple_commands drops NAME=value words even when quoted: the conservative reading).
_HANDLER = (
    'command_not_found_handle() { printf "%s\\x1f" "$@" >>"$ARGV_LOG"; printf "\\x1e" >>"$ARGV_LOG"; return 0; }\n'
    "PATH=/nonexistent\n"
)
_BASH = shutil.which("bash") or "/bin/bash"
_ASSIGNED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def _argvs_run_by_bash(script: str, folder: Path) -> list[tuple[str, ...]] | None:
    """The argvs bash runs for ``script``, in an empty folder (a ``*`` matches nothing)."""
    log, cwd = folder / "argv.log", folder / "empty"
    log.write_bytes(b"")
    cwd.mkdir(exist_ok=True)
    env = {"ARGV_LOG": str(log)}
    done = subprocess.run([_BASH, "-c", _HANDLER + script], capture_output=True, timeout=30, cwd=cwd, env=env)
    if b"syntax error" in done.stderr:
        return None
    records = log.read_bytes().decode("utf-8", "surrogateescape").split("\x1e")[:-1]
    return [tuple(record.split("\x1f")[:-1]) for record in records]


def _without_assignments(argvs) -> list[tuple[str, ...]]:
    out = []
    for argv in argvs:
        index = 0
        while index < len(argv) and _ASSIGNED.match(argv[index]):
            index += 1
        if argv[index:]:
            out.append(tuple(argv[index:]))
    return out


_TEXT = st.sampled_from(["r", "m", "f", "x", "-", "#", "=", "rm", "-f", "a b", "*", "x=1", "\\x2d", "\\n", "\\\\"])
_PIECE = _TEXT.flatmap(
    lambda t: st.sampled_from([t, f"'{t}'", f'"{t}"', f"$'{t}'", f"\\{t}"]) if "\\" not in t else st.just(t)
)
_WORD = st.lists(st.tuples(_PIECE, st.sampled_from(["", "", "\\\n", "''", '""'])), min_size=1, max_size=4).map(
    lambda parts: "".join(a + b for a, b in parts)
)
_COMMAND = st.lists(
    st.tuples(_WORD, st.sampled_from([" ", "\t", " \\\n", " #c\n", " >/dev/null ", " 2>&1 "])), min_size=1, max_size=4
).map(lambda words: "".join(a + b for a, b in words))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    commands=st.lists(st.tuples(_COMMAND, st.sampled_from([";", "\n", " && ", ";\n", " &&\n"])), min_size=1, max_size=3)
)
@example(commands=[("'r'\\m -f x", ";")])  # two nodes for tree-sitter, one word for bash
@example(commands=[("\"a\"\\b 'c'd r\\\nm -\\\nf", ";")])
@example(commands=[("r >/dev/null -f 2>&1 x", ";")])  # the words after a redirection are arguments
@example(commands=[("r - 2>&1 x", ";")])  # tree-sitter leaves the "-" out
@example(commands=[("case x in x) 'r'\\ <<E\nbody\nE\n <<E\nbody\nE\n;; esac", ";")])  # an assumed "<<"
def test_simple_commands_are_the_commands_bash_runs(commands, tmp_path):
    script = "".join(a + b for a, b in commands).rstrip(";&\n \t\\")
    ours = simple_commands(script)
    if not script.strip() or ours is None or any(None in command.words for command in ours):
        return  # refused or decided at run time: judged conservatively, not compared
    theirs = _argvs_run_by_bash(script, tmp_path)
    if theirs is None:
        return
    assert _without_assignments(command.words for command in ours) == _without_assignments(theirs)
