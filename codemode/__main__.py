"""``python -m codemode COMMAND``: the package's command line.

Commands: ``install`` (the kernelspec; see :mod:`codemode.install`), ``run NOTEBOOK``
(execute a notebook headless with the codemode kernel and print its outputs; see
:mod:`codemode.notebook`), ``replay SESSION.jsonl ...`` (a Codex session file as a notebook; see
:mod:`codemode.replay.command`) and ``kernel`` (run the kernel itself, the same as
``python -m codemode.kernel``).
"""

from __future__ import annotations

import argparse
import functools
import sys

KERNEL_USAGE = "python -m codemode kernel -f CONNECTION_FILE"
"""The ``kernel`` command's usage (its arguments are the kernel application's)."""


def usage() -> str:
    """Every command's usage line, ``install``'s and ``run``'s written by their own parsers, so
    each option they take is listed (``--engine``, ``--profile``, …)."""
    from codemode.install import build_parser
    from codemode.replay.command import build_parser as replay_parser

    lines = [_usage_line(build_parser()), _usage_line(_run_parser()), _usage_line(replay_parser()), KERNEL_USAGE]
    return "usage: " + "\n       ".join(lines)


USAGE_WIDTH = 100
"""Columns the usage is wrapped to, whatever the terminal's width."""


def _usage_line(parser: argparse.ArgumentParser) -> str:
    """``parser``'s usage without its ``usage: `` (continuation lines stay indented under it)."""
    parser.formatter_class = functools.partial(argparse.HelpFormatter, width=USAGE_WIDTH)
    return parser.format_usage().removeprefix("usage: ").rstrip()


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a command; returns the exit status (2 for a usage error)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "install":
        from codemode.install import main as install_main

        return install_main(rest)
    if command == "run":
        return _run(rest)
    if command == "replay":
        from codemode.replay.command import main as replay_main

        return replay_main(rest)
    if command == "kernel":
        from codemode.kernel.__main__ import main as kernel_main

        kernel_main(rest)
        return 0
    print(f"Unknown command {command!r}.\n{usage()}", file=sys.stderr)
    return 2


def _run(argv: list[str]) -> int:
    """``run NOTEBOOK``: execute the notebook and print each cell with its outputs."""
    args = _run_parser().parse_args(argv)
    from codemode.notebook import run_notebook

    try:
        return run_notebook(args.notebook, save_to=args.save_to, timeout_s=args.timeout)
    except FileNotFoundError as exc:
        print(f"The notebook could not be read: {exc}.", file=sys.stderr)
        return 1


def _run_parser() -> argparse.ArgumentParser:
    """The ``run`` command's argument parser."""
    parser = argparse.ArgumentParser(
        prog="python -m codemode run",
        description="Execute a notebook with the codemode kernel and print its outputs.",
    )
    parser.add_argument("notebook", metavar="NOTEBOOK", help="the .ipynb file to execute")
    parser.add_argument("--save-to", metavar="PATH", help="also write the executed notebook here")
    parser.add_argument("--timeout", type=int, default=300, metavar="SECONDS", help="limit per cell")
    return parser


if __name__ == "__main__":
    sys.exit(main())
