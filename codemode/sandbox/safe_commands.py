"""Which command lines are known to be safe, and which are dangerous, by Codex's rules.

Known safe (``codex-rs/shell-command/src/command_safety/is_safe_command.rs``,
``is_known_safe_command``): a script made only of plain commands joined by ``&&``, ``||``,
``;`` or ``|`` (:func:`~codemode.sandbox.shell_parse.plain_commands`), each of which only
reads: ``cat``, ``ls``, ``grep``, ``git status`` and the like, with the argument rules below.
Anything else (a redirection, ``$VAR`` or ``$(...)``, a subshell, a background ``&``, a
``NAME=value`` prefix) makes the script not known-safe. Under ``approval_policy = "untrusted"``
only known-safe scripts run without asking.

Dangerous (``is_dangerous_command.rs``, ``command_might_be_dangerous``): a forced delete
anywhere in the script, however it is spelled (:func:`is_dangerous`). Dangerous scripts are
asked about under every approval policy but ``never``, which refuses them while a sandbox is
in force.

Both read the script as bash does, with tree-sitter-bash (:mod:`~codemode.sandbox.shell_parse`),
as Codex does.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shlex

from codemode.sandbox.shell_parse import (
    ASSIGNMENT,
    OUTSIDE,
    Input,
    Pattern,
    SimpleCommand,
    Word,
    plain_commands,
    read_script,
)

__all__ = ["ALWAYS_SAFE", "is_dangerous", "is_known_safe", "plain_commands"]

ALWAYS_SAFE = frozenset(
    "cat cd cut echo expr false grep head id ls nl paste pwd rev seq stat tail tr true uname wc "
    "which whoami numfmt tac".split()
)
"""Commands that are safe with any arguments (Codex's list, with its Linux-only ``numfmt`` and
``tac``; ``uniq`` is safe only with at most one file, since ``uniq IN OUT`` writes OUT)."""

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
        "-a -d -E -I -L -n -P -s --arg-file --delimiter --eof --replace --max-lines "
        "--max-args --max-procs --max-chars --process-slot-var".split()
    ),
    "command": frozenset(),
    "busybox": frozenset(),
    "exec": frozenset("-a".split()),
    "nohup": frozenset(),
    "time": frozenset("-f -o --format --output".split()),
    "builtin": frozenset(),
    "coproc": frozenset(),
    "setsid": frozenset(),
    "chroot": frozenset("--userspec --groups".split()),
    "taskset": frozenset(),
    "chrt": frozenset(),
}
"""Programs that run the command named in their arguments, with their options that take the next
word as value (``sudo -u root rm`` runs ``rm``; ``sudo -i rm`` too: ``-i`` takes none; xargs's
``-i``, ``-e`` and ``-l`` take theirs only attached, ``-i{}``)."""

WRAPPER_OPERANDS = {"timeout": 1, "chroot": 1, "taskset": 1, "chrt": 1}
"""Words a wrapper takes after its options and before the command (``timeout 5 rm``: the
duration; ``chroot DIR``, ``taskset MASK``, ``chrt PRIORITY``)."""


SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "yash"})
"""Programs that run a script given with ``-c``, named as a file, or read on standard input."""

_SHELL_OPTIONS_WITH_VALUE = frozenset({"--rcfile", "--init-file"})
_STDIN_FILES = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_DELETES = ("-delete", *_FIND_RUNS)
_MAX_DEPTH = 16
"""Scripts inside scripts (``bash -c``, ``eval``, a pipe into ``sh``) read this deep; a deeper
one is dangerous."""
_DELETERS = frozenset({"rm", "find", "eval", "source", "alias", "su", "runuser", *SHELLS})
_SHELL_PATH = re.compile(r"/proc/[^/]+/exe")
"""A program path that names the running process's own program: a shell, for bash."""
_HIDDEN = re.compile(r"[$`]|\{[^{}]*(?:,|\.\.)[^{}]*\}")


