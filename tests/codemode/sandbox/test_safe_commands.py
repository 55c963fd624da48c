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
]

NOT_DANGEROUS = [
    "rm -r x",
    "rm x",
    "rm -fr x",
    "rm x -rf",
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
