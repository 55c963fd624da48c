"""The frames of a cell follow the order in which the cell produced its events.

Each sequence below ran many times through Codex's host 0.171 (the harness records every
frame in order): a ``Yielded`` caused by ``yield_control()`` always came before a later
notification or tool call, notifications before the ``Result`` of the cell that sent
them, and ``delegate/cancel`` of a pending call before that ``Result``. Codex's own order
of a notification sent *before* ``yield_control()`` and the ``Yielded`` varied between
runs; ours is always the production order, which is one of Codex's. Each sequence runs
50 times and must give the same frames every time.
"""

from __future__ import annotations

from typing import Any

import pytest
from rt_client import tool_def

RUNS = 50

SEQUENCES = {
    "yield_then_notify": (
        'text("hello"); yield_control(); text("world"); notify("x");',
        ["Yielded ['hello']", "notify x", "Result ['world']", "cell/closed"],
    ),
    "notify_then_complete": (
        'text("a"); notify("n1"); text("b"); notify("n2");',
        ["notify n1", "notify n2", "Result ['a', 'b']", "cell/closed"],
    ),
    "only_notify": ('notify("only");', ["notify only", "Result []", "cell/closed"]),
    "yield_then_tool_then_notify": (
        'yield_control(); tools.sleep({ms: 60000}); notify("after tool");',
        ["Yielded []", "tool sleep", "notify after tool", "delegate/cancel", "Result []", "cell/closed"],
    ),
    "yield_then_awaited_tool": (
        'text("x"); yield_control(); const r = await tools.echo({i: 1}); text(r.i); notify("done");',
        ["Yielded ['x']", "tool echo", "notify done", "Result ['1']", "cell/closed"],
    ),
    "notify_yield_notify_tool": (
        'store("k", 1); notify("n"); yield_control(); notify("m"); tools.sleep({ms: 60000});',
        ["notify n", "Yielded []", "notify m", "tool sleep", "delegate/cancel", "Result []", "cell/closed"],
    ),
}


def _label(message: dict[str, Any], cell_id: str) -> str | None:
    """A short name for one host frame of cell ``cell_id`` (None for other frames)."""
    kind = message["type"]
    if kind == "delegate/request":
        request = message["request"]
        if request["type"] == "notification/send":
            return f"notify {request['text']}" if request["cellId"] == cell_id else None
        invocation = request["invocation"]
        return f"tool {invocation['tool_name']['name']}" if invocation["cell_id"] == cell_id else None
    if kind == "delegate/cancel":
        return "delegate/cancel"
    if kind == "cell/closed":
        return "cell/closed" if message["cellId"] == cell_id else None
    if kind in ("execute/initialResponse", "operation/response"):
        value = message["result"].get("value")
        if isinstance(value, dict) and value.get("type") == "wait/completed":
            value = value["outcome"]["LiveCell"]
        if not isinstance(value, dict) or "type" in value:
            return None
        ((tag, body),) = value.items()
        if body["cell_id"] != cell_id:
            return None
        return f"{tag} {[item['text'] for item in body['content_items']]}"
    return None


async def _frames(host, source: str) -> list[str]:
    start = len(host.events)
    tools = [tool_def("echo"), tool_def("sleep")]
    cell_id, response = await host.execute(source, tools=tools, yield_time_ms=30_000)
    while "Yielded" in response:
        response = (await host.wait(cell_id, 30_000))["LiveCell"]
    await host.wait_for(lambda: ("s1", cell_id) in host.closed_cells)
    labels = [_label(message, cell_id) for message in host.events[start:]]
    return [label for label in labels if label is not None]


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(SEQUENCES))
async def test_frames_follow_the_order_the_cell_produced_them(host, name):
    source, expected = SEQUENCES[name]
    orders = [await _frames(host, source) for _ in range(RUNS)]
    assert orders == [expected] * RUNS
