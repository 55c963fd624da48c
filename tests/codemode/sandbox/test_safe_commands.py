"""Known-safe and dangerous scripts, by Codex's rules (``is_safe_command.rs``,
``is_dangerous_command.rs``), and the plain-command split they rest on."""

from __future__ import annotations

import pytest

from codemode.sandbox.safe_commands import is_dangerous, is_known_safe, plain_commands

KNOWN_SAFE = [
    "ls",
    "ls && pwd",
    "echo 'hi' ; ls",
    "ls | wc -l",
    'grep -R "x" -n || true',
    "cat a.txt b.txt",
    "/usr/bin/ls -la",
    "git status",
    "git log --oneline -5",
    "git diff HEAD~1",
    "git show HEAD",
    "git -C repo status",
    "git --git-dir=.git status",
    "git branch",
    "git branch --show-current",
    "git branch -a -v",
    "git branch --format=x",
    "find . -name x",
    "sed -n 1,5p f",
    "sed -n 10p",
    "rg foo src",
    "base64 f",
    "numfmt --to=iec 1024",
    "tac f",
    "uniq",
    "uniq f",
    "uniq -c f",
    "cat f | uniq",
]

NOT_KNOWN_SAFE = [
    "ls > x",
    "ls < x",
    "echo $HOME",
    'echo "$HOME"',
    "echo `id`",
    "echo $(id)",
    "FOO=1 ls",
    "ls &",
    "ls & pwd",
    "(ls)",
    "{ ls; }",
    "ls;",
    "ls &&",
    "&& ls",
    "ls ;; pwd",
    "ls |& wc",
    "ls\npwd",
    "echo 'unclosed",
    "",
    "   ",
    "git -c x=y status",
    "git -ccore.pager=x status",
    "git --config-env=core.pager=X status",
    "git branch -D x",
    "git branch new-branch",
    "git checkout status",
    "git fetch",
    "git",
    "git log --output=x",
    "git diff --ext-diff",
    "git show --textconv",
    "git -C repo push",
    "find . -delete",
    "find . -exec rm {} +",
    "find . -fprint out",
    "sed -i s/a/b/ f",
    "sed -n 1,5p f g",
    "sed -n 1,5 f",
    "sed -n p f",
    "rg --pre x y",
    "rg --pre=x y",
    "rg --hostname-bin=h y",
    "rg -z y",
    "rg --search-zip y",
    "base64 -o f",
    "base64 -ob64.txt",
    "base64 --output f",
    "base64 --output=f",
    "cargo check",
    "rm x",
    "python3 -c 1",
    "'git status'",
    "ls && rm x",
    # uniq IN OUT writes OUT; "-" (standard input) is an IN like any other.
    "uniq a b",
    "uniq -c a b",
    "ls | uniq - out",
]


@pytest.mark.parametrize("script", KNOWN_SAFE)
def test_known_safe(script):
    assert is_known_safe(script) is True


@pytest.mark.parametrize("script", NOT_KNOWN_SAFE)
def test_not_known_safe(script):
    assert is_known_safe(script) is False


@pytest.mark.parametrize(
    "script",
    [
        # A quoted operator is a word for bash: find gets "|", "ls" and -delete, and deletes.
        "find . '|' ls -delete",
        'find . ";" ls -delete',
        "base64 '|' cat -o out",
        # "#" inside a word is not a comment for bash: the whole line runs.
        "find . -name x#y -delete",
        "echo a#b; git push",
    ],
)
def test_words_that_only_look_like_operators_or_comments_are_not_known_safe(script):
    assert is_known_safe(script) is False


DANGEROUS = [
    "find . -name '*.o' -exec rm -f {} ;",
    "find . -execdir rm -rf {} +",
    "busybox rm -rf build",
    "rm -rf build",
    "rm -f x",
    "sudo rm -f x",
    "sudo rm -rf /",
    "/bin/rm -rf x",
    "ls && rm -rf x",
    "ls | rm -f x",
    "echo hi; rm -rf /tmp/x > /dev/null",
    "rm -rf $HOME/x",
    "cd x && rm -rf $(pwd)",
    "ls & rm -f x",
    # "#" inside a word is not a comment for bash: the rm runs.
    "echo a#b; rm -rf x",
    "cat a#b && sudo rm -f y",
    # Every spelling of a forced rm.
    "rm -fr x",
    "rm -Rf x",
    "rm -r -f x",
    "rm --force x",
    "rm -rfv x",
    "rm x -rf",
    "rm -if x",
    # Behind wrappers.
    "sudo -u root rm -rf x",
    "env A=1 rm -rf x",
    "command rm -rf x",
    "nice -n 5 rm -rf x",
    "timeout 5 rm -rf x",
    "timeout -k 5 10 rm -rf x",
    "find . | xargs rm -rf",
    "sudo env A=1 timeout 5 nice rm -rf x",
    "exec rm -f x",
    # Inside a shell's script and in subshells.
    "bash -c 'rm -rf x'",
    "sh -c 'ls; rm -f y'",
    "bash -lc 'rm -rf x'",
    "bash -c 'sudo rm -rf x'",
    "(rm -rf x)",
    "ls && (cd y; rm -rf x)",
    "echo $(rm -rf x)",
    "ls `rm -rf x`",
    "ls\nrm -rf x",
]

NOT_DANGEROUS = [
    "rm -r x",
    "rm x",
    "rm -i x",
    "rm --recursive x",
    "echo rm -rf",
    "bash -c 'rm -r x'",
    "(rm -r x)",
    "sudo ls",
    "sudo",
    "git reset --hard",
    "git push --force",
    "git clean -fdx",
    "echo rm -rf x",
    "ls",
    "",
    "echo 'unclosed",
]


@pytest.mark.parametrize("script", DANGEROUS)
def test_dangerous(script):
    assert is_dangerous(script) is True


@pytest.mark.parametrize(
    "script",
    [
        # A NAME=value prefix, a group or a compound command in front of rm.
        "LC_ALL=C rm -rf build",
        "{ rm -rf x; }",
        "if true; then rm -rf x; fi",
        # Wrapper options that take no value (sudo -i / -s, env -i, xargs -t) or a long option
        # with its value as the next word.
        "env -i rm -rf x",
        "sudo -i rm -rf x",
        "sudo -s rm -rf x",
        "find . | xargs -t rm -rf",
        "sudo --user root rm -rf x",
        "timeout --signal KILL 5 rm -rf x",
    ],
)
def test_dangerous_after_an_assignment_a_keyword_or_a_wrapper_flag(script):
    """Each of these runs ``rm -rf x``: every spelling of a forced rm is meant to be caught."""
    assert is_dangerous(script) is True


@pytest.mark.parametrize("script", NOT_DANGEROUS)
def test_not_dangerous(script):
    assert is_dangerous(script) is False


@pytest.mark.parametrize(
    ("script", "commands"),
    [
        ("ls", [["ls"]]),
        ("ls && pwd", [["ls"], ["pwd"]]),
        ("ls&&pwd||true", [["ls"], ["pwd"], ["true"]]),
        ("echo 'a b' \"c d\" ; ls -l | wc -l", [["echo", "a b", "c d"], ["ls", "-l"], ["wc", "-l"]]),
        ("git status", [["git", "status"]]),
        ("ls > x", None),
        ("echo $HOME", None),
        ("FOO=1 ls", None),
        ("ls &", None),
        ("(ls)", None),
        ("ls;", None),
        ("", None),
    ],
)
def test_plain_commands(script, commands):
    assert plain_commands(script) == commands
