"""Large outputs reach every client whole, in order and in few messages, over jupyter_client.

Stream output is coalesced (``kernel/streams.py``) and the IOPub socket waits for a slow
subscriber instead of dropping messages (``kernel/app.py``). A second subscriber that reads
slowly (one message buffered, a sleep after each) must get every line.
"""

from __future__ import annotations

import base64
import re

import pytest
from kernel_driver import SlowSubscriber, collect, send_execute, wait_for_iopub

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


@pytest.mark.parametrize(("unit", "opens_line"), [("x", True), ("x\n", False)], ids=["mid-line", "whole-lines"])
def test_an_interrupt_during_a_paced_delivery_ends_it_with_a_notice_on_a_line_of_its_own(kernel, unit, opens_line):
    """A large delivery is paced (500 kB/s after 1.5 MB); an interrupt while it waits ends it
    with one stderr notice counting what was not shown, which starts a line of its own even
    when the last text shown ended inside one (a terminal shows both streams as one)."""
    code = f'// @exec: {{"max_output_tokens": 10000000}}\ntext({unit!r}.repeat({4_000_000 // len(unit)}))'
    msg_id = send_execute(kernel.kc, code)
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "stream", timeout=60)
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, timeout=60, earlier=seen)
    shown = run.stdout
    assert 0 < len(shown) < len(unit) * (4_000_000 // len(unit))
    assert shown.endswith("\n") is not opens_line
    (notice,) = run.stderr_messages
    left = re.fullmatch(
        r"(\n?)The interrupt stopped this output here; (\d+) more output message\(s\) were not shown\.\n", notice
    )
    assert left is not None and left.group(1) == ("\n" if opens_line else "")
    assert int(left.group(2)) > 0


def test_output_past_one_response_answers_at_once_and_an_interrupt_ends_its_delivery(kernel):
    """Two texts that do not fit in one response (the host buffers at most 64 MiB, Codex's frame
    limit): the execute answers with the first at once, not at its yield time (the cell waits
    until a response takes it), and is delivered paced. An interrupt then ends the request at
    once: the output the interrupt's termination returns (the second text; the cell completed)
    is not shown but counted in the one notice, never delivered at the paced rate (68 s)."""
    size = 34_000_000  # two of them exceed 64 MiB; each is ceil(size / 64 KiB) stream messages
    code = (
        '// @exec: {"max_output_tokens": 100000000, "yield_time_ms": 120000}\n'
        f'text("a".repeat({size})); text("b".repeat({size}))'
    )
    msg_id = send_execute(kernel.kc, code)
    # Generous bounds: a few seconds with the behaviour, 120 s (the yield) and 68 s without.
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "stream", timeout=30)
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, timeout=30, earlier=seen)
    assert (run.content["status"], run.codemode["status"]) == ("ok", "completed")
    shown = run.stdout
    assert 0 < len(shown) < size and shown == "a" * len(shown)
    (notice,) = run.stderr_messages
    left = re.fullmatch(
        r"\nThe interrupt stopped this output here; (\d+) more output message\(s\) were not shown\.\n", notice
    )
    assert left is not None
    per_text = -(-size // (64 * 1024))
    assert int(left.group(1)) == 2 * per_text - len(shown) // (64 * 1024)
    assert collect(kernel.kc, send_execute(kernel.kc, 'text("after")'), timeout=30).stdout == "after\n"
