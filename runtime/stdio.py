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

from codemode.frame_writer import FrameWriter
from codemode.protocol import FrameError

from .server import Connection, FatalConnectionError
from .stdio_files import OutputPump, is_pipe, pipe_from

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


def stdio_pipes(frames: int) -> tuple[int, int]:
    """The descriptors the server reads requests from and writes frames to: a duplicate of
    stdin and ``frames`` themselves when they are pipes, else pipes pumped from and to them
    (:mod:`~codemode.runtime.stdio_files`); each is widened (:func:`widen_pipes`)."""
    requests = os.dup(0)
    if not is_pipe(requests):
        requests = pipe_from(requests)
    if not is_pipe(frames):
        frames = OutputPump(frames).pipe_in
    widen_pipes(requests, frames)
    return requests, frames


async def _stdio_streams(frames: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    requests, frames = stdio_pipes(frames)
    reader = asyncio.StreamReader(limit=2**31 - 1)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(requests, "rb", 0))
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(frames, "wb", 0))
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return reader, writer


async def serve_stdio(frames: int) -> int:
    """Serve one connection: requests on stdin, frames on descriptor ``frames`` (the process's
    stdout, see ``runtime/__main__.py``'s ``_private_stdout``); returns the process exit status."""
    reader, writer = await _stdio_streams(frames)
    connection = Connection(reader, writer)
    try:
        await connection.serve()
        return 0
    except (FatalConnectionError, FrameError) as exc:
        await _drain(connection.frames)
        sys.stderr.write(f"Error: failed to read code-mode client message\n\nCaused by:\n    {exc}\n")
        sys.stderr.flush()
        return 1
    finally:
        await _drain(connection.frames)


async def _drain(frames: FrameWriter) -> None:
    try:
        await frames.drain()
    except (ConnectionError, BrokenPipeError):
        pass
