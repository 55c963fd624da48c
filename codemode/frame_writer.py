"""Frames written in one event-loop iteration leave in one system call.

Both ends of the host connection write one frame per message, often many at once: a cell that
starts 1 000 tool calls makes the host write 1 000 ``tool/invoke`` requests, and the client
answers them as their handlers end, hundreds in the same iteration. Each ``write()`` on a
pipe is a system call that also wakes the reader, about 0.1 ms on the 2-core machine, which
made the writes the largest single cost of a parallel fan-out. :class:`FrameWriter` keeps the
frames of one iteration and hands them to the transport together at its end (a callback
scheduled with ``call_soon``), in the order they were written.

A frame is never split or reordered, and nothing waits longer than the rest of the current
iteration. :meth:`FrameWriter.drain` writes what is kept before it waits, so a process that
drains before it exits loses nothing.
"""

from __future__ import annotations

import asyncio

LARGE_FRAME_BYTES = 1 << 16
"""A frame at least this long is handed over at once (after what was kept): joining it with
small frames would copy it for nothing."""


class FrameWriter:
    """Coalesces the frames written to ``writer`` (an ``asyncio.StreamWriter``) per event-loop
    iteration; use it from the loop's thread only."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self.writer = writer
        self._kept: list[bytes] = []
        self._scheduled = False

    def write(self, frame: bytes) -> None:
        """Queue ``frame`` (whole, after every frame written before it)."""
        if len(frame) >= LARGE_FRAME_BYTES:
            self.flush()
            self.writer.write(frame)
            return
        self._keep(frame)

    def write_parts(self, header: bytes, payload: bytes) -> None:
        """Queue the frame made of ``header`` then ``payload`` (``protocol.encode_frame_parts``):
        a large payload goes to the transport as it is, after its header, never copied to join
        them."""
        if len(payload) >= LARGE_FRAME_BYTES:
            self.flush()
            self.writer.write(header)
            self.writer.write(payload)
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
            self.writer.write(kept[0])
        elif kept:
            self.writer.write(b"".join(kept))

    async def wait_for_room(self) -> None:
        """Wait while the transport's buffer is over its high-water mark (flow control), without
        writing what is kept. Raises what ``StreamWriter.drain`` raises for a lost connection."""
        await self.writer.drain()

    async def drain(self) -> None:
        """Write what is kept, then wait as ``StreamWriter.drain`` does (and raise what it raises)."""
        self.flush()
        await self.writer.drain()


__all__ = ["LARGE_FRAME_BYTES", "FrameWriter"]
