"""``python -m codemode replay SOURCE --run`` and ``--record-from-session``: the run half of the command.

``SOURCE`` is one Codex session file (converted in memory, :mod:`codemode.replay.convert`) or
a notebook the converter made. ``--run`` runs it (:mod:`codemode.replay.run`) with the folder
of ``-o OUT.ipynb`` (else the source's folder) as the kernel's working folder, so the
``codemode.toml`` there configures the tools; a session's MCP servers from Codex's
``config.toml`` are written there first, as the converter does. It prints one line per
compared cell and a summary; ``-o`` writes the run notebook, ``--report`` the JSON report,
``--junit`` JUnit XML (each written atomically).

``--record-from-session PATH`` writes a recording of the session's MCP calls
(:mod:`codemode.replay.seed`) before anything runs; alone, it only writes that.

Exit status: 0 when every cell that ran matches (a difference only of wall time, ids or paths,
or a cell not run for a missing tool), 1 when a cell differs for ``program``, 2 when the replay
could not run (a usage error, no session, no replay cell, a kernel that could not start or died).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from codemode.replay.command import load_servers, warnings_of, write_atomically, write_servers
from codemode.replay.convert import NoCodeModeError, notebook_text, session_notebook
from codemode.replay.rollout import NotASessionError, read_session
from codemode.replay.run import ReplayError, report_json, report_junit, report_text, run_notebook
from codemode.replay.seed import seed_recording
from codemode.replay.servers import CodexConfigError, default_codex_config


class _Stop(Exception):
    """Stop with status 2; ``str`` is the error to print."""


def _load(source: Path) -> dict[str, Any]:
    if source.suffix == ".ipynb":
        try:
            return dict(json.loads(source.read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise _Stop(f"{source} could not be read as a notebook: {exc}") from exc
    try:
        session = read_session(source)
        nb = session_notebook(session)
    except (NotASessionError, NoCodeModeError) as exc:
        raise _Stop(str(exc)) from exc
    except OSError as exc:
        raise _Stop(f"{source} could not be read: {exc.strerror or exc}.") from exc
    for line in warnings_of(session):
        print(line, file=sys.stderr)
    return nb


def _servers(args: argparse.Namespace, folder: Path) -> None:
    config = Path(args.codex_config) if args.codex_config else default_codex_config()
    try:
        servers = load_servers(config, explicit=bool(args.codex_config))
    except CodexConfigError as exc:
        raise _Stop(str(exc)) from exc
    if servers:
        for line in write_servers(servers, config, [folder]):
            print(line, file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    if len(args.sessions) != 1:
        raise _Stop("--run and --record-from-session take one session file or notebook.")
    source = Path(os.path.expanduser(args.sessions[0]))
    if not source.is_file():
        raise _Stop(f"{source} does not exist.")
    output = Path(args.output) if args.output else None
    if output is not None and output.suffix != ".ipynb":
        raise _Stop(f"-o with --run names the run notebook (OUT.ipynb), not {output}.")
    nb = _load(source)
    if args.record_from_session:
        nested = nb.get("metadata", {}).get("codemode", {}).get("replay", {}).get("nested_tool_calls", [])
        count = seed_recording(Path(args.record_from_session), nested)
        print(f"wrote {args.record_from_session} ({count} MCP call{'s' if count != 1 else ''})")
    if not args.run:
        return 0
    import nbformat

    folder = (output.parent if output is not None else source.parent).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    if source.suffix != ".ipynb":
        _servers(args, folder)
    node = nbformat.from_dict(nb)
    try:
        report = run_notebook(node, folder, source.name, args.timeout)
    except ReplayError as exc:
        raise _Stop(str(exc)) from exc
    sys.stdout.write(report_text(report))
    if output is not None:
        write_atomically(output, notebook_text(node))
        print(f"wrote {output}")
    if args.report:
        write_atomically(Path(args.report), json.dumps(report_json(report), indent=2) + "\n")
    if args.junit:
        write_atomically(Path(args.junit), report_junit(report))
    return report.exit_status()


def run_main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """The run half of ``replay`` (module docstring); returns the exit status."""
    try:
        return _run(args)
    except _Stop as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
