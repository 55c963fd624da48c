"""The stdio transport for MCP servers: the SDK's ``stdio_client`` with a linear-time reader.

Why it exists: the ``mcp`` SDK's ``stdio_client`` (2.3) splits the server's stdout with
``lines = (buffer + chunk).split("\\n")`` for every chunk it receives, so a line of *n*
characters arriving in 64 KiB chunks costs O(n²/64 KiB) character copies. Measured through
the kernel: a 5 M-character tool result took 0.74 s, a 30 M-character one 30.9 s at 100 % CPU
on the kernel's event loop, stalling every other cell meanwhile (``bench/mcp_large_result.py``
compares both readers). Here each chunk is scanned once for ``\\n`` (:class:`LineSplitter`)
and a line's pieces are joined once, when its end arrives.

Everything else follows the SDK's transport, which :class:`mcp.ClientSession` is used with
unchanged: the server is spawned with ``anyio.open_process`` in a new session (its own process
group) with the SDK's default environment plus ``params.env``, stderr goes to ``errlog``;
each line is parsed with the SDK's own ``jsonrpc_message_adapter`` into a ``SessionMessage``;
the read stream has no buffer, so nothing is read ahead while the session is busy. On exit: the reader is released, the writer gets 0.5 s to flush, stdin is closed, the
server gets ``PROCESS_TERMINATION_TIMEOUT`` (2 s) to exit, then its process group is
terminated (SIGTERM, ``FORCE_KILL_TIMEOUT`` later SIGKILL) - all shielded from cancellation so
no server outlives its transport. Spawning raises what the SDK raises (``OSError``,
``ValueError``).

Differences: messages are UTF-8 as the MCP stdio transport requires (``params.encoding`` must
be UTF-8); blank lines between messages are skipped instead of being reported as parse
errors. A line the SDK cannot parse is repaired when it holds lone surrogates, and otherwise
fails the request it answers at once instead of leaving it to its time-out; lone surrogates
in what we write become U+FFFD (:mod:`codemode.tools.stdio_lines`). A message that cannot be
serialized fails its request instead of ending the connection. POSIX only (the whole kernel
is); on Windows the SDK's ``stdio_client`` is used.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import Any, TextIO

import anyio
import anyio.lowlevel
import mcp_types
from mcp.client.stdio import (
    FORCE_KILL_TIMEOUT,
    PROCESS_TERMINATION_TIMEOUT,
    StdioServerParameters,
    get_default_environment,
)
from mcp.shared.message import SessionMessage

from codemode.tools.failures import exception_text
from codemode.tools.stdio_lines import UNWRITABLE_REQUEST, LineReader, LineSplitter, encode_message

logger = logging.getLogger(__name__)

WRITER_FLUSH_TIMEOUT_S = 0.5
"""How long the writer may flush accepted messages before stdin is closed (the SDK's value)."""

KILL_REAP_TIMEOUT_S = 2.0
"""How long to wait for a killed server to be seen gone before giving up on it (the SDK's)."""

_EXIT_POLL_S = 0.01
_UTF8 = frozenset({"utf-8", "utf8", "utf_8"})

__all__ = ["LineSplitter", "pump_messages", "stdio_transport"]


async def pump_messages(
    receive: Callable[[], Awaitable[bytes]],
    send: Callable[[SessionMessage | Exception], Awaitable[None]],
    reader: LineReader | None = None,
) -> None:
    """Read chunks with ``receive`` until it raises ``anyio.EndOfStream`` and ``send`` what
    ``reader`` (default: a fresh strict :class:`LineReader`) makes of each complete, non-blank
    line, in order. A trailing unfinished line at the end of the stream is dropped, as the SDK
    drops it."""
    lines = reader or LineReader()
    splitter = LineSplitter()
    while True:
        try:
            chunk = await receive()
        except anyio.EndOfStream:
            return
        for line in splitter.feed(chunk):
            if line.strip():
                await send(lines.read(line))


@asynccontextmanager
async def stdio_transport(
    params: StdioServerParameters, errlog: TextIO = sys.stderr
) -> AsyncGenerator[tuple[Any, Any], None]:
    """Spawn the server of ``params`` and yield ``(read_stream, write_stream)`` for
    :class:`mcp.ClientSession` (see the module docstring for the life cycle).

    Raises ``OSError`` when the server cannot be spawned, ``ValueError`` for invalid spawn
    parameters or an encoding other than UTF-8.
    """
    if sys.platform == "win32":  # pragma: no cover - the kernel is POSIX-only
        from mcp.client.stdio import stdio_client

        async with stdio_client(params, errlog=errlog) as streams:
            yield streams
        return
    if params.encoding.lower() not in _UTF8:
        raise ValueError(f"MCP stdio servers speak UTF-8; the encoding {params.encoding!r} is not supported")
    lines = LineReader(params.encoding_error_handler)
    process = await anyio.open_process(
        [params.command, *params.args],
        env=get_default_environment() | (params.env or {}),
        stderr=errlog,
        cwd=params.cwd,
        start_new_session=True,
    )
    stdout, stdin = process.stdout, process.stdin
    assert stdout is not None and stdin is not None  # both were piped by open_process
    # No await between the spawn and the task group, or a cancellation would leak the process.
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    writer_done = anyio.Event()
    shutting_down = False

    async def reader() -> None:
        try:
            async with read_writer:
                try:
                    await pump_messages(stdout.receive, read_writer.send, lines)
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass  # the session is gone (or our shutdown closed stdout)
                finally:
                    await _drain(process)
        except (anyio.BrokenResourceError, ConnectionError, OSError):
            if not shutting_down:
                logger.exception("reading the MCP server's stdout failed")

    async def writer() -> None:
        try:
            async with write_reader:
                async for message in write_reader:
                    lines.sent(message.message)
                    try:
                        data = encode_message(message.message)
                    except Exception as exc:  # noqa: BLE001 - fail that request, keep the connection
                        await _fail_unwritable(message.message, exc, read_writer.send)
                        continue
                    await stdin.send(data)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server stopped reading: end the session's reads instead of letting a request hang.
            await read_writer.aclose()
        finally:
            writer_done.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(reader)
        tg.start_soon(writer)
        try:
            yield read_stream, write_stream
        finally:
            shutting_down = True
            with anyio.CancelScope(shield=True):
                read_stream.close()  # releases the reader into its drain
                write_stream.close()
                with anyio.move_on_after(WRITER_FLUSH_TIMEOUT_S):
                    await writer_done.wait()
                await _stop_process(process)
                for stream in (read_stream, write_stream, read_writer, write_reader):
                    await stream.aclose()
                await anyio.lowlevel.checkpoint()
            tg.cancel_scope.cancel()


async def _fail_unwritable(
    message: Any, exc: Exception, send: Callable[[SessionMessage | Exception], Awaitable[None]]
) -> None:
    """A message that cannot be serialized: a request gets an error response at once (its
    call fails with the reason), anything else is logged."""
    reason = f"{type(exc).__name__}: {exception_text(exc)}"
    if isinstance(message, mcp_types.JSONRPCRequest):
        error = mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=reason, data=dict(UNWRITABLE_REQUEST))
        await send(SessionMessage(mcp_types.JSONRPCError(jsonrpc="2.0", id=message.id, error=error)))
    else:
        logger.warning("a message to an MCP server could not be written: %s", reason)


