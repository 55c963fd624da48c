"""Running one command for ``exec_command``: its process group, output, timeout and cancellation.

:func:`run_command` starts ``argv`` (already wrapped in the sandbox when there is one) under
:mod:`codemode.tools.launcher`, so it dies with the kernel even after a SIGKILL, in its own
process group, stdout and stderr merged, stdin ``/dev/null``. On cancellation or timeout the
whole group gets SIGTERM, then SIGKILL after :data:`KILL_GRACE_S`; when the command exits,
anything it left running in its group is killed too (no orphans). The output is captured with
memory bounded by the token budget (:class:`~codemode.tools.capture.OutputCapture`), so a
command that prints without end costs neither memory nor a reply too large to send.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from codemode.cancellation import CancellationToken
from codemode.tools.capture import OutputCapture
from codemode.tools.spawn import CommandLine, spawn

KILL_GRACE_S = 2.0
"""After SIGTERM, how long a cancelled command's group gets before SIGKILL, in seconds."""

READ_CHUNK_BYTES = 1 << 16
"""How much of a command's output is read at a time."""

TIMEOUT_EXIT_CODE = 124
"""Exit code reported for a command killed at its timeout (as coreutils' ``timeout``)."""


@dataclass
class CommandRun:
    """How a command ended: ``exit_code`` (None when killed by a signal we did not send),
    ``output`` (cut to the budget), ``original_token_count`` (Codex's estimate of the whole
    output, ``ceil(bytes / 4)``, cut or not),
    ``wall_time_seconds``, ``cancelled`` and ``timed_out``."""

    exit_code: int | None
    output: str
    wall_time_seconds: float
    original_token_count: int = 0
    cancelled: bool = False
    timed_out: bool = False


def _settle_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def process_exited(process: asyncio.subprocess.Process) -> int | None:
    """Wait for the process itself to exit, not for its pipes to close (asyncio's ``wait()``
    also waits for EOF, which a background child holding stdout would delay forever)."""
    if process.returncode is not None:
        return process.returncode
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        loop.add_reader(pidfd, _settle_once, ready)
        try:
            await ready
        finally:
            loop.remove_reader(pidfd)
            os.close(pidfd)
    while process.returncode is None:
        # The child watcher sets the code right after the exit; poll briefly for it.
        await asyncio.sleep(0.01)
    return process.returncode


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def run_command(
    argv: CommandLine,
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,
    max_output_tokens: int,
    timeout_ms: int | None,
    cancellation: CancellationToken,
    pass_fds: Sequence[int] = (),
) -> CommandRun:
    """Run ``argv`` (started by :func:`~codemode.tools.spawn.spawn`) to its end, its timeout or
    ``cancellation``. Raises ``OSError`` when it cannot be started."""
    started = time.monotonic()
    process = await spawn(
        argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        cwd=cwd,
        env=env,
        pass_fds=pass_fds,
    )
    capture = OutputCapture(max_output_tokens)

    async def pump() -> None:
        assert process.stdout is not None
        while True:
            chunk = await process.stdout.read(READ_CHUNK_BYTES)
            if not chunk:
                return
            capture.feed(chunk)

    reader = asyncio.ensure_future(pump())
    waiter = asyncio.ensure_future(process_exited(process))
    cancelled = asyncio.ensure_future(cancellation.wait())
    timed_out = False
    try:
        timeout = None if timeout_ms is None else timeout_ms / 1000
        done, _ = await asyncio.wait({waiter, cancelled}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            timed_out = not cancelled.done()
            _kill_group(process.pid, signal.SIGTERM)
            try:
                async with asyncio.timeout(KILL_GRACE_S):
                    await asyncio.shield(waiter)
            except TimeoutError:
                _kill_group(process.pid, signal.SIGKILL)
                await waiter
    finally:
        cancelled.cancel()
        # Whatever the command left behind in its group goes too: no orphans.
        _kill_group(process.pid, signal.SIGKILL)
        if not waiter.done():
            await waiter
        with contextlib.suppress(Exception):
            await process.wait()
        with contextlib.suppress(asyncio.TimeoutError):
            async with asyncio.timeout(1.0):
                await asyncio.shield(reader)
        reader.cancel()
    capture.finish()
    if timed_out:
        capture.feed_text(f"\ncommand timed out after {timeout_ms} ms and was killed")
    return CommandRun(
        exit_code=TIMEOUT_EXIT_CODE if timed_out else process.returncode,
        output=capture.render(),
        wall_time_seconds=round(time.monotonic() - started, 3),
        original_token_count=capture.original_token_count,
        cancelled=cancellation.cancelled,
        timed_out=timed_out,
    )
