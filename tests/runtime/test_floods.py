"""A cell flooding the host (notify, text, tool calls, yield_control) never delays control.

The issue: interrupting ``while (true) notify("n" + i++)`` took 60 s while about 50 MB of
notifications went out. Now what a cell can put ahead of a request is bounded
(``runtime/events.py``): at most 64 notifications in flight per cell, events handed to
the loop in batches, buffered output bounded. Each test floods, sends a terminate (and,
for notifications, a request of another session), and asserts on the order of frames:
the answers come before more than a window's worth of flood frames, and what the flood
delivered arrived whole and in order. The next cell then runs.
"""

from __future__ import annotations

import asyncio

import pytest
from rt_client import text_items, tool_def, without_duration

from codemode.runtime.events import MAX_BUFFERED_OUTPUT, MAX_NOTIFICATIONS_IN_FLIGHT


def _consecutive(texts: list[str], prefix: str) -> bool:
    return texts == [f"{prefix}{i}" for i in range(len(texts))]


async def _answer(host, fut) -> dict:
    # A guard against a hang, not a speed check: the order assertions are what count.
    return await asyncio.wait_for(fut, 60)


def _notifications_between(host, first: int, last: int) -> int:
    return sum(
        1
        for message in host.events[first:last]
        if message["type"] == "delegate/request" and message["request"]["type"] == "notification/send"
    )


def _answer_index(host, request_id: int) -> int:
    return next(i for i, m in enumerate(host.events) if m["type"] == "operation/response" and m.get("id") == request_id)


async def test_notification_flood_does_not_delay_terminate_or_other_requests(host):
    cell_id, _ = await host.execute('let i = 0; while (true) notify("n" + i++);', yield_time_ms=0)
    await host.wait_for(lambda: len(host.notifications) >= 500)
    sent_at = len(host.events)
    other_id, other = host.start_request({"method": "session/open", "sessionId": "other"})
    term_id, term = host.start_request({"method": "session/terminate", "sessionId": "s1", "cellId": cell_id})
    assert (await _answer(host, other))["status"] == "ok"
    outcome = (await _answer(host, term))["value"]["outcome"]
    assert "Terminated" in outcome["LiveCell"]
    for request_id in (other_id, term_id):
        between = _notifications_between(host, sent_at, _answer_index(host, request_id))
        assert between <= MAX_NOTIFICATIONS_IN_FLIGHT, between
    assert _consecutive(host.notifications, "n")
    assert text_items(await host.run("text('next')", session_id="other")) == ["next"]


async def test_text_flood_arrives_whole_and_terminate_answers(host):
    cell_id, first = await host.execute('let i = 0; while (true) text("t" + i++);', yield_time_ms=100)
    assert "Yielded" in first
    outcome = (
        await _answer(
            host, host.start_request({"method": "session/terminate", "sessionId": "s1", "cellId": cell_id})[1]
        )
    )["value"]["outcome"]
    assert "Terminated" in outcome["LiveCell"]
    texts = text_items(first) + text_items(outcome["LiveCell"])
    assert len(texts) > 100 and _consecutive(texts, "t")
    assert text_items(await host.run("text('next')")) == ["next"]


@pytest.mark.parametrize(
    "source",
    [
        'let i = 0; while (true) { text("y" + i++); yield_control(); }',
        'for (let i = 0; ; i++) text(await tools.echo("e" + i));',
        'let i = 0; while (true) { tools.echo(i); notify("m" + i); text("x" + i++); yield_control(); }',
    ],
    ids=["yield_control", "awaited_tools", "mixed"],
)
async def test_floods_with_observers_answer_terminate(host, source):
    cell_id, first = await host.execute(source, yield_time_ms=50, tools=[tool_def("echo")])
    texts = text_items(first)
    for _ in range(3):  # a few waits while the flood goes on
        texts += text_items((await host.wait(cell_id, 50))["LiveCell"])
    outcome = (
        await _answer(
            host, host.start_request({"method": "session/terminate", "sessionId": "s1", "cellId": cell_id})[1]
        )
    )["value"]["outcome"]
    assert "Terminated" in outcome["LiveCell"]
    texts += text_items(outcome["LiveCell"])
    prefix = texts[0][0]
    assert texts and _consecutive(texts, prefix)
    if prefix == "x":
        assert _consecutive(host.notifications, "m")
    assert text_items(await host.run("text('next')")) == ["next"]


async def test_notify_blocks_while_its_window_is_full(host):
    """A client that does not answer: the cell stops at 64 notifications; each answer lets one more go."""
    host.answer_notifications = False
    await host.open("other")
    cell_id, _ = await host.execute('let i = 0; while (true) notify("n" + i++);', yield_time_ms=0)
    await host.wait_for(lambda: len(host.notifications) == MAX_NOTIFICATIONS_IN_FLIGHT)
    assert text_items(await host.run("text('meanwhile')", session_id="other")) == ["meanwhile"]
    assert len(host.notifications) == MAX_NOTIFICATIONS_IN_FLIGHT
    first = next(c for c in host.calls if c.request["type"] == "notification/send")
    host.answer_notification(first.id)
    await host.wait_for(lambda: len(host.notifications) == MAX_NOTIFICATIONS_IN_FLIGHT + 1)
    assert text_items(await host.run("text('again')", session_id="other")) == ["again"]
    assert len(host.notifications) == MAX_NOTIFICATIONS_IN_FLIGHT + 1
    assert without_duration((await host.terminate(cell_id))["LiveCell"]) == {
        "Terminated": {"cell_id": cell_id, "content_items": []}
    }
    assert _consecutive(host.notifications, "n")


async def test_a_full_output_window_ends_the_execute_at_once_and_the_waits_take_the_rest(host):
    """Output past what one response may carry (``MAX_BUFFERED_OUTPUT``, Codex's 64 MiB frame):
    the cell waits until a response takes it, so the execute answers ``Yielded`` with what fits
    at once, not at its yield time (120 s here; the client's 30 s guard would fail first). The
    waits then take the rest, in order, up to the ``Result``."""
    size = MAX_BUFFERED_OUTPUT // 2  # two texts of this size do not fit
    source = f'for (const c of "abc") text(c.repeat({size})); text("end")'
    cell_id, first = await host.execute(source, yield_time_ms=120_000, max_output_tokens=10**9)
    responses = [first]
    while "Yielded" in responses[-1]:
        assert len(responses) < 100, [kind for r in responses for kind in r]
        responses.append((await host.wait(cell_id, 100))["LiveCell"])
    assert [(t[0], len(t)) for t in text_items(first)] == [("a", size)]
    texts = [(t[0], len(t)) for r in responses[1:] for t in text_items(r)]
    assert texts == [("b", size), ("c", size), ("e", 3)]