def _name(word: str) -> str:
    return os.path.basename(word)


def _decided_at_run_time(word: Word) -> bool:
    """True for a word whose value the script decides when it runs: an expansion (None), or a
    pattern that becomes the names of matching files."""
    return word is None or isinstance(word, Pattern)


def _unwrapped(command: list[Word]) -> list[Word]:
    """The command a simple command really runs, past wrappers (``sudo -u x timeout 5 rm -rf y``
    runs ``rm -rf y``; ``env -S 'rm -f x'`` runs ``rm -f x``). A word decided at run time where
    a wrapper's option or command would be becomes the command (None: unknown). ``xargs`` adds
    the words it reads to its command: one unknown word."""
    while command and command[0] is not None:
        name = _name(command[0])
        takes_value = WRAPPER_OPTIONS_WITH_VALUE.get(name)
        if takes_value is None:
            return command
        rest, index = list(command[1:]), 0
        while index < len(rest):
            word = rest[index]
            if word is None:
                break
            if name == "env" and word.startswith(("-S", "--split-string")) and word not in ("-S", "--split-string"):
                # -S'a b' / --split-string=... : split the value as env does, and read on.
                rest[index : index + 1] = _split(word[2:] if word.startswith("-S") else word.partition("=")[2])
                continue
            if name == "env" and word in ("-S", "--split-string"):
                rest[index : index + 2] = _split(rest[index + 1] if index + 1 < len(rest) else "")
                continue
            if word.startswith("-") or (name == "env" and ASSIGNMENT.match(word)):
                index += 2 if word in takes_value else 1
                continue
            break
        if index < len(rest) and rest[index] is not None:
            index += WRAPPER_OPERANDS.get(name, 0)
        command = rest[index:]
        if name == "xargs" and command:
            command = [*command, None]
    return command


def _split(value: Word) -> list[Word]:
    """``env -S``'s words of ``value`` (shell-like quoting), or one unknown word."""
    if value is None:
        return [None]
    try:
        return list(shlex.split(value))
    except ValueError:
        return [None]


def _rm_forced(args: list[Word]) -> bool:
    """True when ``rm`` with ``args`` may be forced: ``-f`` in a cluster of short options,
    ``--force`` or an abbreviation (``--f``), ``--interactive=never`` (GNU rm's synonym of
    never asking), before a ``--``; also a word decided at run time, or a pattern that may match
    a file named like an option (``rm *`` beside a file ``-f``)."""
    for word in args:
        if word is None:
            return True
        if word == "--":
            return False
        if isinstance(word, Pattern) and (word[0] in "*?[-"):
            return True
        if word.startswith("--"):
            option, _, value = word[2:].partition("=")
            if option and "force".startswith(option):
                return True
            if option and "interactive".startswith(option) and value in ("never", "no", "none"):
                return True
        elif word.startswith("-") and "f" in word[1:]:
            return True
    return False


def _find_deletes(args: list[Word], stdin: Input, depth: int) -> bool:
    """True when ``find`` with ``args`` may delete: ``-delete``, ``-exec rm`` (and ``-execdir``,
    ``-ok``, ``-okdir``), or a command it runs that is dangerous itself; also a word decided at
    run time (it may be ``-delete``)."""
    for index, word in enumerate(args):
        if word is None or word == "-delete":
            return True
        if isinstance(word, Pattern) and any(fnmatch.fnmatchcase(primary, word) for primary in _FIND_DELETES):
            return True  # -delet? beside a file named -delete
        if word in _FIND_RUNS:
            end = next((i for i in range(index + 1, len(args)) if args[i] in (";", "+")), len(args))
            runs = _unwrapped(args[index + 1 : end])
            if runs and ((runs[0] is not None and _name(runs[0]) == "rm") or _is_dangerous(runs, stdin, depth)):
                return True
    return False


