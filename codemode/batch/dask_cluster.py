"""``--dask ADDRESS``: the jobs of a batch on a Dask ``distributed`` cluster.

Each job is submitted to the scheduler at ``ADDRESS`` (``tcp://host:8786``) as one task,
:func:`run_on_worker`, which runs where the scheduler places it exactly what the local pool runs
here: :func:`codemode.batch.isolated.run_isolated`, a worker process of its own with the
notebook's kernel, under the job's time limit, killed with its whole tree past it. The task
returns the :class:`~codemode.batch.job.Outcome`, executed notebook included, to this process,
which shows and writes everything. Several tasks run at once on a Dask worker (its threads), each
with its own kernel.

What the Dask workers need: the same Python environment as this process (``pip install
'codemode-kernel[dask]'``, the same version, so the pickled jobs and outcomes match; the
kernelspec is installed into the environment by the first run if missing), the notebooks and
their ``codemode.toml`` at the same paths (a shared filesystem or the same checkout: a job
carries paths, not files), the tools the notebooks call (``bwrap`` for ``exec_command``'s
sandbox, the MCP servers their ``codemode.toml`` starts), and ``psutil`` (a dependency).

Ctrl-C: the batch sets a Dask ``Event`` named after it; every task of the batch watches it and,
once set, kills its worker process and kernel (:meth:`codemode.batch.isolated.Workers.stop`);
the tasks not started are cancelled.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Sequence

from codemode.batch.executors import Finished, Interrupted, Started, stopped_outcome
from codemode.batch.isolated import Workers, run_isolated
from codemode.batch.job import FAILED, Job, Outcome

CONNECT_TIMEOUT_S = 30
"""How long to wait for the scheduler to answer."""
WATCH_INTERVAL_S = 0.5
"""How often a task checks whether its batch was stopped."""


def run_on_worker(job: Job, stop_event: str) -> Outcome:
    """The Dask task: :func:`~codemode.batch.isolated.run_isolated` of ``job``, stopped when
    the Dask ``Event`` named ``stop_event`` is set."""
    from distributed import Event, get_client

    workers = Workers()
    finished = threading.Event()
    # The client is taken here, in the task's thread: the watcher's thread has none of its own.
    stop = Event(stop_event, client=get_client())

    def watch() -> None:
        while not finished.is_set():
            if stop.wait(timeout=WATCH_INTERVAL_S):
                workers.stop()
                return

    watcher = threading.Thread(target=watch, name="codemode-batch-stop", daemon=True)
    watcher.start()
    try:
        return run_isolated(job, workers)
    finally:
        finished.set()
        watcher.join()


class DaskCluster:
    """Runs a batch on the Dask scheduler at ``address`` (module docstring)."""

    def __init__(self, address: str) -> None:
        self.address = address

    def run(self, jobs: Sequence[Job], started: Started, finished: Finished) -> list[Outcome]:
        """As :meth:`codemode.batch.executors.Executor.run`; ``started`` is not called (when a
        task starts on a worker is not reported back)."""
        from distributed import Client, Event, as_completed

        with Client(self.address, timeout=CONNECT_TIMEOUT_S) as client:
            stop_event = f"codemode-batch-{uuid.uuid4().hex}"
            stop = Event(stop_event, client=client)
            futures = [
                client.submit(run_on_worker, job, stop_event, key=f"codemode-{index}-{uuid.uuid4().hex}", pure=False)
                for index, job in enumerate(jobs)
            ]
            outcomes: dict[int, Outcome] = {}
            index_of = {future.key: index for index, future in enumerate(futures)}
            try:
                for future in as_completed(futures):
                    job = jobs[index_of[future.key]]
                    try:
                        outcome = future.result()
                    except Exception as exc:  # the task itself failed: a worker lost, a version mismatch
                        outcome = Outcome(job.name, FAILED, 0.0, f"The Dask task failed: {type(exc).__name__}: {exc}")
                    outcomes[index_of[future.key]] = outcome
                    finished(outcome)
            except KeyboardInterrupt:
                stop.set()
                client.cancel([f for f in futures if not f.done()])
                raise Interrupted(
                    [outcomes.get(index, stopped_outcome(job)) for index, job in enumerate(jobs)]
                ) from None
            return [outcomes[index] for index in range(len(jobs))]
