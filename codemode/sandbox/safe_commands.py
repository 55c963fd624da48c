"""Which command lines are known to be safe, and which are dangerous, by Codex's rules.

Known safe (``codex-rs/shell-command/src/command_safety/is_safe_command.rs``,
``is_known_safe_command``): a script made only of plain commands joined by ``&&``, ``||``,
``;`` or ``|``, each of which only reads: ``cat``, ``ls``, ``grep``, ``git status`` and the
like, with the argument rules below. Anything else (a redirection, ``$VAR`` or ``$(...)``, a
subshell, a background ``&``, a ``NAME=value`` prefix) makes the script not known-safe. Under
``approval_policy = "untrusted"`` only known-safe scripts run without asking.

Dangerous (``is_dangerous_command.rs``, ``command_might_be_dangerous``): ``rm -f`` and
``rm -rf`` anywhere in the script, in any spelling (:func:`is_dangerous`). They are asked
about under every approval policy but ``never``, which refuses them while a sandbox is in
force.

The script is split with :mod:`shlex` (POSIX rules); where that split is not certain (quotes
around an operator, characters the rules above exclude) the answer is "not known-safe", which
only ever means asking.
"""

from __future__ import annotations

import os
import re
import shlex

ALWAYS_SAFE = frozenset(
    "cat cd cut echo expr false grep head id ls nl paste pwd rev seq stat tail tr true uname wc "
    "which whoami numfmt tac".split()
)
"""Commands that are safe with any arguments (Codex's list, with its Linux-only ``numfmt`` and
``tac``; ``uniq`` is safe only with at most one file, since ``uniq IN OUT`` writes OUT)."""

OPERATORS = frozenset({"&&", "||", ";", "|"})
"""What may join plain commands in a known-safe script."""

_EXCLUDED_CHARACTERS = set("$`()<>\\\n\r{}#")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SED_PRINT = re.compile(r"^(\d+,)?\d+p$")
_FIND_UNSAFE = frozenset("-exec -execdir -ok -okdir -delete -fls -fprint -fprint0 -fprintf".split())
_RG_UNSAFE_FLAGS = frozenset({"--search-zip", "-z"})
_RG_UNSAFE_OPTIONS = ("--pre", "--hostname-bin")
_GIT_SAFE_SUBCOMMANDS = frozenset({"status", "log", "diff", "show", "branch"})
_GIT_UNSAFE_ARGS = frozenset({"--output", "--ext-diff", "--textconv", "--exec", "--paginate"})
_GIT_BRANCH_READ_ONLY = frozenset("--list -l --show-current -a --all -r --remotes -v -vv --verbose".split())
_GIT_OPTIONS_WITH_VALUE = frozenset(
    "-C -c --config-env --exec-path --git-dir --namespace --super-prefix --work-tree".split()
)