def _shell_runs_dangerous(args: list[Word], stdin: Input, depth: int) -> bool:
    """True when a shell with ``args`` runs a dangerous script: the one given with ``-c``
    (``bash -lc``, ``sh -c -- '...'``), or the one it reads on standard input (no script file,
    ``-s``, or ``/dev/stdin``) when that is dangerous or decided at run time (``cat x | sh``).
    A script file is not read (it is a program like any other)."""
    command_option = reads_stdin = False
    index = 0
    while index < len(args):
        word = args[index]
        if word is None or isinstance(word, Pattern):
            return True  # decided at run time
        if word in ("--", "-"):
            index += 1
            break
        if word.startswith("--"):
            index += 2 if word in _SHELL_OPTIONS_WITH_VALUE else 1
            continue
        if len(word) > 1 and word[0] in "-+":
            command_option = command_option or (word[0] == "-" and "c" in word)
            reads_stdin = reads_stdin or (word[0] == "-" and "s" in word)
            index += 2 if ("o" in word or "O" in word) else 1
            continue
        break
    operands = args[index:]
    if command_option:
        return bool(operands) and _runs_dangerous_text(operands[0], stdin, depth)
    if reads_stdin or not operands or operands[0] in _STDIN_FILES:
        return _input_is_dangerous(stdin, depth)
    return operands[0] is None


def _runs_dangerous_text(script: Word, stdin: Input, depth: int) -> bool:
    """True when ``script``, a word run as a script, is dangerous or decided at run time."""
    return _decided_at_run_time(script) or _script_is_dangerous(str(script), stdin, depth)


_SU_SHORT_WITH_VALUE = frozenset("sgGwu")
_SU_LONG_WITH_VALUE = frozenset({"--shell", "--group", "--supp-group", "--whitelist-environment", "--user"})


def _su_runs_dangerous(name: str, args: list[Word], stdin: Input, depth: int) -> bool:
    """True when ``su`` or ``runuser`` runs a dangerous script given with ``-c`` (also in a
    cluster, ``-lc``), ``--command`` or ``--session-command`` (through the user's shell), or
    ``runuser -u USER [--] COMMAND`` a dangerous command (util-linux's su(1), runuser(1))."""
    index, user_command = 0, False
    while index < len(args):
        word = args[index]
        if word is None:
            return True
        following = args[index + 1] if index + 1 < len(args) else ""
        option, _, attached = word.partition("=")
        if option in ("--command", "--session-command"):
            return _runs_dangerous_text(attached if "=" in word else following, stdin, depth)
        if word == "--":
            index += 1
            break
        if word.startswith("--"):
            user_command = user_command or option == "--user"
            index += 2 if option in _SU_LONG_WITH_VALUE and "=" not in word else 1
            continue
        if word.startswith("-") and len(word) > 1:
            for position, letter in enumerate(word[1:], start=2):
                rest = word[position:]
                if letter == "c":
                    return _runs_dangerous_text(rest or following, stdin, depth)
                if letter in _SU_SHORT_WITH_VALUE:
                    user_command = user_command or letter == "u"
                    index += 0 if rest else 1
                    break
            index += 1
            continue
        if name == "su" or not user_command:
            index += 1  # su's USER, and then its arguments for the shell
            continue
        break
    return name == "runuser" and user_command and _is_dangerous(args[index:], stdin, depth)


def _input_is_dangerous(stdin: Input, depth: int) -> bool:
    """True when the script read from ``stdin`` is dangerous or decided at run time."""
    return stdin is None or any(_script_is_dangerous(text, OUTSIDE, depth) for text in stdin)


