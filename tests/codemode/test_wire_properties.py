"""Property tests of the wire: the frame decoder (:mod:`codemode.wire.framing`) and the
client's message handling (:class:`codemode.host.HostConnection`) given random bytes,
truncated frames, huge lengths and messages with wrong or unknown fields.

The promise: every input ends in a value or a clean,
named error - a :class:`FrameError`, or a connection failed with a protocol text - never another
exception and never a hang. Every read in these tests is bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import json
import struct

import json_strategies
import pytest
from driver.driver_harness import SESSION, DriverHarness, RecordingDelegate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode.wire.framing import MAX_FRAME_BYTES, FrameError, FrameTooLarge, decode_frames, encode_frame, read_frame

READ_BOUND_S = 2.0
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = json_strategies.json_values(2**63 - 1, max_leaves=12)
messages = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


def frame_of(payload: bytes) -> bytes:
    return struct.pack("<I", len(payload)) + payload


async def read_all(data: bytes) -> list[dict]:
    """Read frames from ``data`` followed by EOF, each read bounded by :data:`READ_BOUND_S`."""
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    out = []
    while True:
        message = await asyncio.wait_for(read_frame(reader), READ_BOUND_S)
        if message is None:
            return out
        out.append(message)


# -- the frame decoder ---------------------------------------------------------------------


@pytest.mark.unit
@SETTINGS
@given(st.binary(max_size=256))
def test_random_bytes_decode_or_fail_cleanly(data):
    try:
        decoded, rest = decode_frames(data)
    except FrameError:
        pass
    else:
        assert all(isinstance(m, dict) for m in decoded)
        assert data.endswith(rest)
        if len(rest) >= 4:  # what is left is an incomplete frame
            assert struct.unpack_from("<I", rest)[0] > len(rest) - 4
    try:
        asyncio.run(read_all(data))
    except FrameError:
        pass


@pytest.mark.slow
@SETTINGS
@given(st.lists(messages, min_size=1, max_size=4), st.data())
def test_truncated_frames_are_an_unexpected_end_of_file(batch, data):
    encoded = b"".join(encode_frame(m) for m in batch)
    cut = data.draw(st.integers(0, len(encoded) - 1))
    boundaries = {0}
    offset = 0
    for message in batch:
        offset += len(encode_frame(message))
        boundaries.add(offset)
    # decode_frames keeps an incomplete tail for later instead of failing.
    decoded, rest = decode_frames(encoded[:cut])
    assert decoded == batch[: len(decoded)]
    assert decoded + decode_frames(rest + encoded[cut:])[0] == batch
    if cut in boundaries:
        assert asyncio.run(read_all(encoded[:cut])) == batch[: len(decoded)]
    else:
        with pytest.raises(FrameError, match="unexpected end of file"):
            asyncio.run(read_all(encoded[:cut]))


@pytest.mark.unit
@SETTINGS
@given(st.integers(MAX_FRAME_BYTES + 1, 2**32 - 1), st.binary(max_size=64))
def test_huge_lengths_fail_at_once_without_waiting_for_the_payload(length, tail):
    data = struct.pack("<I", length) + tail
    with pytest.raises(FrameTooLarge) as info:
        decode_frames(data)
    assert str(info.value) == f"code-mode IPC frame length {length} exceeds 67108864 bytes"

    async def read_without_eof():
        reader = asyncio.StreamReader()
        reader.feed_data(data)  # no EOF: the reader must not wait for 4 GiB that never come
        return await asyncio.wait_for(read_frame(reader), READ_BOUND_S)

    with pytest.raises(FrameTooLarge):
        asyncio.run(read_without_eof())


@pytest.mark.unit
@SETTINGS
@given(st.one_of(json_values.filter(lambda v: not isinstance(v, dict)), st.binary(max_size=40)))
def test_payloads_that_are_not_json_objects_are_rejected(value):
    payload = value if isinstance(value, bytes) else json.dumps(value).encode()
    try:
        decoded = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        decoded = None
    if isinstance(decoded, dict):
        return
    with pytest.raises(FrameError, match="^failed to decode code-mode IPC frame: "):
        decode_frames(frame_of(payload))


# -- the client's message handling ------------------------------------------------------------

KNOWN_TYPES = [
    "operation/response",
    "execute/initialResponse",
    "delegate/request",
    "delegate/cancel",
    "cell/closed",
    "session/storedValues",
    "connection/ready",
]
ids = st.one_of(st.sampled_from([1, 2, 3, 7]), st.integers(-3, 12), json_values)
responses = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {"status": st.sampled_from(["ok", "error", "weird"])},
        optional={"value": json_values, "message": json_values},
    ),
    st.builds(
        lambda kind, cell, items, extra: {
            "status": "ok",
            "value": {kind: {"cell_id": cell, "content_items": items, **extra}},
        },
        st.sampled_from(["Yielded", "Result", "Terminated", "Other"]),
        st.sampled_from(["1", "2", 1, None]),
        st.one_of(
            json_values, st.lists(st.fixed_dictionaries({"type": st.sampled_from(["input_text", 3])}), max_size=2)
        ),
        messages,
    ),
    st.builds(
        lambda tag, kind, cell, extra: {
            "status": "ok",
            "value": {
                "type": "wait/completed",
                "outcome": {tag: {kind: {"cell_id": cell, "content_items": [], **extra}}},
            },
        },
        st.sampled_from(["LiveCell", "MissingCell", "Other"]),
        st.sampled_from(["Yielded", "Result", "Terminated"]),
        st.sampled_from(["1", "2"]),
        messages,
    ),
    st.builds(lambda cell: {"status": "ok", "value": {"type": "execution/started", "cellId": cell}}, json_values),
)
delegate_requests = st.one_of(
    json_values,
    st.builds(
        lambda cell, inv, extra: {"type": "tool/invoke", "invocation": {"cell_id": cell, **inv}, **extra},
        st.sampled_from(["1", "2", None]),
        messages,
        messages,
    ),
    st.builds(
        lambda cell, text: {"type": "notification/send", "callId": "c", "cellId": cell, "text": text},
        st.sampled_from(["1", "2", 7]),
        json_values,
    ),
)
host_messages = st.builds(
    lambda kind, request_id, session, result, request, extra: {
        "type": kind,
        "id": request_id,
        "sessionId": session,
        "cellId": "1",
        "result": result,
        "request": request,
        "values": extra,
        **extra,
    },
    st.one_of(st.sampled_from(KNOWN_TYPES), st.text(max_size=8)),
    ids,
    st.sampled_from([SESSION, "session-2", None]),
    responses,
    delegate_requests,
    messages,
)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(host_messages, min_size=1, max_size=5), st.binary(max_size=24))
def test_any_host_messages_end_alive_or_in_a_clean_failure(batch, garbage):
    asyncio.run(_drive(batch, garbage))


async def _drive(batch, garbage):
    async with DriverHarness(wait_transport_timeout_s=30) as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        waiting = asyncio.ensure_future(h.connection.wait(SESSION, "1", 60_000))
        await h.next_frame()
        for message in batch:
            h.send(message)
        # Either the connection failed with a named protocol error, or it still answers.
        await asyncio.wait_for(h.assert_no_frame_or_dead(), READ_BOUND_S)
        if h.connection.alive:
            # Then random bytes and the end of the stream: it must fail, cleanly and promptly.
            h.reader.feed_data(garbage)
            h.reader.feed_eof()
            await asyncio.wait_for(h.connection.closed.wait(), READ_BOUND_S)
        failure = h.connection.failure or ""
        assert failure.startswith(("code-mode host", "failed to read code-mode host message", "duplicate code-mode")), (
            failure
        )
        assert "exited unexpectedly" not in failure
        # The pending wait ended too (answered, or failed with the connection): no hang.
        await asyncio.wait_for(asyncio.gather(waiting, return_exceptions=True), READ_BOUND_S)
        assert delegate.closed_cells.count("1") <= 1
