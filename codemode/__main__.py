"""``python -m codemode COMMAND``: the package's command line.

Commands: ``install`` (the kernelspec; see :mod:`codemode.install`), ``run NOTEBOOK ...``
(execute a notebook headless with the codemode kernel and print its outputs, see
:mod:`codemode.notebook`; several at once, see :mod:`codemode.batch`), ``replay SESSION.jsonl ...`` (a Codex session file as a notebook; see
:mod:`codemode.replay.command`) and ``kernel`` (run the kernel itself, the same as
``python -m codemode.kernel``).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

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
    """``run NOTEBOOK ...``: one notebook prints each cell with its outputs; several (or a
    folder, or a glob) run as a batch (:mod:`codemode.batch`) and print a summary."""
    parser = _run_parser()
    args = parser.parse_args(argv)
    from codemode.batch.inputs import UsageError, files_named, names_one_file, targets

    try:
        files = files_named(args.notebooks, ".ipynb", "notebook")
        single = names_one_file(args.notebooks)
        saved = targets(files, args.save_to, not single, "notebooks", "--save-to") if args.save_to else {}
        if single and args.save_to:
            saved = {files[0]: Path(args.save_to)}
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    from codemode.atomic_file import write_atomically
    from codemode.batch.command import GATEWAY_TOKEN_VARIABLE, STOPPED_STATUS, executor_for, run_batch, run_stoppable
    from codemode.batch.executors import LocalPool
    from codemode.batch.job import PASSED, Job
    from codemode.batch.report import junit_xml

    if args.gateway_url and args.dask:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: --gateway-url and --dask choose two places to run; give one", file=sys.stderr)
        return 2
    token = (args.gateway_token or os.environ.get(GATEWAY_TOKEN_VARIABLE)) if args.gateway_url else None
    jobs = [
        Job("run", str(path.resolve()), str(path), args.timeout, gateway_url=args.gateway_url, gateway_token=token)
        for path in files
    ]
    if single:
        # In a worker process, as in a batch: Ctrl-C kills it with its kernel (run_stoppable).
        outcomes, stopped = run_stoppable(jobs, LocalPool(1, show_stderr=True), _ignore, _ignore)
        if stopped:
            print("The run was stopped; its kernel was stopped too.", file=sys.stderr)
            status = STOPPED_STATUS
        elif outcomes[0].text:
            sys.stdout.write(outcomes[0].text)
            status = 0 if outcomes[0].status == PASSED else 1
        else:  # no cell ran: unreadable, another kernel's, a kernel that could not start
            print(f"The notebook could not be run: {outcomes[0].detail}", file=sys.stderr)
            status = COULD_NOT_RUN_STATUS
        if args.junit:
            write_atomically(Path(args.junit), junit_xml(outcomes, "codemode run"))
    else:
        outcomes, status = run_batch(jobs, executor_for(args), noun="notebook", suite="codemode run", junit=args.junit)
    for path, outcome in zip(files, outcomes, strict=True):
        if path in saved and outcome.notebook is not None:
            saved[path].parent.mkdir(parents=True, exist_ok=True)
            saved[path].write_bytes(outcome.notebook)
    return status


COULD_NOT_RUN_STATUS = 2
"""The exit status of ``run`` on one notebook that could not be run at all, as ``replay --run``'s."""


def _ignore(_: object) -> None:
    """A progress callback that shows nothing (a single notebook has no progress bar)."""


def _run_parser() -> argparse.ArgumentParser:
    """The ``run`` command's argument parser."""
    from codemode.batch.command import add_batch_arguments

    parser = argparse.ArgumentParser(
        prog="python -m codemode run",
        description="Execute notebooks with the codemode kernel: one prints its outputs, several run at once.",
    )
    parser.add_argument("notebooks", nargs="+", metavar="NOTEBOOK", help="a .ipynb file, a folder of them, or a glob")
    parser.add_argument(
        "--save-to", metavar="PATH", help="also write the executed notebook here (several: into this folder)"
    )
    parser.add_argument(
        "--timeout", type=float, default=300, metavar="SECONDS", help="the longest one notebook may run"
    )
    parser.add_argument("--junit", metavar="PATH", help="write each notebook's result as JUnit XML")
    add_batch_arguments(parser)
    return parser


if __name__ == "__main__":
    sys.exit(main())
