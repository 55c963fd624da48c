"""The delegate of a remote session passes tool calls and what the host reports on with public
cell ids."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from codemode.cancellation import CancellationToken
from codemode.cell_events import Closed, Notification, SessionEvent, StoredValuesCommitted
from codemode.session_delegate import SessionDelegateAdapter, SessionHooks, parse_cell_id, public_cell_id

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


@pytest.mark.parametrize(
    ("public_id", "parsed"),
    [
        ("1", (1, "1")),
        ("42", (1, "42")),
        ("g2:1", (2, "1")),
        ("g13:7", (13, "7")),
        # Ids no host generation gives: generation 1's ids carry no prefix, hosts number cells.
        ("nonsense", None),
        ("g1:1", None),
        ("g0:1", None),
        ("g02:1", None),
        ("g2:x", None),
        ("g2:", None),
        ("g:1", None),
        ("h2:1", None),
        ("", None),
        ("\u0661", None),  # a decimal digit, but not one a host writes
        ("g2:\ud800", None),
    ],
)
def test_a_public_cell_id_names_its_generation_and_host_id_or_none(public_id, parsed):
    assert parse_cell_id(public_id) == parsed
    if parsed is not None:
        assert public_cell_id(parsed[1], parsed[0]) == public_id
