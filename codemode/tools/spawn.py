"""Starting a command's process, the one way ``exec_command`` does for both of its paths
(:func:`codemode.tools.commands.run_command` and
:meth:`codemode.tools.exec_sessions.ExecProcess.start`): under :mod:`codemode.tools.launcher`,
and for a sandboxed command, again with a fresh command line when bubblewrap failed to set the
sandbox up.

Why the retry: bubblewrap hides a file by mounting ``/dev/null`` over it, and the command line
names the files that exist when it is built (other kernels' connection files in ``/tmp``, a
``$CODEMODE_HISTORY_FILE``'s journal). A file deleted (or made again) before bubblewrap mounts
over it fails the whole command (``bwrap: Can't create file at PATH: Read-only file system``,
``Can't bind mount ...``). bubblewrap's own ``--json-status-fd`` reports the child's pid before
the mounts, so it cannot tell: the sandboxed command line starts with a step that writes
:data:`STARTED_MARK` to a pipe and closes it, then runs the command
(:func:`codemode.sandbox.bwrap.bwrap_argv`'s ``status_fd``). A pipe closed without the mark
means nothing of the command ran: the command line is built again (the files to hide are those
existing then) and started again, up to :data:`SETUP_ATTEMPTS` times in all; the last attempt
is returned whatever happened, so bubblewrap's error reaches the output.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Sequence
from typing import Any

from codemode.tools.launcher import launcher_argv

SETUP_ATTEMPTS = 20
"""How many times a sandboxed command is started when bubblewrap fails to set the sandbox up
(a failed attempt costs one bubblewrap start, a few milliseconds; a file made and deleted
without pause fails about every other one)."""

STARTED_MARK = b"x"
"""What the sandboxed command line writes to the status pipe once the sandbox is set up."""

SandboxedLine = Callable[[int], Sequence[str]]
"""A sandboxed command line, built for each attempt around the status pipe's write end."""

CommandLine = Sequence[str] | SandboxedLine
"""A fixed command line, or a sandboxed one."""


async def _started(read_end: int) -> bool:
    """Whether the status pipe ``read_end`` (owned: closed here) got the mark before its end."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(read_end, "rb", buffering=0)
    )
    try:
        return STARTED_MARK in await reader.read(1)
    finally:
        transport.close()


async def _launch(argv: Sequence[str], pass_fds: Sequence[int], options: dict[str, Any]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *launcher_argv(argv[0], list(argv[1:])), start_new_session=True, pass_fds=tuple(pass_fds), **options
    )


async def spawn(
    command: CommandLine,
    *,
    pass_fds: Sequence[int] = (),
    discard: Callable[[], None] | None = None,
    **options: Any,
) -> asyncio.subprocess.Process:
    """Start ``command`` in its own session under the launcher, passing ``pass_fds``, with
    ``options`` for :func:`asyncio.create_subprocess_exec` (``stdin``, ``stdout``, ``stderr``,
    ``cwd``, ``env``). A callable ``command`` is a sandboxed one: it gets the status pipe's
    write end and gives the command line, and is retried as the module says; ``discard`` drops
    what a failed attempt wrote where ``stdout`` is not a pipe (a pseudo-terminal). Raises
    ``OSError`` when the process cannot be started."""
    if not callable(command):
        return await _launch(command, pass_fds, options)
    for attempt in range(1, SETUP_ATTEMPTS + 1):
        read_end, write_end = os.pipe()
        try:
            process = await _launch(command(write_end), (*pass_fds, write_end), options)
        except BaseException:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        try:
            if await _started(read_end) or attempt == SETUP_ATTEMPTS:
                return process
            # Set-up failed, nothing ran: bubblewrap's message goes with the attempt.
            if process.stdout is not None:
                await process.stdout.read()
            await process.wait()
            if discard is not None:
                discard()
        except BaseException:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            raise
    raise AssertionError("unreachable: the last attempt returns")


def marked(bash: str, status_fd: int, command: Sequence[str]) -> list[str]:
    """``command`` preceded by ``bash`` writing :data:`STARTED_MARK` to ``status_fd`` and
    closing it (the command never holds it), as the sandbox's first step; when the write fails,
    exit status 126 and nothing runs (a command must never run twice)."""
    script = f'printf {STARTED_MARK.decode()} >&{status_fd} || exit 126; exec {status_fd}>&-; exec "$@"'
    return [bash, "--norc", "--noprofile", "-c", script, "bash", *command]
