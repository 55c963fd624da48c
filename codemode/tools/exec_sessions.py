"""Commands that outlive their ``exec_command`` call: Codex's unified exec sessions.

Codex's ``exec_command`` waits ``yield_time_ms`` for a command (``codex-rs/core/src/unified_exec``):
a command that ended by then gives its ``exit_code``; one still running is kept under a
``session_id`` and its call returns the output so far. ``write_stdin({session_id, chars})``
writes to it (a terminal's keystrokes, for ``tty: true``) and returns what it printed since the
last call; once the command has ended, its last call gives the ``exit_code`` and the id is
forgotten (``write_stdin failed: Unknown process id N`` afterwards).

The numbers are Codex's (``unified_exec/mod.rs``): yield times are clamped to 250 ms ..
30 000 ms (:data:`MIN_YIELD_TIME_MS`, :data:`MAX_YIELD_TIME_MS`); an empty ``write_stdin`` (a
poll) waits 5 000 ms at least and 300 000 ms at most; session ids are random in
1 000 .. 99 999; at most :data:`MAX_PROCESSES` (64) sessions are kept: storing one more ends
the least recently used one, an ended one first, never one of the 8 used last
(``process_manager.rs`` ``prune_processes_if_needed``). Each call's output is cut to its
``max_output_tokens`` as ``exec_command``'s is (:class:`~codemode.tools.capture.OutputCapture`),
and what waits between calls is kept to its first and last 512 KiB (Codex's 1 MiB
``HeadTailBuffer``).

A session's process is the one ``exec_command`` started, with the same sandbox wrapping; it
keeps its sandbox's masks (:func:`~codemode.sandbox.bwrap.masked_paths`) until it ends. With
``tty`` its stdin, stdout and stderr are a pseudo-terminal's (``os.openpty``: echo on, ``\\r\\n``
line ends, as in Codex); without, stdin is ``/dev/null`` and writing to it fails with Codex's
``stdin is closed for this session; rerun exec_command with tty=true to keep stdin open``.

Lifetime: a session lives until its command ends and a call has reported it, until it is
pruned, or until :meth:`ExecSessions.aclose` (the registry's close: kernel shutdown) kills
every process group; the launcher (:mod:`codemode.tools.launcher`) kills them if the kernel
dies. As in Codex, a session outlives the cell that started it (Codex stores the process before
it waits, so a terminated cell does not end it), but a command whose ``exec_command`` call is
cancelled before it returned (the cell terminated during the yield) is killed, as codemode's
``exec_command`` always killed it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codemode.cancellation import CancellationToken
from codemode.tools.capture import OutputCapture
from codemode.tools.commands import process_exited
from codemode.tools.spawn import CommandLine, spawn

MIN_YIELD_TIME_MS = 250
MAX_YIELD_TIME_MS = 30_000
MIN_EMPTY_YIELD_TIME_MS = 5_000
MAX_BACKGROUND_POLL_MS = 300_000
DEFAULT_EXEC_YIELD_TIME_MS = 10_000
DEFAULT_WRITE_STDIN_YIELD_TIME_MS = 250
MAX_PROCESSES = 64
KEPT_RECENT = 8
"""The sessions used last, never pruned."""
PENDING_HALF_BYTES = 512 * 1024
"""Output waiting for the next call keeps this many bytes of its start and of its end."""
READ_CHUNK_BYTES = 1 << 16
DRAIN_AFTER_EXIT_S = 1.0
"""After the command exited, how long its output gets to reach its end, in seconds."""

UNKNOWN_PROCESS = "Unknown process id {session_id}"
STDIN_CLOSED = "stdin is closed for this session; rerun exec_command with tty=true to keep stdin open"


def clamp_yield(ms: int) -> int:
    """An ``exec_command`` or non-empty ``write_stdin`` yield time, clamped as Codex does."""
    return max(MIN_YIELD_TIME_MS, min(MAX_YIELD_TIME_MS, ms))


def clamp_poll(ms: int) -> int:
    """An empty ``write_stdin``'s yield time, clamped as Codex does."""
    return max(MIN_EMPTY_YIELD_TIME_MS, min(MAX_BACKGROUND_POLL_MS, ms))


