"""The client driver with codemode-raw-text-v1 granted: a response whose long texts travel in
frames of their own reaches its caller whole; frames that do not fit it fail the connection
with the decoding error, as a malformed frame does."""

from __future__ import annotations

import asyncio

import pytest
from driver_harness import FRAME_TIMEOUT_S, DriverHarness, RecordingDelegate

from codemode.wire import messages, raw_text
from codemode.wire.raw_text import MIN_RAW_CHARS, RAW_MEMBER

pytestmark = [pytest.mark.unit, pytest.mark.timeout(60)]


def _initial(request_id: int, text: str) -> dict:
    response = messages.result("1", [messages.input_text(text)], None, code_mode_host_duration_ns=1)
    return dict(messages.initial_response(request_id, messages.ok(response)))


async def test_a_response_with_raw_texts_reaches_its_caller_whole():
    async with DriverHarness() as h:
        await h.open(RecordingDelegate())
        initial = await h.start_cell(2, "1")
        text = "ü" * MIN_RAW_CHARS + "end"
        for header, payload in raw_text.frames(_initial(2, text)):
            h.reader.feed_data(header + payload)
        response = await asyncio.wait_for(initial, FRAME_TIMEOUT_S)
        assert (response.kind, response.content_items) == ("Result", [{"type": "input_text", "text": text}])
        assert h.connection.alive


async def test_raw_frames_that_do_not_fit_their_response_fail_the_connection():
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        (header, payload), _ = raw_text.frames(_initial(2, "x" * MIN_RAW_CHARS))
        h.reader.feed_data(header + payload + (1).to_bytes(4, "little") + b"\xff")
        await asyncio.wait_for(h.connection.closed.wait(), FRAME_TIMEOUT_S)
        assert h.connection.failure == (
            "failed to read code-mode host message: failed to decode code-mode IPC frame: "
            "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"
        )
        assert delegate.closed_cells == ["1"]


async def test_without_the_capability_the_member_is_not_read_as_raw_frames():
    """A host that did not grant the capability cannot make the client read frames as texts."""
    async with DriverHarness(capabilities=[]) as h:
        await h.open(RecordingDelegate())
        initial = await h.start_cell(2, "1")
        (header, payload), _ = raw_text.frames(_initial(2, "x" * MIN_RAW_CHARS))
        h.reader.feed_data(header + payload)
        response = await asyncio.wait_for(initial, FRAME_TIMEOUT_S)
        assert response.content_items == [{"type": "input_text", "text": None}]
        assert RAW_MEMBER not in response.content_items[0]
