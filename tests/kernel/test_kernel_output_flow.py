"""Large outputs reach every client whole, in order and in few messages, over jupyter_client.

Stream output is coalesced (``kernel/streams.py``) and the IOPub socket waits for a slow
subscriber instead of dropping messages (``kernel/app.py``). A second subscriber that reads
slowly (one message buffered, a sleep after each) must get every line.
"""

from __future__ import annotations

import base64

import pytest
from kernel_driver import SlowSubscriber, collect, send_execute

pytestmark = pytest.mark.timeout(300)

LINES = 100_000


def _stdout(messages) -> str:
    return "".join(
        m["content"]["text"] for m in messages if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
    )


@pytest.fixture
def slow(kernel):
    subscriber = SlowSubscriber(kernel, delay_s=0.002)
    subscriber.wait_subscribed(kernel.kc)
    yield subscriber
    subscriber.close()


def test_a_hundred_thousand_lines_reach_a_slow_client_whole_in_few_messages(kernel, slow):
    code = f'// @exec: {{"max_output_tokens": 1000000}}\nfor (let i = 0; i < {LINES}; i++) text("line " + i);'
    msg_id = send_execute(kernel.kc, code)
    slow.start(msg_id)
    fast = collect(kernel.kc, msg_id, timeout=120)
    assert fast.content["status"] == "ok", fast.content
    expected = "".join(f"line {i}\n" for i in range(LINES))
    assert fast.stdout == expected
    streams = fast.of_type("stream")
    assert len(streams) <= LINES // 1000, len(streams)
    assert max(len(s["text"]) for s in streams) <= 64 * 1024
    received = slow.result()
    assert _stdout(received) == expected


def test_lines_between_images_reach_a_slow_client_in_order(kernel, slow):
    pairs = 1500
    payload = base64.b64encode(bytes(range(256)) * 32).decode()  # 8 KiB per image
    code = (
        '// @exec: {"max_output_tokens": 1000000}\n'
        f'const url = "data:image/png;base64,{payload}";\n'
        f'for (let i = 0; i < {pairs}; i++) {{ text("line " + i); text("more " + i); image(url); }}'
    )
    msg_id = send_execute(kernel.kc, code)
    slow.start(msg_id)
    fast = collect(kernel.kc, msg_id, timeout=120)
    assert fast.content["status"] == "ok", fast.content
    received = slow.result()
    for messages in (fast.messages, received):
        kinds = [m["msg_type"] for m in messages]
        assert kinds == ["stream", "display_data"] * pairs
        texts = [m["content"]["text"] for m in messages if m["msg_type"] == "stream"]
        assert texts == [f"line {i}\nmore {i}\n" for i in range(pairs)]
        images = [m["content"]["data"]["image/png"] for m in messages if m["msg_type"] == "display_data"]
        assert images == [payload] * pairs