def _is_dangerous(command: list[Word], stdin: Input, depth: int, literal: bool = False) -> bool:
    """True when ``command`` (its words) may force a delete; ``literal``: it comes from a
    literal string bash may evaluate later (:func:`_text_is_dangerous`), where a program decided
    at run time is no reason (``'*.o'``, ``'$HOME'`` would be)."""
    command = _unwrapped(command)
    if not command:
        return False
    program = command[0]
    if program is None or isinstance(program, Pattern):
        return not literal  # a program decided at run time ($cmd, {rm,-f,x}, *): it may be rm -f
    name, args = _name(program), command[1:]
    if name not in ALWAYS_SAFE and _names_forced_rm(args):
        return True  # flock LOCK rm -f x, unshare rm -f x, and wrappers not known here
    if name == "hash":  # hash -p /bin/rm zap: zap runs rm for the rest of the script
        return any(arg is None or _name(arg) in _DELETERS for arg in args)
    if name in SHELLS or _SHELL_PATH.fullmatch(program) or name == "exe":
        return _shell_runs_dangerous(args, stdin, depth)
    if name in ("su", "runuser"):
        return _su_runs_dangerous(name, args, stdin, depth)
    if name == "eval":
        if any(_decided_at_run_time(arg) for arg in args):
            return True
        return _script_is_dangerous(" ".join(str(arg) for arg in args), stdin, depth)
    if name in ("source", "."):
        if not args:
            return False
        return args[0] is None or (args[0] in _STDIN_FILES and _input_is_dangerous(stdin, depth))
    if name == "alias":  # alias x='rm -f y' hides the command behind a new name
        return any(
            _decided_at_run_time(arg)
            or ("=" in str(arg) and _runs_dangerous_text(str(arg).partition("=")[2], OUTSIDE, depth))
            for arg in args
        )
    if name == "find":
        return _find_deletes(args, stdin, depth)
    return name == "rm" and _rm_forced(args)


def _names_forced_rm(args: list[Word]) -> bool:
    """True when a word naming ``rm`` (``rm``, ``/bin/rm``) is followed by a forced delete's
    options (:func:`_rm_forced`): whatever program is in front runs it, as a rule."""
    return any(
        word is not None and not isinstance(word, Pattern) and _name(word) == "rm" and _rm_forced(args[index + 1 :])
        for index, word in enumerate(args)
    )


def _script_is_dangerous(script: str, stdin: Input, depth: int, literal: bool = False) -> bool:
    if depth >= _MAX_DEPTH:
        return True
    parsed = read_script(script, stdin)
    if parsed is None:
        return _unparsed_literal_is_dangerous(script) if literal else _unparsed_is_dangerous(script)
    return any(
        _is_dangerous(list(command.words), command.stdin, depth + 1, literal)
        or any(_text_is_dangerous(text, depth + 1) for text in _texts(command))
        for command in parsed.commands
    ) or any(_text_is_dangerous(text, depth + 1) for text in parsed.texts)


def _texts(command: SimpleCommand) -> list[str]:
    """The literal strings a command gets (its arguments, its standard input) that it may
    evaluate later as a script (``trap 'rm -f x' EXIT``, ``mapfile -C``, ``unset 'a[$(...)]'``,
    ``BASH_ENV=/dev/stdin bash -c : <<< ...``); none for a program of :data:`ALWAYS_SAFE`
    (``echo '$(x)'``, ``cat <<'EOF'`` only print) unless its output is captured."""
    words = command.words
    if words and words[0] is not None and _name(words[0]) in ALWAYS_SAFE and not command.captured:
        return []  # but trap "$(echo 'rm -f x')" EXIT
    return [str(word) for word in words[1:] if word is not None] + list(command.stdin or ()) + list(command.partial)


