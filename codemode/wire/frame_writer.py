"""Frames written in one event-loop iteration leave in one system call.

Both ends of the host connection write one frame per message, often many at once: a cell that
starts 1 000 tool calls makes the host write 1 000 ``tool/invoke`` requests, and the client
answers them as their handlers end, hundreds in the same iteration. Each ``write()`` on a
pipe is a system call that also wakes the reader, about 0.1 ms on the 2-core machine, which
made the writes the largest single cost of a parallel fan-out. :class:`FrameWriter` keeps the
frames of one iteration and hands them to the transport together at its end (a callback
scheduled with ``call_soon``), in the order they were written.

A frame of :data:`STREAM_FRAME_BYTES` or more is written by a thread of its own instead
(:class:`_Stream`). asyncio's pipe transport writes a large buffer one pipe-full per loop
iteration, each after the loop noticed the pipe had room again; for 10 MB that is about forty
wake-ups of the loop, which kept the reader waiting about 60% longer than a blocking writer
(Codex's host writes so). The thread waits on the pipe itself (``poll``, the GIL released) and
refills it as soon as it has room, while the loop stays free; frames written meanwhile go out
after it, from the same thread, in order. It writes through a duplicate of the descriptor, so a
transport closed meanwhile neither cuts the frame short nor lets the descriptor's number be
reused under it, and the reader sees the end of the stream only after the frame.

A frame is never split or reordered, and nothing waits longer than the rest of the current
iteration. :meth:`FrameWriter.drain` writes what is kept before it waits, so a process that
drains before it exits loses nothing.
"""

from __future__ import annotations

import asyncio
import collections
import errno
import os
import select
import threading
from typing import Any

LARGE_FRAME_BYTES = 1 << 16
"""A frame at least this long is handed over at once (after what was kept): joining it with
small frames would copy it for nothing."""
STREAM_FRAME_BYTES = 1 << 20
"""A frame at least this long, on a pipe or socket whose transport holds nothing, is written by
a thread of its own (see the module docstring)."""
POLL_S = 0.1
"""How often a streaming thread that waits for room checks whether its transport was closed."""


class _Stream:
    """A thread writing frames to a duplicate of a non-blocking descriptor, one after the other,
    until none is left. :meth:`add` takes more while it runs and is False once it has ended."""

    def __init__(self, descriptor: int, transport: asyncio.WriteTransport, done: Any) -> None:
        self._descriptor = os.dup(descriptor)
        self._transport = transport
        self._done = done
        self._lock = threading.Lock()
        self._frames: collections.deque[bytes] = collections.deque()
        self._running = True
        self.error: OSError | None = None

    def start(self, frames: list[bytes]) -> None:
        self._frames.extend(frames)
        threading.Thread(target=self._run, name="codemode-frame-stream", daemon=True).start()

    def add(self, frame: bytes) -> bool:
        """Queue ``frame`` behind the others; False when the thread has ended (write it elsewhere)."""
        with self._lock:
            if not self._running:
                return False
            self._frames.append(frame)
            return True

    def _run(self) -> None:
        poller = select.poll()
        poller.register(self._descriptor, select.POLLOUT)
        try:
            while True:
                with self._lock:
                    if not self._frames or self.error is not None:
                        self._running = False
                        break
                    frame = self._frames.popleft()
                self._write(memoryview(frame), poller)
        finally:
            os.close(self._descriptor)
            self._done()

    def _write(self, view: memoryview, poller: Any) -> None:
        while view and self.error is None:
            try:
                view = view[os.write(self._descriptor, view) :]
            except BlockingIOError:
                if not poller.poll(POLL_S * 1000) and self._transport.is_closing():
                    self.error = BrokenPipeError("the transport was closed while a frame was written")
            except OSError as exc:  # the reader is gone
                self.error = exc


