"""One job in a worker process of its own, under a time limit, killable with everything it started.

:func:`run_isolated` starts ``python -m codemode.batch.worker`` (:mod:`codemode.batch.worker`)
in a new session, sends it the pickled :class:`~codemode.batch.job.Job` on stdin and reads the
pickled :class:`~codemode.batch.job.Outcome` from its stdout. The worker starts the notebook's
kernel, which starts its runtime host; jupyter_client puts the kernel in a session of its own
(``start_new_session``), so a process group does not hold them all. :func:`kill_tree` follows
the parent links instead: it stops (``SIGSTOP``) the worker, then each descendant, until no new
one appears, and then kills them all (``SIGKILL``), so nothing can start a process after the
tree was read.

The job's ``timeout_s`` bounds the notebook inside the worker (the cell running at the limit is
stopped and the executed notebook still comes back). The worker as a whole gets
:data:`GRACE_S` more for the kernel's shutdown; past that (a kernel that does not answer, a
start that hangs) it is killed and the outcome is ``timed out`` without a notebook. A worker
that ends without an outcome (killed from outside, its kernel killing it) fails its job alone,
with the end of its stderr.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
import threading
import time

import psutil

from codemode.batch.job import FAILED, STOPPED, TIMED_OUT, Job, Outcome

GRACE_S = 15.0
"""Seconds a worker may outlive its job's time limit (the kernel's shutdown: nbclient waits 5 s
for a kernel to leave before killing it) before it is killed."""
LOG_TAIL_CHARS = 2000
"""The most of a dead worker's stderr an outcome quotes (its end)."""


class Workers:
    """The live worker processes of a batch. :meth:`stop` kills each with its tree and makes
    every later :meth:`start` refuse (return ``None``); safe to call from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self.stopped = False

    def start(self, argv: list[str], **popen: object) -> subprocess.Popen[bytes] | None:
        """``subprocess.Popen(argv, **popen)``, recorded as live; ``None`` once stopped."""
        with self._lock:
            if self.stopped:
                return None
            process: subprocess.Popen[bytes] = subprocess.Popen(argv, **popen)  # type: ignore[call-overload]
            self._live.add(process)
            return process

    def done(self, process: subprocess.Popen[bytes]) -> None:
        """Forget ``process`` (it has ended)."""
        with self._lock:
            self._live.discard(process)

    def stop(self) -> None:
        """Kill every live worker with its tree (:func:`kill_tree`); refuse new ones."""
        with self._lock:
            self.stopped = True
            live = list(self._live)
        for process in live:
            kill_tree(process.pid)


def kill_tree(pid: int) -> None:
    """Kill the process ``pid`` and all its descendants (module docstring); a process that is
    already gone is skipped."""
    try:
        root = psutil.Process(pid)
    except psutil.NoSuchProcess:
        return
    frozen: dict[int, psutil.Process] = {}
    try:
        pending = [root]
        while pending:
            for process in pending:
                try:
                    process.suspend()
                except psutil.NoSuchProcess:
                    continue
                frozen[process.pid] = process
            pending = []
            for process in list(frozen.values()):
                try:
                    pending.extend(c for c in process.children(recursive=True) if c.pid not in frozen)
                except psutil.NoSuchProcess:
                    continue
    finally:
        # Whatever ends the search (an exception, a signal), no process is left suspended.
        for process in frozen.values():
            try:
                process.kill()
            except psutil.NoSuchProcess:
                continue
    psutil.wait_procs(list(frozen.values()), timeout=5)


def run_isolated(job: Job, workers: Workers | None = None, *, show_stderr: bool = False) -> Outcome:
    """Run ``job`` in a worker process (module docstring); ``workers`` records it so that the
    batch can stop it; ``show_stderr``: the worker's stderr is this process's (a dead worker's
    outcome then quotes none of it). Never raises for the job's failure: the outcome says it."""
    workers = workers if workers is not None else Workers()
    started = time.monotonic()
    with tempfile.TemporaryFile() as log:
        process = workers.start(
            [sys.executable, "-m", "codemode.batch.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None if show_stderr else log,
            start_new_session=True,
        )
        if process is None:
            return Outcome(job.name, STOPPED, 0.0, "the batch was stopped before this run started")
        limit = job.timeout_s + GRACE_S
        try:
            result, _ = process.communicate(pickle.dumps(job), timeout=limit)
        except subprocess.TimeoutExpired:
            kill_tree(process.pid)
            process.communicate()
            return Outcome(
                job.name,
                TIMED_OUT,
                time.monotonic() - started,
                f"The run did not end within {limit:g} s (the time limit of {job.timeout_s:g} s and "
                f"{GRACE_S:g} s to shut down) and was killed with its kernel.",
            )
        finally:
            workers.done(process)
        seconds = time.monotonic() - started
        if workers.stopped:
            return Outcome(job.name, STOPPED, seconds, "the batch was stopped while this run was going on")
        try:
            outcome = pickle.loads(result)
        except Exception:
            log.seek(0)
            tail = log.read().decode("utf-8", "replace")[-LOG_TAIL_CHARS:]
            return Outcome(
                job.name,
                FAILED,
                seconds,
                f"The worker process ended without a result (exit status {process.returncode}).\n{tail}".rstrip(),
            )
    if not isinstance(outcome, Outcome):
        return Outcome(job.name, FAILED, seconds, f"The worker process sent {type(outcome).__name__}, not an outcome.")
    return outcome
