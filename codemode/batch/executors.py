"""Where the jobs of a batch run: the ``Executor`` interface and the local pool.

An executor takes every :class:`~codemode.batch.job.Job` of a batch and returns one
:class:`~codemode.batch.job.Outcome` per job, in the jobs' order, calling ``started(job)`` when a
job begins and ``finished(outcome)`` when it ends (from any thread: the callbacks must be
thread-safe, as :class:`codemode.batch.report.Progress` is). On ``KeyboardInterrupt`` (Ctrl-C)
it stops every run and leaves no process behind, then raises :class:`Interrupted` carrying the
outcomes so far (the rest ``stopped``).

:class:`LocalPool` is the default: ``jobs`` worker threads, each running one job at a time in a
worker process of its own (:func:`codemode.batch.isolated.run_isolated`), so a kernel that dies
or hangs fails its own notebook and no other.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Sequence
from typing import Protocol

from codemode.batch.isolated import Workers, run_isolated
from codemode.batch.job import STOPPED, Job, Outcome

Started = Callable[[Job], None]
Finished = Callable[[Outcome], None]


class Interrupted(KeyboardInterrupt):
    """The batch was stopped; ``outcomes`` has one entry per job (``stopped`` for those that
    did not end)."""

    def __init__(self, outcomes: list[Outcome]) -> None:
        super().__init__("the batch was stopped")
        self.outcomes = outcomes


class Executor(Protocol):
    """Runs a batch (module docstring)."""

    def run(self, jobs: Sequence[Job], started: Started, finished: Finished) -> list[Outcome]: ...


def stopped_outcome(job: Job) -> Outcome:
    """The outcome of a job the batch stopped before it ended."""
    return Outcome(job.name, STOPPED, 0.0, "the batch was stopped before this run ended")


class LocalPool:
    """``jobs`` notebooks at a time on this machine (module docstring); ``show_stderr``: the
    workers' stderr (their kernels' logs) goes to this process's stderr rather than being kept
    for the outcome of a worker that dies (:func:`~codemode.batch.isolated.run_isolated`)."""

    def __init__(self, jobs: int, *, show_stderr: bool = False) -> None:
        if jobs < 1:
            raise ValueError(f"--jobs must be at least 1, not {jobs}")
        self.jobs = jobs
        self.show_stderr = show_stderr

    def run(self, jobs: Sequence[Job], started: Started, finished: Finished) -> list[Outcome]:
        workers = Workers()

        def one(job: Job) -> Outcome:
            if workers.stopped:
                return stopped_outcome(job)
            started(job)
            outcome = run_isolated(job, workers, show_stderr=self.show_stderr)
            if outcome.status != STOPPED:
                finished(outcome)
            return outcome

        pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="codemode-batch")
        futures = [pool.submit(one, job) for job in jobs]
        try:
            concurrent.futures.wait(futures)
        except KeyboardInterrupt:
            workers.stop()
            pool.shutdown(wait=True, cancel_futures=True)
            raise Interrupted(
                [
                    f.result() if f.done() and not f.cancelled() else stopped_outcome(j)
                    for f, j in zip(futures, jobs, strict=True)
                ]
            ) from None
        pool.shutdown(wait=True)
        return [f.result() for f in futures]