class FrameWriter:
    """Coalesces the frames written to ``writer`` (an ``asyncio.StreamWriter``) per event-loop
    iteration; use it from the loop's thread only."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self._kept: list[bytes] = []
        self._scheduled = False
        self._stream: _Stream | None = None
        self._streamed: asyncio.Future[None] | None = None
        self._failure: OSError | None = None
        self._dropped: OSError | None = None

    def write(self, frame: bytes) -> None:
        """Queue ``frame`` (whole, after every frame written before it)."""
        if len(frame) >= LARGE_FRAME_BYTES:
            self.flush()
            self._hand_over([frame], len(frame))
            return
        self._keep(frame)

    def write_parts(self, header: bytes, payload: bytes) -> None:
        """Queue the frame made of ``header`` then ``payload`` (``protocol.encode_frame_parts``):
        a large payload goes to the transport as it is, after its header, never copied to join
        them."""
        if len(payload) >= LARGE_FRAME_BYTES:
            self.flush()
            self._hand_over([header, payload], len(payload))
            return
        self._keep(header + payload)

    def _keep(self, frame: bytes) -> None:
        self._kept.append(frame)
        if not self._scheduled:
            self._scheduled = True
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Hand every kept frame to the transport now, in one write."""
        self._scheduled = False
        kept, self._kept = self._kept, []
        if len(kept) == 1:
            self._hand_over(kept, len(kept[0]))
        elif kept:
            joined = b"".join(kept)
            self._hand_over([joined], len(joined))

    def _hand_over(self, parts: list[bytes], size: int) -> None:
        """Write ``parts`` after everything before them: behind a running stream, by a new stream
        when ``size`` is large and the transport holds nothing, else to the transport."""
        stream = self._stream
        if stream is not None:
            # The thread ends only with its queue empty, after writing all it took: a part it
            # no longer takes goes to the transport, after everything the thread wrote.
            parts = [part for part in parts if not stream.add(part)]
        elif size >= STREAM_FRAME_BYTES and self._start_stream(parts):
            return
        transport = getattr(self.writer, "transport", None)  # a writer of tests may have none
        if parts and self._dropped is None and transport is not None and transport.is_closing():
            # The transport drops what it is given once its pipe failed or its reader went away
            # (asyncio closes a write pipe whose reader closed): kept for :attr:`failure`.
            self._dropped = BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE))
        for part in parts:
            self.writer.write(part)

    def _start_stream(self, parts: list[bytes]) -> bool:
        transport = getattr(self.writer, "transport", None)  # a writer of tests may have none
        if transport is None or transport.is_closing() or transport.get_write_buffer_size():
            return False
        channel = transport.get_extra_info("pipe") or transport.get_extra_info("socket")
        if channel is None:
            return False
        loop = asyncio.get_running_loop()
        streamed = loop.create_future()

        def done() -> None:
            loop.call_soon_threadsafe(self._stream_ended, stream, streamed)

        stream = _Stream(channel.fileno(), transport, done)
        self._stream, self._streamed = stream, streamed
        stream.start(parts)
        return True

    def _stream_ended(self, stream: _Stream, streamed: asyncio.Future[None]) -> None:
        if self._stream is stream:
            self._stream = self._streamed = None
        if not streamed.done():
            streamed.set_result(None)
        if stream.error is not None:
            self._failure = stream.error
            self.writer.transport.abort()  # later writes are dropped, as after a failed write

    @property
    def failure(self) -> OSError | None:
        """Why frames were lost, once some were: a streaming thread's write error (which
        :meth:`drain` raises), or ``BrokenPipeError`` for frames handed to a transport already
        closing (its pipe failed, its reader went away, or it was closed; the transport's own
        write error reaches its protocol's ``connection_lost``)."""
        return self._failure or self._dropped

    async def _stream_finished(self) -> None:
        """Wait until no thread writes; raise the error a thread met (the reader went away)."""
        streamed = self._streamed
        if streamed is not None:
            await asyncio.shield(streamed)
        if self._failure is not None:
            raise self._failure

    async def wait_for_room(self) -> None:
        """Wait while the transport's buffer is over its high-water mark (flow control), or a
        thread still writes a large frame, without writing what is kept. Raises what
        ``StreamWriter.drain`` raises for a lost connection."""
        await self._stream_finished()
        await self.writer.drain()

    async def drain(self) -> None:
        """Write what is kept, then wait as ``StreamWriter.drain`` does (and raise what it raises)."""
        self.flush()
        await self._stream_finished()
        await self.writer.drain()


__all__ = ["LARGE_FRAME_BYTES", "STREAM_FRAME_BYTES", "FrameWriter"]
