"""One notebook run as plain data: a :class:`Job` in, an :class:`Outcome` out.

Both are frozen dataclasses of strings, numbers and bytes, so they pickle: the local pool sends
a job to its worker process (:mod:`codemode.batch.isolated`), and a cluster executor can send it
to another machine, where :func:`run_job` needs only the paths the job names and an environment
with codemode installed.

Kinds of job: ``"run"`` executes a notebook (:func:`codemode.notebook.execute_notebook`);
``"replay"`` runs a Codex session file or a notebook made from one and compares each answer
with the recorded one (:func:`codemode.replay.run.run_notebook`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PASSED, FAILED, DIVERGED, TIMED_OUT, STOPPED = "passed", "failed", "diverged", "timed out", "stopped"
STATUSES = (PASSED, FAILED, DIVERGED, TIMED_OUT, STOPPED)
"""An outcome's status: every cell ran (a replay: no answer differs for ``program``); a cell
failed, the kernel died or the run could not start; a replayed answer differs; the run passed
its time limit; the batch was stopped (Ctrl-C) before the run ended."""


@dataclass(frozen=True)
class Job:
    """One run: ``kind`` (``"run"`` or ``"replay"``), ``path`` (the notebook or session file),
    ``name`` (how reports call it: the path as the user named it), ``timeout_s`` (the most the
    whole run may take, in seconds), for a replay ``folder`` (where its ``codemode.toml`` is)
    and ``workdir`` (the folder its cells run in, kept; ``None``: a new empty one, removed
    afterwards: :func:`codemode.replay.run.working_folder`), and for a run on a Jupyter
    (Enterprise) Gateway its ``gateway_url`` and ``gateway_token``
    (:func:`codemode.gateway.run_on_gateway`; None: a local kernel)."""

    kind: str
    path: str
    name: str
    timeout_s: float
    folder: str | None = None
    workdir: str | None = None
    gateway_url: str | None = None
    gateway_token: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What a :class:`Job` gave: ``status`` (one of :data:`STATUSES`), ``seconds`` (wall time of
    the run), ``detail`` (why it did not pass, ``""`` when it did), ``text`` (what a single run
    prints: each cell with its outputs, or the replay's per-cell report), ``notebook`` (the
    executed notebook as nbformat JSON bytes, ``None`` when the run was killed before it could
    send one) and ``report`` (a replay's ``--report`` JSON, else ``None``)."""

    name: str
    status: str
    seconds: float
    detail: str = ""
    text: str = ""
    notebook: bytes | None = None
    report: dict[str, Any] | None = None


def run_job(job: Job) -> Outcome:
    """Run ``job`` in this process (its kernel is started here and stopped before returning);
    never raises for a failure of the notebook, which becomes a ``failed`` outcome."""
    started = time.monotonic()
    try:
        outcome = _run_replay(job) if job.kind == "replay" else _run_notebook(job)
    except Exception as exc:  # an unreadable notebook, a kernel that could not start...
        return Outcome(job.name, FAILED, time.monotonic() - started, str(exc) or type(exc).__name__)
    return Outcome(
        job.name,
        outcome.status,
        time.monotonic() - started,
        outcome.detail,
        outcome.text,
        outcome.notebook,
        outcome.report,
    )


def _run_notebook(job: Job) -> Outcome:
    import nbformat

    from codemode.notebook import execute_notebook, shown

    if job.gateway_url:
        from codemode.gateway import run_on_gateway

        executed = run_on_gateway(job.path, job.gateway_url, job.gateway_token, timeout_s=job.timeout_s)
    else:
        executed = execute_notebook(job.path, timeout_s=job.timeout_s)
    status = PASSED if executed.failure is None else TIMED_OUT if executed.timed_out else FAILED
    notebook = nbformat.writes(executed.nb).encode("utf-8")
    return Outcome(job.name, status, 0.0, executed.failure or "", shown(executed), notebook)


def _run_replay(job: Job) -> Outcome:
    import nbformat
    from nbclient.exceptions import CellTimeoutError

    from codemode.replay.convert import load_source, notebook_text
    from codemode.replay.run import ReplayError, report_json, report_text, run_notebook

    source = Path(job.path)
    node = nbformat.from_dict(load_source(source))
    folder = Path(job.folder) if job.folder else source.parent.resolve()
    try:
        workdir = Path(job.workdir) if job.workdir else None
        report = run_notebook(node, folder, source.name, job.timeout_s, workdir)
    except ReplayError as exc:
        status = TIMED_OUT if isinstance(exc.__cause__, CellTimeoutError) else FAILED
        return Outcome(job.name, status, 0.0, str(exc))
    text = report_text(report)
    status = PASSED if report.exit_status() == 0 else DIVERGED
    detail = "" if status == PASSED else text.rstrip("\n").rsplit("\n", 1)[-1]
    notebook = notebook_text(node).encode("utf-8")
    return Outcome(job.name, status, 0.0, detail, text, notebook, report_json(report))
