"""A cell's events rendered in the host's order when they arrive in one read batch.

The kernel runs on a fake host (``tests/codemode/fakehost/batch_host.py``, named by
``CODEMODE_HOST_BIN``) whose cells are scripts of frame batches, each batch written in ONE
write: the client reads them together, and the kernel must render them in the order they were
sent (``kernel/cell_reader.py``), whatever order that is. Each case sends one order the host
can send and pins what a front end sees on IOPub, per request.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from kernel_driver import collect, send_execute, start_kernel, stop_kernel, wait_for_iopub
from test_kernel_rendering import _normalized

BATCH_HOST = Path(__file__).parents[1] / "codemode" / "fakehost" / "batch_host.py"
FINISHED = "Cell <cell> finished (completed) after <t> s - run %wait <cell> to see its output."
SHOWN = "Cell <cell> completed after <t> s; its output was shown."


@pytest.fixture(scope="module")
def batch_kernel(codemode_kernelspec, tmp_path_factory):
    folder = tmp_path_factory.mktemp("batch-host")
    stand_in = folder / "codex-code-mode-host"
    stand_in.write_text(f"#!/bin/sh\nexec {sys.executable} {BATCH_HOST}\n")
    stand_in.chmod(0o755)
    kernel = start_kernel(folder, {"CODEMODE_HOST_BIN": str(stand_in)})
    yield kernel
    stop_kernel(kernel)


def _shown(message: dict[str, Any], cell_id: str) -> Any:
    content = message["content"]
    if message["msg_type"] == "stream":
        return (content["name"], content["text"])
    return _normalized(content["data"]["text/plain"], cell_id)


class Rendering:
    """What each request of one cell showed on IOPub: ``outputs`` (everything but status
    display updates, in IOPub order, as ``(msg_type, text)``), ``display`` (the last state of
    the status display opened under that request, None if none; its updates in between are
    rate-bounded, so their number depends on timing) and ``metadata`` (the replies'
    ``metadata.codemode``)."""

    def __init__(self) -> None:
        self.outputs: dict[str, list[tuple[str, Any]]] = {}
        self.display: dict[str, str | None] = {}
        self.metadata: dict[str, dict[str, Any]] = {}

    def add(self, label: str, execution: Any, messages: list[dict[str, Any]], cell_id: str) -> None:
        self.metadata[label] = execution.codemode
        self.outputs.setdefault(label, [])
        self.display.setdefault(label, None)
        for m in messages:
            if m["parent_header"].get("msg_id") != execution.reply["parent_header"]["msg_id"]:
                continue
            if m["msg_type"] in ("status", "execute_input"):
                continue
            shown = _shown(m, cell_id)
            if m["msg_type"] == "update_display_data" or (
                m["msg_type"] == "display_data" and m["content"].get("transient", {}).get("display_id")
            ):
                self.display[label] = shown
            else:
                self.outputs[label].append((m["msg_type"], shown))


def _finished(kc: Any, execute_id: str, seen: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The IOPub messages until the execute's status display says the cell finished."""
    if any(
        m["parent_header"].get("msg_id") == execute_id and "finished (completed)" in str(m["content"]) for m in seen
    ):
        return []
    return wait_for_iopub(kc, execute_id, lambda m: "finished (completed)" in str(m["content"]))


def _wait(kc: Any, rendering: Rendering, label: str, cell_id: str, others: list[dict[str, Any]]) -> None:
    wait_id = send_execute(kc, f"%wait {cell_id}")
    waited = collect(kc, wait_id, others=others)
    rendering.add(label, waited, waited.messages + others, cell_id)


def _run(kc: Any, script: list[list[str]]) -> tuple[Any, str, list[dict[str, Any]]]:
    others: list[dict[str, Any]] = []
    execute_id = send_execute(kc, json.dumps(script))
    first = collect(kc, execute_id, others=others)
    return first, execute_id, others


AROUND_THE_YIELD = ["notify:a", "tool:echo", "notify:b"]