async def _drain(process: Any) -> None:
    """Discard the rest of the server's stdout (shielded), so a server still writing cannot
    block on a full pipe instead of exiting; ends when the pipe closes."""
    with (
        anyio.CancelScope(shield=True),
        suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError),
    ):
        while True:
            await process.stdout.receive()


async def _exited_within(process: Any, timeout_s: float) -> bool:
    """Whether ``process`` has exited within ``timeout_s`` (polls ``returncode``: ``wait()``
    would also wait for the pipes, which a leftover child may hold open)."""
    with anyio.move_on_after(timeout_s):
        while process.returncode is None:
            await anyio.sleep(_EXIT_POLL_S)
        return True
    return process.returncode is not None


async def _stop_process(process: Any) -> None:
    """MCP's shutdown sequence: close stdin, wait, then terminate the process group."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    if not await _exited_within(process, PROCESS_TERMINATION_TIMEOUT):
        await terminate_posix_process_tree(process, FORCE_KILL_TIMEOUT)
        if not await _exited_within(process, KILL_REAP_TIMEOUT_S):
            logger.warning("MCP server process %d is still alive after SIGKILL; abandoning it", process.pid)
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()
    if process.returncode is not None:
        with anyio.move_on_after(KILL_REAP_TIMEOUT_S):
            await process.aclose()
