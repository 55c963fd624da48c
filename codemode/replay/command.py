"""``python -m codemode replay SESSION.jsonl [MORE ...] [-o OUT] [--codex-config PATH]``.

With ``--run`` or ``--record-from-session`` the command runs and compares one session or
notebook instead (:mod:`codemode.replay.run_command`, which documents its exit status).

Converts Codex session files into notebooks (:mod:`codemode.replay.convert`). One file and an
``-o`` ending in ``.ipynb`` writes that notebook; several files, a folder (every ``*.jsonl``
in it) or a glob write one ``<name>.ipynb`` each into the folder ``-o`` names (created if
needed). Without ``-o`` a notebook goes beside its session file. The MCP servers of the Codex
configuration (``--codex-config``, default ``$CODEX_HOME/config.toml``; a missing default is
no servers) go to a ``codemode.toml`` beside the notebooks; an existing one is left as it is.

Every file is written to a temporary file in its folder, then renamed over the target, so a
failure never leaves half a file. Exit status: 0 when every session converted, 1 when one
could not be (not a session, no code-mode call, unreadable; the others are still written), 2
for a usage error. Problems in a session that still converts (an unreadable line, skipped line
types) are printed as warnings.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from codemode.atomic_file import write_atomically
from codemode.batch.command import add_batch_arguments
from codemode.batch.inputs import UsageError, files_named
from codemode.batch.inputs import targets as batch_targets
from codemode.replay.convert import NoCodeModeError, notebook_text, session_notebook
from codemode.replay.rollout import NotASessionError, read_session, session_warnings
from codemode.replay.servers import CodexConfigError, default_codex_config, load_servers, write_servers

GATEWAY_REFUSED = (
    "--gateway-url runs notebooks (python -m codemode run), not replays. A replay's kernel starts "
    "in a working folder of its own with the session's environment (its codemode.toml, MCP "
    "servers and recordings, cells run to their yields); a gateway starts kernels in its own "
    "folder and passes only KERNEL_* variables. Replay here (--jobs N) or on a Dask cluster (--dask ADDRESS)."
)
"""Why ``replay`` refuses ``--gateway-url`` and ``--gateway-token`` (exit status 2): a replay's
kernel is started by :func:`codemode.replay.run.execute` with the working folder and environment
of :func:`codemode.replay.run.kernel_environment`, which a gateway's kernel manager (``POST
/api/kernels``, the client's ``KERNEL_*`` variables only) cannot carry."""


def build_parser() -> argparse.ArgumentParser:
    """The ``replay`` command's argument parser."""
    parser = argparse.ArgumentParser(
        prog="python -m codemode replay",
        description="Convert Codex session files (rollout-*.jsonl) into codemode notebooks.",
    )
    parser.add_argument("sessions", nargs="+", metavar="SESSION", help="a session file, a folder of them, or a glob")
    parser.add_argument(
        "-o", "--output", metavar="OUT", help="the notebook (one session) or a folder (several); default: beside each"
    )
    parser.add_argument(
        "--codex-config",
        metavar="PATH",
        help="Codex's config.toml, whose MCP servers go to codemode.toml (default: $CODEX_HOME/config.toml)",
    )
    parser.add_argument(
        "--run",
        action="store_true",
        help="run the notebook (one session, or a notebook it made) in a fresh kernel and compare each answer",
    )
    parser.add_argument("--report", metavar="PATH", help="with --run: write the report as JSON")
    parser.add_argument("--junit", metavar="PATH", help="with --run: write the report as JUnit XML")
    parser.add_argument(
        "--timeout",
        type=float,
        default=600,
        metavar="SECONDS",
        help="with --run: the longest one session's run may take",
    )
    parser.add_argument(
        "--workdir",
        metavar="DIR",
        help="with --run: run the cells in DIR, kept afterwards (several sessions: DIR/<session>); "
        "default: a new empty folder, removed afterwards",
    )
    parser.add_argument(
        "--record-from-session",
        metavar="PATH",
        help="write a recording of the session's MCP calls to PATH, for CODEMODE_RECORDING=replay",
    )
    add_batch_arguments(parser, gateway=False)  # refused in main(): GATEWAY_REFUSED
    return parser


def session_files(arguments: list[str]) -> list[Path]:
    """The session files the arguments name (:func:`codemode.batch.inputs.files_named`: files,
    every ``*.jsonl`` of a folder, the matches of a glob). Raises :class:`UsageError` for an
    argument that names nothing."""
    return files_named(arguments, ".jsonl", "session file")


def targets(files: list[Path], output: str | None, several: bool) -> dict[Path, Path]:
    """Session file -> notebook path (see the module docstring and
    :func:`codemode.batch.inputs.targets`)."""
    return batch_targets(files, output, several, "sessions", "-o")


@dataclass
class Outcome:
    """What converting one session gave: the notebook written, or why none was."""

    source: Path
    written: Path | None = None
    error: str | None = None


def convert_one(source: Path, target: Path) -> Outcome:
    """Convert ``source`` into the notebook ``target`` (warnings printed to stderr)."""
    try:
        session = read_session(source)
        notebook = session_notebook(session)
    except (NotASessionError, NoCodeModeError) as exc:
        return Outcome(source, error=str(exc))
    except OSError as exc:
        return Outcome(source, error=f"{source} could not be read: {exc.strerror or exc}.")
    for line in session_warnings(session):
        print(line, file=sys.stderr)
    write_atomically(target, notebook_text(notebook))
    return Outcome(source, written=target)


def main(argv: list[str]) -> int:
    """Run the command; returns the exit status (module docstring)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.gateway_url or args.gateway_token:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {GATEWAY_REFUSED}", file=sys.stderr)
        return 2
    if args.run or args.record_from_session:
        from codemode.replay.run_command import run_main

        return run_main(parser, args)
    if args.report or args.junit:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: --report and --junit need --run.", file=sys.stderr)
        return 2
    try:
        files = session_files(args.sessions)
        several = len(files) > 1 or any(not Path(os.path.expanduser(a)).is_file() for a in args.sessions)
        chosen = targets(files, args.output, several)
    except UsageError as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    config = Path(args.codex_config) if args.codex_config else default_codex_config()
    try:
        servers = load_servers(config, explicit=bool(args.codex_config))
    except CodexConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    outcomes = [convert_one(source, target) for source, target in chosen.items()]
    failed = [o for o in outcomes if o.error is not None]
    for outcome in outcomes:
        if outcome.error is not None:
            print(f"error: {outcome.error}", file=sys.stderr)
        else:
            print(f"wrote {outcome.written}")
    folders = [o.written.parent for o in outcomes if o.written is not None]
    if folders and servers:
        for line in write_servers(servers, config, folders):
            print(line, file=sys.stderr if line.startswith("warning") else sys.stdout)
    elif folders and args.codex_config:
        print(f"{config} defines no MCP server; no codemode.toml was written.")
    if failed and len(outcomes) > 1:
        print(f"{len(failed)} of {len(outcomes)} sessions could not be converted.", file=sys.stderr)
    return 1 if failed else 0
