"""Counting the answers about each cell (``codemode/host/answers.py``): what lets the kernel
take a cell's callbacks and answers in the order of the host's frames.

- the state machine counts an initial response, answered waits and terminates, and the
  failure of those still pending; an abandoned wait's late answer does not count;
- a delegate call's first step sees the count as it was when its request was read, even when
  an answer read in the same batch after it has already raised the count; later steps see
  the current count.
"""

from __future__ import annotations

import asyncio
from typing import Any

from test_connection_state import SESSION, admit, opened

from codemode.host.answers import delegate_answers, stamp_delegate
from codemode.wire import messages


def _wait(state: Any, cell_id: str) -> Any:
    request = state.begin("wait", SESSION, cell_id)
    request.sent = True
    return request


def _answer(state: Any, request_id: int, cell_id: str) -> None:
    outcome = messages.live_cell(messages.yielded(cell_id, []))
    state.on_message(messages.operation_response(request_id, messages.ok(messages.wait_completed(outcome))))


def test_answers_are_counted_per_cell_and_failures_count_for_pending_callers():
    state = opened()
    execute_id = admit(state, "1")
    admit(state, "2")
    assert state.answers.get(SESSION, "1") == 0
    notify = messages.notification_send(10, SESSION, "call", "1", "n")
    state.on_message(notify)  # a delegate request is no answer
    state.on_message(messages.initial_response(execute_id, messages.ok(messages.yielded("1", []))))
    assert state.answers.get(SESSION, "1") == 1

    first = _wait(state, "1")
    _answer(state, first.request_id, "1")
    assert state.answers.get(SESSION, "1") == 2

    abandoned = _wait(state, "1")
    state.abandon(abandoned)
    _answer(state, abandoned.request_id, "1")
    assert state.answers.get(SESSION, "1") == 2  # nobody waited for that answer

    _wait(state, "1")
    _wait(state, "2")
    state.fail("code-mode host closed its stdout")
    # Cell 1: its pending wait; cell 2: its initial response and its wait.
    assert (state.answers.get(SESSION, "1"), state.answers.get(SESSION, "2")) == (3, 2)


async def test_a_delegate_calls_first_step_sees_the_count_of_its_request():
    owner = object()
    seen: list[int | None] = []

    async def call() -> None:
        stamp_delegate(owner, SESSION, "1", 4)
        seen.append(delegate_answers(owner, SESSION, "1"))
        seen.append(delegate_answers(owner, SESSION, "2"))  # another cell
        seen.append(delegate_answers(object(), SESSION, "1"))  # another connection
        await asyncio.sleep(0)
        seen.append(delegate_answers(owner, SESSION, "1"))  # a later step

    await asyncio.ensure_future(call())
    assert seen == [4, None, None, None]
    assert delegate_answers(owner, SESSION, "1") is None  # outside the call
