"""``python -m codemode replay SOURCE --run`` and ``--record-from-session``: the run half of the command.

``SOURCE`` is one Codex session file (converted in memory, :mod:`codemode.replay.convert`) or
a notebook the converter made. Several, a folder (its ``*.jsonl``) or a glob run as a batch
(:mod:`codemode.batch`, ``--jobs N`` at once, each in its own kernel): a progress bar, then a
summary table (passed, diverged, failed, timed out per session); ``-o`` names a folder for the
run notebooks, ``--junit`` has one test case per session and ``--report`` writes
``{"sessions": [{"session", "status", "seconds", "detail", "report"}]}`` (``report`` as for one
session, ``null`` when the run gave none); the exit status is 0 only when every session passed,
else 1 (130 when stopped with Ctrl-C). ``--run`` runs it (:mod:`codemode.replay.run`) with the folder
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

from codemode.atomic_file import write_atomically
from codemode.config.recording import MODE_ENV, PATH_ENV
from codemode.replay.convert import SourceError, load_source, notebook_text
from codemode.replay.run import ReplayError, report_json, report_junit, report_text, run_notebook
from codemode.replay.seed import seed_recording
from codemode.replay.servers import CodexConfigError, default_codex_config, load_servers, write_servers


def shared_recording(env: dict[str, str], sessions: int) -> str | None:
    """Why ``sessions`` replays cannot run at once with the environment ``env``, or None: with
    ``CODEMODE_RECORDING`` ``record`` or ``replay`` and one ``CODEMODE_RECORDING_PATH``
    (:mod:`codemode.config.recording`), every session's kernel would record to that one file,
    each overwriting the others' calls (or answer from a recording of another session). Left
    unset, each session records beside its run notebook as ``<session>.recording.jsonl``
    (:func:`codemode.replay.run.kernel_environment` names each kernel's notebook)."""
    mode = env.get(MODE_ENV, "")
    if sessions < 2 or mode not in ("record", "replay") or not env.get(PATH_ENV):
        return None
    return (
        f"{MODE_ENV}={mode} with {PATH_ENV}={env[PATH_ENV]} would have {sessions} sessions share one"
        f" recording (each kernel recording overwrites the others' calls); leave {PATH_ENV} unset:"
        " each session then records to, and replays from, <session>.recording.jsonl beside its run notebook."
    )


class _Stop(Exception):
    """Stop with status 2; ``str`` is the error to print."""


def _servers(args: argparse.Namespace, *folders: Path) -> None:
    config = Path(args.codex_config) if args.codex_config else default_codex_config()
    try:
        servers = load_servers(config, explicit=bool(args.codex_config))
    except CodexConfigError as exc:
        raise _Stop(str(exc)) from exc
    if servers:
        for line in write_servers(servers, config, list(folders)):
            print(line, file=sys.stderr)


def _run_batch(args: argparse.Namespace) -> int:
    """Several sessions or notebooks (module docstring)."""
    from codemode.batch.command import executor_for, run_batch
    from codemode.batch.inputs import UsageError, files_named, targets
    from codemode.batch.job import Job

    if args.record_from_session:
        raise _Stop("--record-from-session takes one session file or notebook.")
    try:
        files = files_named(args.sessions, ".jsonl", "session file")
        chosen = targets(files, args.output, True, "sessions", "-o")
    except UsageError as exc:
        raise _Stop(str(exc)) from exc
    shared = shared_recording(dict(os.environ), len(files))
    if shared is not None:
        raise _Stop(shared)
    folders = {file: (Path(args.output) if args.output else file.parent).resolve() for file in files}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    sessions = [file for file in files if file.suffix != ".ipynb"]
    if sessions:
        _servers(args, *(folders[file] for file in sessions))
    workdirs = {file: str(Path(args.workdir).resolve() / file.stem) if args.workdir else None for file in files}
    jobs = [
        Job("replay", str(file.resolve()), str(file), args.timeout, str(folders[file]), workdirs[file])
        for file in files
    ]
    outcomes, status = run_batch(jobs, executor_for(args), noun="session", suite="codemode replay", junit=args.junit)
    for file, outcome in zip(files, outcomes, strict=True):
        if args.output and outcome.notebook is not None:
            write_atomically(chosen[file], outcome.notebook.decode("utf-8"))
    if args.report:
        entries = [
            {
                "session": o.name,
                "status": o.status,
                "seconds": round(o.seconds, 3),
                "detail": o.detail,
                "report": o.report,
            }
            for o in outcomes
        ]
        write_atomically(Path(args.report), json.dumps({"sessions": entries}, indent=2) + "\n")
    return status


def _run(args: argparse.Namespace) -> int:
    from codemode.batch.inputs import names_one_file

    if args.run and not names_one_file(args.sessions):
        return _run_batch(args)
    if len(args.sessions) != 1:
        raise _Stop("--record-from-session takes one session file or notebook.")
    source = Path(os.path.expanduser(args.sessions[0]))
    if not source.is_file():
        raise _Stop(f"{source} does not exist.")
    output = Path(args.output) if args.output else None
    if output is not None and output.suffix != ".ipynb":
        raise _Stop(f"-o with --run names the run notebook (OUT.ipynb), not {output}.")
    try:
        nb = load_source(source)
    except SourceError as exc:
        raise _Stop(str(exc)) from exc
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
        workdir = Path(args.workdir) if args.workdir else None
        report = run_notebook(node, folder, source.name, args.timeout, workdir)
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
