"""FrameWriter: the frames of one event-loop iteration reach the transport in one write, whole
and in order; nothing is kept past the iteration or a drain; a large frame is streamed by a
thread without holding up the loop, still whole and in order."""

from __future__ import annotations

import asyncio
import errno
import os

import pytest

from codemode.wire.frame_writer import LARGE_FRAME_BYTES, STREAM_FRAME_BYTES, FrameWriter

pytestmark = pytest.mark.unit


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


# ---- large frames, written by a thread of their own, on a real pipe ----------------------------


async def _pipe_writer() -> tuple[FrameWriter, int]:
    """A FrameWriter on the write end of a fresh pipe, and the read end's descriptor."""
    read_end, write_end = os.pipe()
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, os.fdopen(write_end, "wb", 0))
    return FrameWriter(asyncio.StreamWriter(transport, protocol, None, loop)), read_end


def _read_all(descriptor: int) -> bytes:
    chunks = []
    while chunk := os.read(descriptor, 1 << 20):
        chunks.append(chunk)
    os.close(descriptor)
    return b"".join(chunks)


async def test_large_and_small_frames_reach_the_reader_whole_and_in_order():
    frames, read_end = await _pipe_writer()
    reader = asyncio.get_running_loop().run_in_executor(None, _read_all, read_end)
    big_a, big_b = b"A" * (3 * STREAM_FRAME_BYTES), b"B" * STREAM_FRAME_BYTES
    frames.write(b"small-1;")
    frames.write(big_a)
    frames.write(b"small-2;")  # written while the thread still streams big_a
    frames.write_parts(b"head;", big_b)
    await asyncio.sleep(0)
    frames.write(b"small-3;")
    await frames.drain()
    frames.writer.close()
    assert await reader == b"small-1;" + big_a + b"small-2;head;" + big_b + b"small-3;"


async def test_a_large_frame_does_not_hold_up_the_loop_while_the_reader_waits():
    """write() returns while nothing has been read; the frame arrives once the reader reads."""
    frames, read_end = await _pipe_writer()
    big = b"x" * (8 * STREAM_FRAME_BYTES)  # far more than a pipe holds
    frames.write(big)
    loop_turned = asyncio.Event()
    asyncio.get_running_loop().call_soon(loop_turned.set)
    await asyncio.wait_for(loop_turned.wait(), 5)
    reader = asyncio.get_running_loop().run_in_executor(None, _read_all, read_end)
    await frames.drain()
    frames.writer.close()
    assert await reader == big


async def test_closing_the_transport_mid_frame_still_delivers_the_frame_then_the_end():
    frames, read_end = await _pipe_writer()
    big = b"y" * (4 * STREAM_FRAME_BYTES)
    frames.write(big)
    frames.writer.close()  # as the client does when it shuts a host down
    assert await asyncio.get_running_loop().run_in_executor(None, _read_all, read_end) == big


async def test_a_reader_gone_mid_frame_fails_drain_instead_of_hanging():
    frames, read_end = await _pipe_writer()
    frames.write(b"z" * (8 * STREAM_FRAME_BYTES))
    os.read(read_end, 1000)
    os.close(read_end)
    with pytest.raises(BrokenPipeError):
        await asyncio.wait_for(frames.drain(), 10)
    with pytest.raises(BrokenPipeError):
        await frames.wait_for_room()


async def test_failure_names_frames_dropped_after_the_reader_went_away():
    """Frames written after the reader closed its end are dropped by the transport; ``failure``
    says so (EPIPE), without failing ``drain`` of a writer closed on purpose; before, it is None."""
    frames, read_end = await _pipe_writer()
    frames.write(b"before;")
    await frames.drain()
    assert os.read(read_end, 100) == b"before;"
    assert frames.failure is None
    os.close(read_end)
    lost = asyncio.Event()
    frames.writer.transport.get_protocol().connection_lost = lambda exc: lost.set()  # type: ignore[attr-defined]
    await asyncio.wait_for(lost.wait(), 10)  # asyncio notices the reader gone and closes the transport
    assert frames.failure is None  # nothing was lost yet
    frames.write(b"after;")
    frames.flush()
    assert isinstance(frames.failure, BrokenPipeError) and frames.failure.errno == errno.EPIPE
