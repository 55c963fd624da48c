"""FrameWriter: the frames of one event-loop iteration reach the transport in one write, whole
and in order; nothing is kept past the iteration or a drain."""

from __future__ import annotations

import asyncio

from codemode.frame_writer import LARGE_FRAME_BYTES, FrameWriter


class RecordingWriter:
    """The part of ``asyncio.StreamWriter`` FrameWriter uses, recording each write."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.drains = 0

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    async def drain(self) -> None:
        self.drains += 1


async def test_frames_of_one_iteration_leave_in_one_write_in_order():
    raw = RecordingWriter()
    frames = FrameWriter(raw)  # type: ignore[arg-type]

    async def send(n: int) -> None:
        frames.write(b"frame-%d;" % n)
        await frames.wait_for_room()

    await asyncio.gather(*(send(n) for n in range(100)))
    await asyncio.sleep(0)  # the flush scheduled by the first write runs at the end of its iteration
    assert raw.writes == [b"".join(b"frame-%d;" % n for n in range(100))]


async def test_a_frame_is_written_by_the_end_of_its_iteration():
    raw = RecordingWriter()
    frames = FrameWriter(raw)  # type: ignore[arg-type]
    frames.write(b"one")
    assert raw.writes == []
    await asyncio.sleep(0)
    frames.write(b"two")
    await asyncio.sleep(0)
    assert raw.writes == [b"one", b"two"]


async def test_a_large_frame_goes_at_once_after_what_was_kept():
    raw = RecordingWriter()
    frames = FrameWriter(raw)  # type: ignore[arg-type]
    big = b"x" * LARGE_FRAME_BYTES
    frames.write(b"a")
    frames.write(b"b")
    frames.write(big)
    assert raw.writes == [b"ab", big]
    frames.write(b"c")
    await asyncio.sleep(0)
    assert raw.writes == [b"ab", big, b"c"]


async def test_drain_writes_what_is_kept_first():
    raw = RecordingWriter()
    frames = FrameWriter(raw)  # type: ignore[arg-type]
    frames.write(b"last words")
    await frames.drain()
    assert (raw.writes, raw.drains) == ([b"last words"], 1)
    await asyncio.sleep(0)  # the scheduled flush finds nothing left
    assert raw.writes == [b"last words"]
