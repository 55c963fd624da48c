"""Same cell, same rendering: a cell that yields and then notifies, calls a tool or ends renders
the same way on every run (the kernel reads each cell's events in the host's order, ``kernel/cell_reader.py``; the rendering is defined in the kernel's
docstring, ``kernel/kernel.py``).

Each cell runs 30 times in one kernel, followed by ``%wait`` once the status display says the
cell finished (a ``%wait`` sent earlier races the cell's last events: a notification the
host sends after the ``%wait`` began belongs to the ``%wait``). A run's rendering is, per
request, the sequence of its output messages (everything but ``status`` and
``execute_input``) with cell ids, display ids and running times replaced by placeholders.
Status messages are left out on purpose: whether a status display's update is published
before or after the idle status of the request that opened it depends only on when the host's
frames arrive, and changes nothing that a frontend shows (each output goes to its request's
cell, in order).
"""

from __future__ import annotations

import json
import re

import pytest
from kernel_driver import collect, send_execute, wait_for_iopub

pytestmark = pytest.mark.timeout(600)
RUNS = 30

CELLS = {
    "yield then notify": 'text("hello"); yield_control(); text("world"); notify("x")',
    "notify before yield": 'text("hello"); notify("x"); yield_control(); text("world")',
    "tool call after yield": 'text("hello"); yield_control(); text(JSON.stringify(await tools.echo({v: 1}))); text("world")',
    "yield then completion": 'text("hello"); yield_control(); text("world")',
}

# The rendering defined for the first cell (kernel/kernel.py): the execute shows "hello" and the
# status display; the notification, sent after the yield, updates that display, which then shows
# the cell finished; %wait shows "world" and the display's last state.
RUNNING = "Cell <cell> is running (<t> s).\nRun %wait <cell> to see its output, or interrupt the kernel / run %terminate <cell> to stop it."
YIELD_THEN_NOTIFY = [
    ("execute", "stream", {"name": "stdout", "text": "hello\n"}),
    ("execute", "display_data", RUNNING),
    ("execute", "update_display_data", RUNNING + "\nnotify: x"),
    (
        "execute",
        "update_display_data",
        "Cell <cell> finished (completed) after <t> s - run %wait <cell> to see its output.\nnotify: x",
    ),
    # The cell ended while the kernel was idle: the %wait carries the display's state first, and
    # its final state too, for notebook runners that read only the running request's messages.
    (
        "wait",
        "update_display_data",
        "Cell <cell> finished (completed) after <t> s - run %wait <cell> to see its output.\nnotify: x",
    ),
    ("wait", "stream", {"name": "stdout", "text": "world\n"}),
    ("execute", "update_display_data", "Cell <cell> completed after <t> s; its output was shown.\nnotify: x"),
    ("wait", "update_display_data", "Cell <cell> completed after <t> s; its output was shown.\nnotify: x"),
]


def _normalized(text: str, cell_id: str) -> str:
    text = re.sub(r"codemode-[^\s\"'-]+-[0-9a-f]{12}", "<display>", text)
    text = re.sub(r"\d+\.\d s", "<t> s", text)
    return (
        text.replace(f'"{cell_id}"', '"<cell>"')
        .replace(f"Cell {cell_id} ", "Cell <cell> ")
        .replace(f" {cell_id} ", " <cell> ")
        .replace(f"%wait {cell_id}", "%wait <cell>")
        .replace(f"%terminate {cell_id}", "%terminate <cell>")
    )


def _rendering(cell: str, kc) -> list[tuple[str, str, str]]:
    """One run of ``cell`` and the ``%wait`` sent once its status display says it finished:
    (request, msg_type, content) in order."""
    others: list[dict] = []
    execute_id = send_execute(kc, cell)
    first = collect(kc, execute_id, others=others)
    cell_id = first.codemode["cell_id"]
    assert first.codemode["status"] == "running"
    if not any("finished (completed)" in str(m["content"]) for m in first.messages):
        others += wait_for_iopub(kc, execute_id, lambda m: "finished (completed)" in str(m["content"].get("data", {})))
    waited = collect(kc, send_execute(kc, f"%wait {cell_id}"), others=others)
    assert waited.codemode["status"] == "completed"
    execute_id = first.reply["parent_header"]["msg_id"]
    wait_id = waited.reply["parent_header"]["msg_id"]
    labels = {execute_id: "execute", wait_id: "wait"}
    # Within each request this is IOPub order: ``others`` holds what came after the execute's idle.
    messages = [
        m
        for m in first.messages + others + waited.messages
        if m["parent_header"].get("msg_id") in labels and m["msg_type"] not in ("status", "execute_input")
    ]
    return [
        (
            labels[m["parent_header"]["msg_id"]],
            m["msg_type"],
            _normalized(json.dumps(m["content"], sort_keys=True), cell_id),
        )
        for m in messages
    ]


def _per_request(rendering: list[tuple[str, str, str]]) -> dict[str, list[tuple[str, str]]]:
    requests: dict[str, list[tuple[str, str]]] = {}
    for request, msg_type, content in rendering:
        requests.setdefault(request, []).append((msg_type, content))
    return requests


@pytest.mark.parametrize("name", list(CELLS))
def test_a_cell_renders_the_same_way_every_time(kernel, name):
    renderings = [_per_request(_rendering(CELLS[name], kernel.kc)) for _ in range(RUNS)]
    first = renderings[0]
    for run, rendering in enumerate(renderings[1:], start=2):
        assert rendering == first, f"run {run} of {name!r} rendered differently"


def test_the_defined_rendering_of_a_cell_that_yields_then_notifies(kernel):
    rendering = _rendering(CELLS["yield then notify"], kernel.kc)
    shown = []
    for request, msg_type, content in rendering:
        data = json.loads(content)
        if msg_type == "stream":
            shown.append((request, msg_type, data))
        else:
            shown.append((request, msg_type, data["data"]["text/plain"]))
    per_request = _per_request([(r, t, json.dumps(c)) for r, t, c in shown])
    expected = _per_request([(r, t, json.dumps(c)) for r, t, c in YIELD_THEN_NOTIFY])
    assert per_request == expected
