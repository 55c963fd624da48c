"""The delegate of a remote session passes tool calls and what the host reports on with public
cell ids."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from codemode.cancellation import CancellationToken
from codemode.cell_events import Closed, Notification, SessionEvent, StoredValuesCommitted
from codemode.session_delegate import SessionDelegateAdapter, SessionHooks

pytestmark = pytest.mark.unit


def test_a_call_through_an_ended_cells_helpers_names_both_cells_by_their_public_ids():
    seen: list[tuple[str, dict[str, Any]]] = []

    async def invoke(cell_id: str, invocation: dict[str, Any], token: CancellationToken) -> Any:
        seen.append((cell_id, invocation))
        return SimpleNamespace(outcome="completed", value=1, error=None)

    def ignore(*_: Any) -> None:
        return None

    adapter = SessionDelegateAdapter(SessionHooks(invoke, ignore), generation=2)
    invocation = {"cell_id": "7", "via_ended_cell": "2", "runtime_tool_call_id": "tool-1", "input": None}
    assert asyncio.run(adapter.invoke_tool(invocation, CancellationToken())) == 1
    assert seen == [("g2:7", {**invocation, "via_ended_cell": "g2:2"})]


def test_reported_events_name_their_cell_by_its_public_id():
    reported: list[SessionEvent] = []
    adapter = SessionDelegateAdapter(SessionHooks(None, reported.append), generation=3)  # type: ignore[arg-type]
    for event in (Notification("4", "hi"), StoredValuesCommitted({"k": 1}), Closed("4")):
        adapter.report(event)
    assert reported == [Notification("g3:4", "hi"), StoredValuesCommitted({"k": 1}), Closed("g3:4")]
