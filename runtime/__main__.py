"""``codemode-host`` / ``python -m codemode.runtime``: the code-mode runtime host.

Usage: ``codemode-host [--listen stdio] [--engine quickjs|v8] [--profile strict|notebook]``
(the engine cells run on, :mod:`~codemode.runtime.engines`, default ``quickjs``; the profile,
:mod:`~codemode.runtime.profile`, default ``strict``; the notebook profile runs on QuickJS
only for now: with ``--engine v8`` the host exits with status 2 before the handshake). Speaks Codex's code-mode host protocol (as
Codex 0.171's host does) on stdin/stdout; stdout carries only frames, logs go to stderr
(level from ``CODEMODE_HOST_LOG``, default WARNING). ``CODEMODE_HOST_NO_INTERRUPT=1``
skips the in-process interrupt (tests of the process-exit fallback). SIGINT is ignored.
Exit status: 0 after a clean end (EOF, rejected handshake), 1 after a fatal protocol
error, printed on stderr as ``Error: failed to read code-mode client hello`` (the first
frame) or ``... client message`` / ``Caused by: <reason>`` (Codex's host's wording,
:class:`~codemode.runtime.errors.FatalConnectionError`), at once when the handshake's answer could
not be written (``Error: failed to write code-mode host hello``), or at EOF after later frames
could not be written (``Error: code-mode writer task failed: ...``, ``runtime/stdio.py``), 3 after a cell could not be stopped
(the host answered the terminate, announced ``host/exiting`` and exited).
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys

from codemode.runtime import cell_thread, engines, interrupt, profile, stdio_files


def _private_stdout() -> int:
    """A private descriptor for the frames; descriptor 1 then leads to stderr.

    Only frames may reach the client's pipe, but an engine prints there itself (V8 writes
    ``Uncaught Error: ...`` of a throwing ``FinalizationRegistry`` callback to descriptor 1),
    and so may a library; what they print goes to the log instead.
    """
    frames = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115 - descriptor 1, now stderr
    return frames


def _client_options(argv: list[str]) -> tuple[str, str] | None:
    """``(engine, profile)`` when ``argv`` is exactly what the client writes,
    ``--listen stdio --engine E --profile P`` with a valid pair (``codemode.host.default_host_command``);
    None for anything else, which :func:`_parse_options` reads. Reading this one form by hand spares
    every start argparse's import and its help formatter's (``shutil``, ``bz2``, ``lzma``)."""
    if len(argv) != 6 or argv[0::2] != ["--listen", "--engine", "--profile"] or argv[1] != "stdio":
        return None
    engine, chosen = argv[3], argv[5]
    if engine not in engines.ENGINES or chosen not in profile.PROFILES:
        return None
    if chosen == "notebook" and engine not in profile.NOTEBOOK_ENGINES:
        return None
    return engine, chosen


def _parse_options(argv: list[str]) -> tuple[str, str]:
    """``(engine, profile)`` of any command line, with argparse's help and errors (exit status 2)."""
    import argparse

    parser = argparse.ArgumentParser(prog="codemode-host", description="codemode runtime host")
    parser.add_argument("--listen", default="stdio", help="transport: only 'stdio' (the default) is supported")
    parser.add_argument("--engine", default=engines.ENGINES[0], choices=engines.ENGINES, help="the JavaScript engine")
    parser.add_argument(
        "--profile", default=profile.PROFILES[0], choices=profile.PROFILES, help="strict (Codex's exec) or notebook"
    )
    args = parser.parse_args(argv)
    if args.profile == "notebook" and args.engine not in profile.NOTEBOOK_ENGINES:
        parser.exit(2, "codemode-host: the notebook profile runs on the quickjs engine for now\n")
    if args.listen not in ("stdio", "stdio://"):
        # Codex's host's wording and status (it also takes gRPC addresses, which this host does not)
        parser.exit(1, f"Error: unsupported --listen URL `{args.listen}`; expected `stdio` or `stdio://`\n")
    return args.engine, args.profile


def start(argv: list[str]) -> int:
    """Everything of the host's start that needs no asyncio: read the options, take stdout
    for the frames (its descriptor is returned), set up logging and signals, probe the QuickJS
    interrupt and, for strict QuickJS cells, start the first cell's thread preparing its context
    (``runtime/cell_thread.py``), whose prelude then compiles while :func:`serve` imports asyncio
    and the protocol server."""
    engine, chosen = _client_options(argv) or _parse_options(argv)
    engines.select(engine)
    profile.select(chosen)
    stdio_files.open_missing_stdio()
    if sys.stderr is None:  # descriptor 2 was closed when Python started
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115 - now /dev/null
    frames = _private_stdout()
    logging.basicConfig(
        stream=sys.stderr,
        level=os.environ.get("CODEMODE_HOST_LOG", "WARNING").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # The host is a child of the kernel, in its process group: an interrupt that
    # jupyter_client sends to the kernel's whole group must not kill the host (the
    # interrupted cell and every other one would be lost). Cells are stopped by
    # session/terminate; the host ends on EOF.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # V8 stops a cell by terminating its isolate; only QuickJS needs the in-process interrupt.
    if engine == "quickjs":
        if os.environ.get("CODEMODE_HOST_NO_INTERRUPT"):
            # Test and diagnosis switch: behave as if the in-process interrupt were unavailable.
            interrupt.AVAILABLE = False
        else:
            interrupt.probe()
    if engine == "quickjs" and chosen == "strict":
        engines.load()
        cell_thread.keep_spare()
    return frames


def serve(frames: int) -> None:
    """Serve the connection on stdin and descriptor ``frames``, then end the process with the
    exit status (never returns)."""
    import asyncio

    from codemode.runtime.gc_tuning import freeze_startup_objects
    from codemode.runtime.stdio import serve_stdio

    freeze_startup_objects()
    gc.enable()  # off since boot.py's first line: start-up's objects are frozen now
    status = asyncio.run(serve_stdio(frames))
    sys.stderr.flush()
    # Cell threads are daemons; a CPU-bound one must not keep the process alive.
    stdio_files.exit_process(status)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``codemode-host`` console script."""
    serve(start(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
