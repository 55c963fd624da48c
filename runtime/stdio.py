"""Serving the protocol on the host's stdin and stdout with asyncio.

:func:`serve_stdio` runs one :class:`~codemode.runtime.server.Connection` over the two pipes
until the client goes away. It is imported once the host has started what needs no asyncio
(``runtime/__main__.py``), so the first cell's context is being prepared while asyncio loads.
A stdin or stdout that is not a pipe (a file, ``/dev/null``) is served through a pipe of its
own (:mod:`codemode.runtime.stdio_files`).
"""

from __future__ import annotations

import asyncio
import os
import sys

from codemode.runtime.errors import HelloNotWritten
from codemode.runtime.server import Connection, FatalConnectionError
from codemode.runtime.stdio_files import EXIT_FLUSH_TIMEOUT_S, OutputPump, is_pipe, pipe_from
from codemode.wire.frame_writer import FrameWriter

PIPE_BYTES = 256 * 1024
"""The kernel buffer the host asks for on its two pipes (Linux's default is 64 KiB): a large
frame then crosses in a quarter of the writes and wake-ups on each side, and asyncio reads a pipe
256 KiB at a time. Small enough for an unprivileged user's pipe-page budget to hold many hosts."""


def widen_pipes(*descriptors: int) -> None:
    """Ask for :data:`PIPE_BYTES` of buffer on each descriptor that is a pipe (Linux only; a
    refusal or another kind of file leaves it as it is)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not a POSIX system
        return
    get, set_ = getattr(fcntl, "F_GETPIPE_SZ", None), getattr(fcntl, "F_SETPIPE_SZ", None)
    if get is None or set_ is None:
        return
    for descriptor in descriptors:
        try:
            if fcntl.fcntl(descriptor, get) < PIPE_BYTES:
                fcntl.fcntl(descriptor, set_, PIPE_BYTES)
        except OSError:
            pass


def stdio_pipes(frames: int) -> tuple[int, int, OutputPump | None]:
    """The descriptors the server reads requests from and writes frames to: a duplicate of
    stdin and ``frames`` themselves when they are pipes, else pipes pumped from and to them
    (:mod:`~codemode.runtime.stdio_files`), with the output's pump; each is widened
    (:func:`widen_pipes`)."""
    requests = os.dup(0)
    if not is_pipe(requests):
        requests = pipe_from(requests)
    pump = None
    if not is_pipe(frames):
        pump = OutputPump(frames)
        frames = pump.pipe_in
    widen_pipes(requests, frames)
    return requests, frames, pump


class _FramesProtocol(asyncio.streams.FlowControlMixin):
    """The frames pipe's protocol, keeping the error that ended it (the reader gone: EPIPE)."""

    error: Exception | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None and self.error is None:
            self.error = exc
        super().connection_lost(exc)


def write_failure(exc: BaseException) -> str:
    """What the host prints on stderr before it exits with status 1 because frames could not be
    written, in the words of Codex's host (its writer task's error, an ``io::Error`` shown as
    ``Broken pipe (os error 32)``)."""
    return f"Error: code-mode writer task failed: failed to write code-mode host message: {os_error_text(exc)}\n"


def os_error_text(exc: BaseException) -> str:
    """An error as Rust shows an ``io::Error``: ``Broken pipe (os error 32)``."""
    errno = getattr(exc, "errno", None)
    return f"{os.strerror(errno)} (os error {errno})" if errno else str(exc)


async def serve_stdio(frames: int) -> int:
    """Serve one connection: requests on stdin, frames on descriptor ``frames`` (the process's
    stdout, see ``runtime/__main__.py``'s ``_private_stdout``) until stdin ends; returns the
    process exit status: 0, or 1 after a fatal protocol error or when frames could not be
    written (a reader gone, a full disk), each said on stderr (:func:`write_failure`). As in
    Codex's host, a failed write ends the host at once only when it is the handshake's answer
    (``failed to write code-mode host hello``); later, the host ends at EOF."""
    loop = asyncio.get_running_loop()
    requests, frames, pump = stdio_pipes(frames)
    reader = asyncio.StreamReader(limit=2**31 - 1)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(requests, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(_FramesProtocol, os.fdopen(frames, "wb", 0))
    connection = Connection(reader, asyncio.StreamWriter(transport, protocol, reader, loop))
    status, text, hello_unwritten = 0, "", None
    try:
        await connection.serve()
    except FatalConnectionError as exc:
        status, text = 1, exc.report()
    except HelloNotWritten as exc:
        hello_unwritten = exc
    await _drain(connection.frames)
    if pump is not None:
        pump.finish(EXIT_FLUSH_TIMEOUT_S)
    failed = (pump.error if pump is not None else None) or protocol.error or connection.frames.failure
    if hello_unwritten is not None:
        cause = failed or hello_unwritten.__cause__ or hello_unwritten
        status, text = 1, f"Error: failed to write code-mode host hello\n\nCaused by:\n    {os_error_text(cause)}\n"
    elif failed is not None and not text:
        status, text = 1, write_failure(failed)
    sys.stderr.write(text)
    sys.stderr.flush()
    return status


async def _drain(frames: FrameWriter) -> None:
    try:
        await frames.drain()
    except (ConnectionError, BrokenPipeError):
        pass
