"""The part of ``run`` and ``replay --run`` that is the same for both when they run a batch:
the options (``--jobs``), the executor, the progress bar, the summary, the JUnit file and the
exit status.

Exit status of a batch: 0 when every run passed, 1 when one did not, 130 when the batch was
stopped (Ctrl-C or ``SIGTERM``: every run is stopped, its kernel killed, and the summary shows
what had ended; more of these signals while the batch stops are ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import TextIO

from codemode.batch.executors import Executor, Finished, Interrupted, LocalPool, Started
from codemode.batch.job import PASSED, Job, Outcome
from codemode.batch.report import Progress, junit_xml, print_summary

STOPPED_STATUS = 130
"""The exit status of a stopped batch, as a shell gives a command ended by ``SIGINT``."""


def default_jobs() -> int:
    """``--jobs``' default: the cores this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


GATEWAY_TOKEN_VARIABLE = "JUPYTER_GATEWAY_AUTH_TOKEN"
"""Where ``--gateway-token`` comes from when not given: jupyter_server's variable for it."""


def add_batch_arguments(parser: argparse.ArgumentParser, *, gateway: bool = True) -> None:
    """``--jobs N`` (how many runs at once on this machine), ``--dask ADDRESS`` (run them on
    that Dask scheduler's cluster instead), ``--gateway-url URL`` and ``--gateway-token TOKEN``
    (each run's kernel on that Jupyter Enterprise Gateway or Kernel Gateway,
    :mod:`codemode.gateway`). With ``gateway`` False the last two are accepted but left out of
    the help, for a command that refuses them with its reason (``replay``)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help=f"with several: how many run at once, each in its own kernel (default: the cores, {default_jobs()})",
    )
    where.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="with several: run them on the Dask cluster of this scheduler (tcp://host:8786)",
    )
    parser.add_argument(
        "--gateway-url",
        metavar="URL",
        help="run each notebook's kernel on this Jupyter Enterprise Gateway or Kernel Gateway (http://host:8888)"
        if gateway
        else argparse.SUPPRESS,
    )
    parser.add_argument(
        "--gateway-token",
        metavar="TOKEN",
        help=f"the gateway's auth token (default: ${GATEWAY_TOKEN_VARIABLE})" if gateway else argparse.SUPPRESS,
    )


def executor_for(args: argparse.Namespace) -> Executor:
    """The executor the options choose: the Dask cluster of ``--dask``
    (:class:`codemode.batch.dask_cluster.DaskCluster`), else the local pool of ``--jobs``
    (default :func:`default_jobs`)."""
    if args.dask:
        from codemode.batch.dask_cluster import DaskCluster

        return DaskCluster(args.dask)
    return LocalPool(args.jobs if args.jobs is not None else default_jobs())


@contextlib.contextmanager
def _stop_signals() -> Iterator[None]:
    """While in the block, Ctrl-C (``SIGINT``) and ``SIGTERM`` stop the batch: the first one
    raises ``KeyboardInterrupt``; the executor then stops every run, and the later ones are
    ignored so that nothing interrupts the stop (GNU ``timeout -s INT`` and a terminal's Ctrl-C
    pressed twice send ``SIGINT`` twice: an interrupted stop would leave a worker suspended
    with its kernel)."""
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        if stopping:
            return
        stopping = True
        raise KeyboardInterrupt

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_stoppable(
    jobs: Sequence[Job], executor: Executor, started: Started, finished: Finished
) -> tuple[list[Outcome], bool]:
    """``executor.run(jobs, started, finished)`` stopped by the first Ctrl-C or ``SIGTERM``
    (:func:`_stop_signals`): the outcomes and whether the run was stopped (the outcomes of the
    runs that had not ended are then ``stopped``)."""
    with _stop_signals():
        try:
            return executor.run(jobs, started, finished), False
        except Interrupted as exc:
            return exc.outcomes, True


def run_batch(
    jobs: Sequence[Job], executor: Executor, *, noun: str, suite: str, junit: str | None, out: TextIO | None = None
) -> tuple[list[Outcome], int]:
    """Run ``jobs`` on ``executor`` with a progress bar, print the summary
    (:func:`codemode.batch.report.print_summary`; ``noun`` names a run in it), write the JUnit
    file (``suite`` its suite's name) if asked; ``out`` is stdout unless given; returns the outcomes and the exit status
    (module docstring)."""
    from codemode.atomic_file import write_atomically

    with Progress(len(jobs), noun + "s") as progress:
        outcomes, stopped = run_stoppable(jobs, executor, progress.started, progress.finished)
    print_summary(outcomes, noun, out if out is not None else sys.stdout)
    if junit:
        write_atomically(Path(junit), junit_xml(outcomes, suite))
    if stopped:
        print("The batch was stopped; every kernel it started was stopped too.", file=sys.stderr)
        return outcomes, STOPPED_STATUS
    return outcomes, 0 if all(o.status == PASSED for o in outcomes) else 1