def _text_is_dangerous(text: str, depth: int) -> bool:
    """True when a literal string, read as a script (and, holding a ``=``, its part after the
    first ``=``: ``BASH_FUNC_f%%=() { rm -f x; }``), holds a forced delete or a substitution
    running one: bash evaluates such strings later in many ways (``trap``, ``PS4``, ``${x@P}``,
    an array subscript in ``$((x))``, ``[[ x -eq 0 ]]``, ``printf -v``, ``read``, ``unset``,
    ``test -v``, ``declare -i``, ``${!x}``; ``mapfile -C``, ``compgen -C``, ``BASH_ENV``,
    exported functions). Only strings that name a deleter or hold ``$``, a backquote or a brace
    expansion are read (:func:`_unparsed_is_dangerous`'s test)."""
    name, equals, value = text.partition("=")
    # NAME=value: the value is a text of the script NAME=value; but not so after another prefix.
    candidates = [text, value] if equals and not ASSIGNMENT.match(name + "=") else [text]
    return any(
        _unparsed_is_dangerous(candidate) and _script_is_dangerous(candidate, OUTSIDE, depth, literal=True)
        for candidate in candidates
    )


def _unparsed_literal_is_dangerous(text: str) -> bool:
    """For a literal string tree-sitter-bash cannot parse: True when it holds a ``$(`` or a
    backquote, or a word naming ``rm`` followed by a force option."""
    if "$(" in text or "`" in text:
        return True
    words: list[Word] = [word for word in re.split(r"[\s;&|()<>{},=]+", re.sub(r"[\\'\"]", "", text)) if word]
    return any(_name(str(word)) == "rm" and _rm_forced(words[index + 1 :]) for index, word in enumerate(words))


def _unparsed_is_dangerous(script: str) -> bool:
    """For a script tree-sitter-bash cannot parse (bash may still run its first lines): True
    when it names a program that can delete or run a script (``rm``, ``find``, a shell,
    ``eval``...) once quotes and backslashes are removed, or has an expansion or a brace
    expansion that may produce one."""
    if _HIDDEN.search(script):
        return True
    words = re.split(r"[\s;&|()<>{},=]+", re.sub(r"[\\'\"]", "", script))
    return any(_name(word) in _DELETERS for word in words if word)


def is_dangerous(script: str) -> bool:
    """True when ``script`` may force a delete, read as bash reads it (tree-sitter-bash), in
    every simple command wherever it sits (a subshell, ``$(...)``, an ``if``, a function):

    - ``rm`` forced (:func:`_rm_forced`: ``-f``, ``-rf``, ``-r -f``, ``--force``, ``--f``,
      ``--interactive=never``), in any spelling bash reads the same (``"rm" "-f"``, ``r''m``,
      ``\\rm``, ``$'-f'``), behind wrappers (``sudo``, ``env``, ``command``, ``xargs``,
      ``timeout``...);
    - ``find -delete``, ``find -exec rm``;
    - a shell's script (``bash -c``, ``sh -c -- '...'``, a script piped into ``sh`` from an
      ``echo`` or ``printf`` of plain words, a ``<<<`` string or a here-document), ``eval``'s
      words and an ``alias``'s value, read the same way; a script piped in from anything else
      (``cat x | sh``) is decided at run time;
    - a command, an ``rm`` or ``find`` argument, or a shell's script decided at run time
      (``$x``, ``$(...)``, ``{rm,-f,x}``): it may be any of the above;
    - a word naming ``rm`` with a force option after it, whatever program runs it (``flock``,
      ``unshare``, ``watch``: wrappers not listed here); ``hash -p`` of a deleter; a shell
      run as ``/proc/self/exe``; a shell reading a ``< <(...)`` (judged as a pipe);
    - a literal string (or the literal text of one with expansions) that bash may evaluate
      later and that holds a forced delete or a substitution running one
      (:func:`_text_is_dangerous`), and the substitutions of an unquoted here-document.

    Codex's rule (``is_dangerous_command.rs``, ``is_dangerous_to_call_with_exec``) names only
    ``rm -f`` and ``rm -rf`` as the first two words, also behind ``sudo`` and in
    ``bash -lc`` scripts of plain words; spellings of the same command are caught here too."""
    return _script_is_dangerous(script, OUTSIDE, 0)
