"""``python -m codemode.batch.worker``: run one pickled :class:`~codemode.batch.job.Job` read
from stdin and write its pickled :class:`~codemode.batch.job.Outcome` to stdout.

The outcome goes to a copy of the original stdout; file descriptor 1 itself is pointed at
stderr first, so nothing the kernel (which inherits it) or a library prints can mix with the
pickle. Started by :func:`codemode.batch.isolated.run_isolated`.
"""

from __future__ import annotations

import os
import pickle
import sys

from codemode.batch.job import run_job


def main() -> None:
    """Read the job, run it (:func:`codemode.batch.job.run_job`), write the outcome."""
    result = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    job = pickle.load(sys.stdin.buffer)
    outcome = run_job(job)
    result.write(pickle.dumps(outcome))
    result.close()


if __name__ == "__main__":
    main()