@dataclass
class Collected:
    """What one call saw: ``output`` (cut to its budget), ``original_token_count`` (of the whole
    window), and ``exit_code`` once the command ``ended`` (None for a signal we did not send)."""

    output: str
    original_token_count: int
    ended: bool
    exit_code: int | None


class ExecProcess:
    """One running command: its process (under the launcher, in its own process group), its
    output so far, and what it holds until it ends (``closer``: the sandbox's masks)."""

    def __init__(
        self, process: asyncio.subprocess.Process, master: int | None, closer: contextlib.AsyncExitStack
    ) -> None:
        self.process = process
        self.tty = master is not None
        self.session_id = 0
        self.last_used = time.monotonic()
        self._master = master
        self._closer = closer
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0
        self._changed = asyncio.Event()
        self._eof = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None
        self._waiter = asyncio.ensure_future(process_exited(process))
        self._waiter.add_done_callback(lambda _: self._changed.set())
        self._closed = False

    @classmethod
    async def start(
        cls,
        argv: CommandLine,
        *,
        cwd: str,
        env: dict[str, str],
        pass_fds: Sequence[int],
        tty: bool,
        closer: contextlib.AsyncExitStack,
    ) -> ExecProcess:
        """Start ``argv`` by :func:`~codemode.tools.spawn.spawn` (a pseudo-terminal for ``tty``).
        Raises ``OSError``."""
        master = slave = None
        if tty:
            master, slave = os.openpty()
        try:
            stdio = slave if slave is not None else asyncio.subprocess.PIPE
            process = await spawn(
                argv,
                stdin=slave if slave is not None else asyncio.subprocess.DEVNULL,
                stdout=stdio,
                stderr=stdio if slave is not None else asyncio.subprocess.STDOUT,
                cwd=cwd,
                env=env,
                pass_fds=pass_fds,
                discard=None if master is None else lambda: _drain(master),
            )
        except BaseException:
            if master is not None:
                os.close(master)
            raise
        finally:
            if slave is not None:
                os.close(slave)
        command = cls(process, master, closer)
        command._start_reading()
        return command

    # -- output -----------------------------------------------------------------
    def _start_reading(self) -> None:
        if self._master is not None:
            os.set_blocking(self._master, False)
            asyncio.get_running_loop().add_reader(self._master, self._read_master)
        else:
            self._reader = asyncio.ensure_future(self._read_pipe())

    def _read_master(self) -> None:
        assert self._master is not None
        try:
            chunk = os.read(self._master, READ_CHUNK_BYTES)
        except BlockingIOError:
            return
        except OSError:  # EIO: every slave end is closed
            chunk = b""
        if chunk:
            self._keep(chunk)
        else:
            asyncio.get_running_loop().remove_reader(self._master)
            self._eof.set()
            self._changed.set()

    async def _read_pipe(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        try:
            while chunk := await stream.read(READ_CHUNK_BYTES):
                self._keep(chunk)
        finally:
            self._eof.set()
            self._changed.set()

    def _keep(self, chunk: bytes) -> None:
        room = PENDING_HALF_BYTES - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            if len(self._tail) > PENDING_HALF_BYTES:
                cut = len(self._tail) - PENDING_HALF_BYTES
                self._dropped += cut
                del self._tail[:cut]
        self._changed.set()

    def _drain_into(self, capture: OutputCapture) -> None:
        capture.feed(bytes(self._head))
        if self._dropped:
            capture.feed_text(f"\n…{self._dropped} bytes of output dropped…\n")
        capture.feed(bytes(self._tail))
        self._head.clear()
        self._tail.clear()
        self._dropped = 0

    @property
    def ended(self) -> bool:
        """True once the command itself exited."""
        return self._waiter.done()

    @property
    def exit_code(self) -> int | None:
        """The command's exit status once it ended; None for a signal we did not send."""
        code = self.process.returncode
        return code if code is not None and code >= 0 else None

    async def collect(self, yield_ms: int, max_tokens: int, cancellation: CancellationToken | None = None) -> Collected:
        """What the command prints until ``yield_ms`` passed or it ended (its output drained,
        a second at most), or until ``cancellation``; the output is cut to ``max_tokens``."""
        self.last_used = time.monotonic()
        capture = OutputCapture(max_tokens)
        deadline = time.monotonic() + yield_ms / 1000
        cancelled = asyncio.ensure_future(cancellation.wait()) if cancellation is not None else None
        try:
            while True:
                self._drain_into(capture)
                if self.ended:
                    break
                if cancelled is not None and cancelled.done():
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.clear()
                waits: set[asyncio.Future[Any]] = {asyncio.ensure_future(self._changed.wait())}
                if cancelled is not None:
                    waits.add(cancelled)
                done, pending = await asyncio.wait(waits, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                for task in pending:
                    if task is not cancelled:
                        task.cancel()
            if self.ended:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(DRAIN_AFTER_EXIT_S):
                        await self._eof.wait()
                self._drain_into(capture)
        finally:
            if cancelled is not None:
                cancelled.cancel()
        capture.finish()
        self.last_used = time.monotonic()
        return Collected(capture.render(), capture.original_token_count, self.ended, self.exit_code)

    # -- input and end ----------------------------------------------------------
    def write(self, data: bytes) -> None:
        """Type ``data`` into the terminal. Raises ``PermissionError`` (:data:`STDIN_CLOSED`)
        without one, ``OSError`` when it cannot be written."""
        if self._master is None:
            raise PermissionError(STDIN_CLOSED)
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._master, view)
            except BlockingIOError:
                time.sleep(0.001)  # a full terminal buffer: the command reads it shortly
                continue
            view = view[written:]

    async def aclose(self) -> None:
        """Kill the command's process group (SIGKILL), wait for it, release what it held."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            await self._waiter
        with contextlib.suppress(Exception):
            await self.process.wait()
        if self._reader is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                async with asyncio.timeout(DRAIN_AFTER_EXIT_S):
                    await asyncio.shield(self._reader)
            self._reader.cancel()
        if self._master is not None:
            with contextlib.suppress(ValueError, OSError):
                asyncio.get_running_loop().remove_reader(self._master)
            os.close(self._master)
            self._master = None
        await self._closer.aclose()


class ExecSessions:
    """The sessions of one kernel (one registry's built-ins share it), by ``session_id``."""

    def __init__(self) -> None:
        self._processes: dict[int, ExecProcess] = {}

    def __len__(self) -> int:
        return len(self._processes)

    def get(self, session_id: int) -> ExecProcess:
        """The session ``session_id``; ``KeyError`` with Codex's text when there is none."""
        process = self._processes.get(session_id)
        if process is None:
            raise KeyError(UNKNOWN_PROCESS.format(session_id=session_id))
        return process

    async def store(self, process: ExecProcess) -> int:
        """Keep ``process`` under a new random id (pruning one first when full); returns the id."""
        if len(self._processes) >= MAX_PROCESSES:
            await self._prune()
        session_id = random.randrange(1_000, 100_000)
        while session_id in self._processes:
            session_id = random.randrange(1_000, 100_000)
        process.session_id = session_id
        self._processes[session_id] = process
        return session_id

    async def _prune(self) -> None:
        by_use = sorted(self._processes.values(), key=lambda p: p.last_used)
        candidates = by_use[: max(0, len(by_use) - KEPT_RECENT)]
        if not candidates:
            return
        victim = next((p for p in candidates if p.ended), candidates[0])
        await self.forget(victim)

    async def forget(self, process: ExecProcess) -> None:
        """Drop ``process`` from the sessions and end it."""
        self._processes.pop(process.session_id, None)
        await process.aclose()

    async def aclose(self) -> None:
        """End every session (kernel shutdown)."""
        processes = list(self._processes.values())
        self._processes.clear()
        await asyncio.gather(*(p.aclose() for p in processes), return_exceptions=True)


def _drain(master: int) -> None:
    """Drop what is waiting on the pseudo-terminal ``master`` (a failed start's message)."""
    os.set_blocking(master, False)
    try:
        while os.read(master, READ_CHUNK_BYTES):
            pass
    except OSError:  # BlockingIOError: nothing more; EIO: no slave end open
        pass
    finally:
        os.set_blocking(master, True)