@pytest.mark.parametrize("at", range(len(AROUND_THE_YIELD) + 1))
def test_what_comes_before_the_yield_in_its_batch_is_shown_before_it_the_rest_after(batch_kernel, at):
    """The first batch: ``started``, then notifications and a tool call with the Yielded at
    every position among them. What the host sent before the Yielded is shown under the
    execute before the yielded output; what it sent after goes to the status display."""
    kc, rendering = batch_kernel.kc, Rendering()
    first_batch = ["started", *AROUND_THE_YIELD[:at], "yield:x", *AROUND_THE_YIELD[at:]]
    first, execute_id, others = _run(kc, [first_batch, ["result:y", "closed"]])
    cell_id = first.codemode["cell_id"]
    others += _finished(kc, execute_id, first.messages + others)
    rendering.add("execute", first, first.messages + others, cell_id)
    before = [("display_data", step[7:]) for step in AROUND_THE_YIELD[:at] if step.startswith("notify:")]
    after = [f"\nnotify: {step[7:]}" for step in AROUND_THE_YIELD[at:] if step.startswith("notify:")]
    assert rendering.outputs == {"execute": [*before, ("stream", ("stdout", "x\n"))]}
    assert rendering.display == {"execute": FINISHED + "".join(after)}
    _wait(kc, rendering, "wait", cell_id, others)
    assert rendering.outputs["wait"] == [("stream", ("stdout", "y\n"))]


def test_a_notification_after_the_answer_that_ends_a_wait_goes_to_the_status_display(batch_kernel):
    # The %wait yields the held wait (where it begins), then the next wait is answered, in one
    # batch, by a Yielded (which ends the %wait) and a notification (which comes after it).
    kc, rendering = batch_kernel.kc, Rendering()
    script = [["started", "yield:x"], ["hold"], ["notify:a", "yield:w", "notify:b"], ["hold"], ["result:y", "closed"]]
    first, execute_id, others = _run(kc, script)
    cell_id = first.codemode["cell_id"]
    _wait(kc, rendering, "first wait", cell_id, others)
    _wait(kc, rendering, "second wait", cell_id, others)
    rendering.add("execute", first, first.messages + others, cell_id)
    assert rendering.outputs == {
        "execute": [("stream", ("stdout", "x\n"))],
        "first wait": [("display_data", "a"), ("stream", ("stdout", "w\n"))],
        "second wait": [("stream", ("stdout", "y\n"))],
    }
    assert rendering.display["second wait"] == SHOWN + "\nnotify: b"


def test_everything_before_the_first_answer_is_shown_before_it(batch_kernel):
    kc, rendering = batch_kernel.kc, Rendering()
    script = [["started", "notify:a", "tool:echo", "notify:b", "result:r", "stored", "closed"]]
    first, _, others = _run(kc, script)
    rendering.add("execute", first, first.messages + others, first.codemode["cell_id"])
    assert rendering.outputs == {
        "execute": [("display_data", "a"), ("display_data", "b"), ("stream", ("stdout", "r\n"))]
    }
    calls = rendering.metadata["execute"]["tool_calls"]
    assert [(c["tool"], c["outcome"]) for c in calls] == [("echo", "aborted")]  # its cell closed


def test_a_tool_call_then_the_close_in_one_batch(batch_kernel):
    kc, rendering = batch_kernel.kc, Rendering()
    first, execute_id, others = _run(kc, [["started", "yield:x"], ["tool:echo", "result:r", "closed"]])
    cell_id = first.codemode["cell_id"]
    others += _finished(kc, execute_id, first.messages + others)
    _wait(kc, rendering, "wait", cell_id, others)
    assert rendering.outputs == {"wait": [("stream", ("stdout", "r\n"))]}
    calls = rendering.metadata["wait"]["tool_calls"]
    assert [(c["tool"], c["outcome"]) for c in calls] == [("echo", "aborted")]  # its cell closed
