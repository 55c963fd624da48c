"""Many notebooks or replay sessions run at once: ``python -m codemode run A B DIR 'glob*'`` and
``python -m codemode replay --run S1 S2 ...``.

What one run needs crosses process (and, with a cluster executor, machine) boundaries as plain
picklable data: a :class:`codemode.batch.job.Job` (paths and limits) goes in, a
:class:`codemode.batch.job.Outcome` (the status, the time, the executed notebook's bytes, the
text to show) comes out. The modules:

- :mod:`codemode.batch.job`: ``Job``, ``Outcome`` and :func:`~codemode.batch.job.run_job`, which
  runs one job in the calling process (its own kernel, started and stopped there);
- :mod:`codemode.batch.isolated`: :func:`~codemode.batch.isolated.run_isolated`, the same in a
  worker process of its own (``python -m codemode.batch.worker``) under a time limit, killed
  with its kernel and the kernel's runtime host when the limit passes or the batch is stopped;
- :mod:`codemode.batch.executors`: the ``Executor`` interface and the local pool of ``--jobs N``
  workers; :mod:`codemode.batch.dask_cluster`: the same on a Dask cluster (``--dask ADDRESS``);
- :mod:`codemode.batch.inputs`: the files that paths, folders and globs name;
- :mod:`codemode.batch.report`: the progress bar, the summary table and the JUnit XML;
- :mod:`codemode.batch.command`: the part both commands share (run the jobs, show, exit status).
"""
