"""codemode-raw-text-v1: a response's long content strings travel beside its frame, and the
client puts them back; the message it reads is the one the host wrote, as if sent inline."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemode.wire import frame_json, messages, raw_text
from codemode.wire.framing import MAX_FRAME_BYTES, FrameError, encode_frame, read_attached_payload, read_frame
from codemode.wire.raw_text import MIN_RAW_CHARS, RAW_MEMBER

pytestmark = pytest.mark.unit

LONG = MIN_RAW_CHARS


def _initial(items: list[dict[str, Any]]) -> dict[str, Any]:
    response = messages.result("1", items, None, result_buffered_for_ns=0, code_mode_host_duration_ns=5)
    return dict(messages.initial_response(7, messages.ok(response)))


def _waited(items: list[dict[str, Any]]) -> dict[str, Any]:
    response = messages.terminated("1", items, code_mode_host_duration_ns=5)
    return dict(messages.operation_response(8, messages.ok(messages.wait_completed(messages.live_cell(response)))))


async def _client_reads(frames: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    """What the client reads from ``frames``: the message, its raw texts put back."""
    reader = asyncio.StreamReader()
    reader.feed_data(b"".join(part for frame in frames for part in frame))
    reader.feed_eof()
    message = await read_frame(reader)
    assert message is not None
    if RAW_MEMBER in message:
        message = await raw_text.put_back(message, lambda: read_attached_payload(reader))
    assert await read_frame(reader) is None  # nothing left over
    return message


def test_long_strings_leave_the_json_with_their_paths_in_order():
    items = [
        {"type": "input_text", "text": "short"},
        {"type": "input_text", "text": "a" * LONG},
        {"type": "input_image", "image_url": "data:image/png;base64," + "B" * LONG, "detail": None},
        {"type": "input_text", "text": "c" * (LONG - 1)},
        {"type": "input_audio", "audio_url": "data:audio/wav;base64," + "D" * LONG},
        {"type": "stream", "name": "stdout", "text": "e" * LONG},  # the notebook profile's
    ]
    message = _initial(items)
    before = json.dumps(message)
    stripped, texts = raw_text.take_out(message)
    assert json.dumps(message) == before  # the host's own message is not changed
    body = ["result", "value", "Result", "content_items"]
    assert stripped[RAW_MEMBER] == [
        [*body, 1, "text"],
        [*body, 2, "image_url"],
        [*body, 4, "audio_url"],
        [*body, 5, "text"],
    ]
    assert texts == [items[1]["text"], items[2]["image_url"], items[4]["audio_url"], items[5]["text"]]
    sent = stripped["result"]["value"]["Result"]["content_items"]
    assert [item.get("text", item.get("image_url", item.get("audio_url"))) for item in sent] == [
        "short",
        None,
        None,
        "c" * (LONG - 1),
        None,
        None,
    ]


@pytest.mark.parametrize("build", [_initial, _waited], ids=["initial-response", "wait-completed"])
async def test_the_client_reads_the_message_the_host_wrote(build):
    text = "é" * LONG + "\U0001f600"
    message = build([{"type": "input_text", "text": text}, {"type": "input_text", "text": "x"}])
    frames = raw_text.frames(message)
    assert frames is not None and len(frames) == 2
    assert frames[1] == (len(text.encode()).to_bytes(4, "little"), text.encode())  # UTF-8 as it is, no JSON
    assert await _client_reads(frames) == message


@pytest.mark.parametrize(
    "message",
    [
        _initial([{"type": "input_text", "text": "x" * (LONG - 1)}]),
        dict(messages.initial_response(7, messages.error("e" * LONG))),
        {"type": "delegate/request", "id": 1, "sessionId": "s", "request": {"input": "x" * LONG}},
    ],
    ids=["short-texts", "an-error", "not-a-response"],
)
def test_other_messages_stay_whole(message):
    assert raw_text.frames(message) is None


def test_a_response_too_large_for_one_frame_inline_is_written_inline():
    """Codex's frame limit decides as if the text were inline: the host then writes it inline
    and meets the limit's error, never a frame the client could not have read."""
    too_long = MAX_FRAME_BYTES // 6  # at 6 bytes a character (\\u001f) it might not fit
    assert raw_text.frames(_initial([{"type": "input_text", "text": "x" * too_long}])) is None
    assert raw_text.frames(_initial([{"type": "input_text", "text": "x" * (too_long // 2)}])) is not None


async def test_a_lone_surrogate_reads_as_it_does_inline():
    message = _initial([{"type": "input_text", "text": "x" * LONG + "\ud800"}])
    inline = json.loads(frame_json.payload(message))
    assert await _client_reads(raw_text.frames(message)) == inline
    assert inline["result"]["value"]["Result"]["content_items"][0]["text"].endswith("\ufffd")


_texts = st.one_of(st.text(max_size=5), st.text(min_size=1, max_size=3).map(lambda t: t * (LONG // len(t) + 1)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["text", "image_url"]), _texts), max_size=4), st.booleans())
def test_any_response_round_trips_as_inline_would(fields, waited):
    """For any mix of short and long strings (any characters), the client reads what the same
    message sent inline reads as."""
    items = [{"type": "input_text" if field == "text" else "input_image", field: text} for field, text in fields]
    message = (_waited if waited else _initial)(items)
    frames = raw_text.frames(message) or [encode_frame_parts_of(message)]
    assert asyncio.run(_client_reads(frames)) == json.loads(frame_json.payload(message))


def encode_frame_parts_of(message: dict[str, Any]) -> tuple[bytes, bytes]:
    frame = encode_frame(message)
    return frame[:4], frame[4:]


@pytest.mark.parametrize(
    ("paths", "raw", "failure"),
    [
        (
            [["result", "value", "Result", "cell_id"]],
            [b"x"],
            "failed to decode code-mode IPC frame: bad codemode/raw path ['result', 'value', 'Result', 'cell_id']",
        ),
        (
            [["result", "nowhere"]],
            [b"x"],
            "failed to decode code-mode IPC frame: bad codemode/raw path ['result', 'nowhere']",
        ),
        ("everything", [], "failed to decode code-mode IPC frame: codemode/raw is not a list"),
        (
            [["result", "value", "Result", "content_items", 0, "text"]],
            [b"\xff"],
            "failed to decode code-mode IPC frame: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte",
        ),
        (
            [["result", "value", "Result", "content_items", 0, "text"]],
            [],
            "failed to read code-mode IPC frame: unexpected end of file",
        ),
    ],
    ids=["not-null", "no-such-path", "not-a-list", "not-utf-8", "missing-frame"],
)
async def test_raw_frames_that_do_not_fit_their_message_are_refused(paths, raw, failure):
    message = _initial([{"type": "input_text", "text": None}])
    message[RAW_MEMBER] = paths
    frames = [encode_frame_parts_of(message)] + [(len(data).to_bytes(4, "little"), data) for data in raw]
    with pytest.raises(FrameError) as info:
        await _client_reads(frames)
    assert str(info.value) == failure