def plain_commands(script: str) -> list[list[str]] | None:
    """The commands of ``script`` when it is only plain commands joined by
    :data:`OPERATORS`, else None."""
    if not script.strip() or _EXCLUDED_CHARACTERS & set(script):
        return None
    # Non-POSIX mode keeps a token's quotes, so a quoted "|" stays a word; each word is then
    # unquoted on its own (a word that does not unquote to exactly one word is refused).
    lexer = shlex.shlex(script, posix=False, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    commands: list[list[str]] = [[]]
    try:
        for token in lexer:
            if token in OPERATORS:
                commands.append([])
                continue
            if token and set(token) <= set("&;|"):
                return None  # "&", ";;", "|&" ...
            words = shlex.split(token)
            if len(words) != 1:
                return None
            commands[-1].append(words[0])
    except ValueError:  # an unclosed quote
        return None
    if any(not command or _ASSIGNMENT.match(command[0]) for command in commands):
        return None
    return commands


def _git_is_safe(args: list[str]) -> bool:
    if any(a in ("-c", "--config-env") or a.startswith(("--config-env=", "-c")) for a in args):
        return False
    index = 0
    while index < len(args) and args[index].startswith("-"):
        index += 2 if args[index] in _GIT_OPTIONS_WITH_VALUE else 1
    if index >= len(args) or args[index] not in _GIT_SAFE_SUBCOMMANDS:
        return False
    rest = args[index + 1 :]
    if any(a in _GIT_UNSAFE_ARGS or a.startswith(("--output=", "--exec=")) for a in rest):
        return False
    if args[index] == "branch":
        return all(a in _GIT_BRANCH_READ_ONLY or a.startswith("--format=") for a in rest)
    return True


def _is_safe(command: list[str]) -> bool:
    name, args = os.path.basename(command[0]), command[1:]
    if name in ALWAYS_SAFE:
        return True
    if name == "uniq":  # ``uniq IN OUT`` writes OUT (``-`` names standard input, a file argument)
        return len([a for a in args if a == "-" or not a.startswith("-")]) <= 1
    if name == "base64":
        return not any(a in ("-o", "--output") or a.startswith(("--output=", "-o")) for a in args)
    if name == "find":
        return not any(a in _FIND_UNSAFE for a in args)
    if name == "rg":
        return not any(a in _RG_UNSAFE_FLAGS or a.split("=", 1)[0] in _RG_UNSAFE_OPTIONS for a in args)
    if name == "git":
        return _git_is_safe(args)
    if name == "sed":
        return len(command) <= 4 and len(args) >= 2 and args[0] == "-n" and bool(_SED_PRINT.match(args[1]))
    return False


def is_known_safe(script: str) -> bool:
    """True when every command of ``script`` only reads, by Codex's list (module docstring)."""
    commands = plain_commands(script)
    return commands is not None and all(_is_safe(command) for command in commands)


WRAPPER_OPTIONS_WITH_VALUE = {
    "sudo": frozenset(
        "-u -g -C -h -p -r -t -T -U -D -R --user --group --close-from --host --prompt --role --type "
        "--command-timeout --other-user --chdir --chroot".split()
    ),
    "doas": frozenset("-u -C".split()),
    "env": frozenset("-u -C -S --unset --chdir --split-string".split()),
    "nice": frozenset("-n --adjustment".split()),
    "ionice": frozenset("-c -n -p -P -u --class --classdata --pid --pgid --uid".split()),
    "timeout": frozenset("-s -k --signal --kill-after".split()),
    "stdbuf": frozenset("-i -o -e --input --output --error".split()),
    "xargs": frozenset(
        "-a -d -E -e -I -i -L -l -n -P -s --arg-file --delimiter --eof --replace --max-lines "
        "--max-args --max-procs --max-chars --process-slot-var".split()
    ),
    "command": frozenset(),
    "busybox": frozenset(),
    "exec": frozenset("-a".split()),
    "nohup": frozenset(),
    "time": frozenset("-f -o --format --output".split()),
}
"""Programs that run the command named in their arguments, with their options that take the next
word as value (``sudo -u root rm`` runs ``rm``; ``sudo -i rm`` too: ``-i`` takes none)."""

SHELL_KEYWORDS = frozenset("{ } ! if then else elif fi do done while until case esac time".split())
"""Words before a command that are shell syntax, not the command (``if true; then rm -rf x; fi``)."""

_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_RM_LONG_FORCE = "--force"


def _unwrapped(command: list[str]) -> list[str]:
    """The command a line really runs: past shell keywords, ``NAME=value`` assignments and
    wrappers (``LC_ALL=C sudo -u x timeout 5 rm -rf y`` runs ``rm -rf y``)."""
    while command:
        word = command[0].lstrip("({")
        if not word or word in SHELL_KEYWORDS or _ASSIGNMENT.match(word):
            command = command[1:]
            continue
        name = os.path.basename(word)
        takes_value = WRAPPER_OPTIONS_WITH_VALUE.get(name)
        if takes_value is None:
            return [word, *command[1:]]
        rest, index = command[1:], 0
        while index < len(rest) and (rest[index].startswith("-") or (name == "env" and "=" in rest[index])):
            index += 2 if rest[index] in takes_value else 1
        if name == "timeout" and index < len(rest):
            index += 1  # the duration
        command = rest[index:]
    return command


def _is_dangerous(command: list[str]) -> bool:
    command = _unwrapped(command)
    if not command:
        return False
    name, args = os.path.basename(command[0].lstrip("(")), command[1:]
    if name in _SHELLS:
        for flag, script in zip(args, args[1:], strict=False):
            if flag.startswith("-") and not flag.startswith("--") and "c" in flag:
                return is_dangerous(script)
        return False
    if name == "eval":
        return is_dangerous(" ".join(args))
    if name == "find":  # find -exec rm -f {} ; runs rm
        for index, word in enumerate(args):
            if word in ("-exec", "-execdir", "-ok", "-okdir") and _is_dangerous(args[index + 1 :]):
                return True
        return False
    if name != "rm":
        return False
    # GNU rm takes any unambiguous abbreviation of --force (--f, --fo, ...).
    return any(
        (len(a) >= 3 and _RM_LONG_FORCE.startswith(a)) or (a.startswith("-") and not a.startswith("--") and "f" in a)
        for a in args
    )


def is_dangerous(script: str) -> bool:
    """True when ``script`` runs ``rm`` with ``-f`` (``-f``, ``-rf``, ``-fr``, ``-Rf``, ``-r -f``,
    ``--force``), also behind ``sudo``, ``env``, ``timeout`` and other wrappers or inside
    ``bash -c``. Codex's rule names only ``rm -f`` and ``rm -rf``; spellings of the same
    command are caught here too. Judged on the plain commands, or on the words of each part when
    the script is not plain (a redirection or a subshell does not hide it)."""
    commands = plain_commands(script)
    if commands is None:
        try:
            commands = [shlex.split(part) for part in re.split(r"&&|\|\||[;|&\n()`]|\$\(", script)]
        except ValueError:
            return False
    return any(command and _is_dangerous(command) for command in commands)
