"""Benchmarks of codemode against its peers; ``python -m bench`` runs the speed issue's rows.

Shared pieces: :mod:`bench.pairing` (alternating rounds, ratios, growth), :mod:`bench.machine`
(what a run ran on), :mod:`bench.hosts` (runtime hosts through the project's client) and
:mod:`bench.kernels` (Jupyter kernels through ``jupyter_client``). Nothing here is asserted in
tests: speed is read from the ratios these print.
"""
