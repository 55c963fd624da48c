"""The host's stdin and stdout when they are not pipes: files, ``/dev/null``, a terminal.

asyncio watches a descriptor with epoll, which refuses regular files and ``/dev/null``: its pipe
transport raised ``ValueError`` for a file (``codemode-host < requests.bin`` ended with a
traceback) and, on ``/dev/null``, logged an error and waited for ever. Codex's host reads and
writes its stdio with blocking calls, so both work there: a file of requests is answered, and
an empty stdin is a clean end (status 0).

Here such a descriptor is put behind a pipe that a thread of its own fills or empties with
blocking calls (a *pump*); the server sees a pipe, as it does under a client. The pipe carries
the back-pressure: a pump that cannot write waits, and so does the side writing into its pipe.

A descriptor left closed by the parent (``codemode-host <&-``) is opened on ``/dev/null`` first
(:func:`open_missing_stdio`): an empty stdin, frames written nowhere, as Codex's host behaves;
otherwise the next file the host opened would take the number 0 or 1 and be read or written as
the protocol's stream.
"""

from __future__ import annotations

import os
import select
import stat
import threading
from typing import NoReturn

PUMP_CHUNK_BYTES = 256 * 1024
"""How much a pump moves per read (the host asks for pipes of this size, ``runtime/stdio.py``)."""
EXIT_FLUSH_TIMEOUT_S = 10.0
"""How long :func:`exit_process` waits for an output pump whose target does not take more
(a terminal paused with Ctrl-S) before the process ends anyway."""

_output_pumps: list[OutputPump] = []


def open_missing_stdio() -> None:
    """Open ``/dev/null`` on each of descriptors 0, 1 and 2 that is not open."""
    for descriptor, flags in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(descriptor)
        except OSError:
            opened = os.open(os.devnull, flags)
            if opened != descriptor:  # a lower number was free too; it is opened in its turn
                os.dup2(opened, descriptor)
                os.close(opened)


def is_pipe(descriptor: int) -> bool:
    """True for a pipe or a socket, which asyncio's pipe transports watch directly."""
    mode = os.fstat(descriptor).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


def _write_all(descriptor: int, data: memoryview) -> None:
    while data:
        data = data[os.write(descriptor, data) :]


def _pump_input(source: int, pipe_in: int) -> None:
    try:
        while chunk := os.read(source, PUMP_CHUNK_BYTES):
            _write_all(pipe_in, memoryview(chunk))
    except OSError:  # a read error ends the input as EOF does; a broken pipe: the host stopped
        pass
    finally:
        os.close(pipe_in)
        os.close(source)


def pipe_from(source: int) -> int:
    """A pipe's read end that delivers what ``source`` holds, then EOF; the descriptor
    ``source`` belongs to the pump from here on (it is closed at its end)."""
    pipe_out, pipe_in = os.pipe()
    threading.Thread(target=_pump_input, args=(source, pipe_in), name="codemode-stdin-pump", daemon=True).start()
    return pipe_out


class OutputPump:
    """A pipe whose write end stands for descriptor ``target``: a thread copies what arrives to
    ``target`` with blocking writes. :meth:`finish` waits until what was written reached it.

    A write error (``ENOSPC`` on ``/dev/full``, a closed terminal) is kept in :attr:`error`
    and closes the pipe's read end, so the host's next write fails with ``EPIPE``, as it would
    if a client stopped reading.
    """

    def __init__(self, target: int) -> None:
        self._target = target
        self.error: OSError | None = None
        self._pipe_out, self.pipe_in = os.pipe()
        self._wake_out, self._wake_in = os.pipe()
        self._thread = threading.Thread(target=self._run, name="codemode-stdout-pump", daemon=True)
        self._thread.start()
        _output_pumps.append(self)

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._pipe_out, select.POLLIN)
        poller.register(self._wake_out, select.POLLIN)
        finishing = False
        try:
            while True:
                # Once finishing, only what the pipe holds now is left: poll without waiting.
                ready = {fd for fd, _ in poller.poll(0 if finishing else None)}
                if self._pipe_out in ready:
                    chunk = os.read(self._pipe_out, PUMP_CHUNK_BYTES)
                    if not chunk:
                        return
                    _write_all(self._target, memoryview(chunk))
                elif finishing:
                    return
                if self._wake_out in ready:
                    finishing = True
        except OSError as exc:
            self.error = exc
        finally:
            os.close(self._pipe_out)

    def finish(self, timeout_s: float) -> None:
        """Copy what the pipe holds now to the target, waiting at most ``timeout_s`` seconds;
        call it once every frame was written into the pipe (after the writer's drain)."""
        if self._thread.is_alive():
            os.write(self._wake_in, b"\0")
            self._thread.join(timeout_s)


def exit_process(status: int) -> NoReturn:
    """End the process with ``status`` (``os._exit``: cell threads may still run) once every
    :class:`OutputPump` delivered what its pipe holds; call it after the frames were drained."""
    for pump in _output_pumps:
        pump.finish(EXIT_FLUSH_TIMEOUT_S)
    os._exit(status)
