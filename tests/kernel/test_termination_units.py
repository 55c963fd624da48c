"""Unit tests of :func:`codemode.kernel.termination.stop_cell`: which output an interrupted
cell leaves, whichever of its answers the interrupt raced.

The session here is a small in-process double of ``CodeModeSession``'s terminate and probe (the
kernel-level tests drive the same paths with a real host, where the races below are timing
dependent and cannot be ordered by events)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from codemode.cell_events import CellStream, InitialAnswer
from codemode.kernel.cell_reader import CellReader
from codemode.kernel.cells import CellRecord
from codemode.kernel.termination import Terminations, stop_cell
from codemode.responses import RuntimeResponse, WaitOutcome


def _text(value: str) -> dict[str, Any]:
    return {"type": "input_text", "text": value}


class _Session:
    """Answers a terminate with ``answer`` (a ``Terminated`` or ``Result``)."""

    def __init__(self, answer: RuntimeResponse) -> None:
        self.answer = answer
        self.terminated: list[str] = []

    async def terminate(self, cell_id: str, max_output_tokens: int | None = None) -> WaitOutcome:
        self.terminated.append(cell_id)
        return WaitOutcome(live=True, response=self.answer)

    async def probe_host(self, timeout_s: float) -> bool:
        return True


class _Log:
    @contextlib.contextmanager
    def terminating(self, cell_id: str) -> Iterator[None]:
        yield


def _services(session: _Session) -> Any:
    return SimpleNamespace(
        code_mode=session,
        losses=SimpleNamespace(terminations=_Log(), explain=lambda *a: None, restart_note=lambda cell_id: None),
    )


def _unread(response: RuntimeResponse) -> CellReader:
    """A reader of a stream holding ``response``, the cell's first answer, not taken yet."""
    stream = CellStream(response.cell_id)
    stream.put(InitialAnswer(response.cell_id, response))
    return CellReader(stream, lambda _event: None)


@pytest.mark.unit
async def test_a_yield_not_shown_yet_comes_before_the_terminated_output():
    # The interrupt lands after the cell's Yielded answer arrived but before the execute read
    # it: "before" was never shown and must not be lost.
    session = _Session(RuntimeResponse("Terminated", "7", [_text("after")]))
    record = CellRecord("7", {}, 1)
    reader = _unread(RuntimeResponse("Yielded", "7", [_text("before")]))
    items = await stop_cell(Terminations(), _services(session), record, None, reader=reader, first_unread=True)
    assert items == [_text("before"), _text("after")]
    assert session.terminated == ["7"]
    assert record.final is not None and record.final.kind == "Terminated"


@pytest.mark.unit
async def test_a_yield_with_nothing_after_it_is_still_shown():
    session = _Session(RuntimeResponse("Terminated", "8", []))
    record = CellRecord("8", {}, 1)
    reader = _unread(RuntimeResponse("Yielded", "8", [_text("a"), _text("b")]))
    items = await stop_cell(Terminations(), _services(session), record, None, reader=reader, first_unread=True)
    assert items == [_text("a"), _text("b")]


@pytest.mark.unit
async def test_a_yield_already_shown_is_not_shown_again():
    # The execute reads the first answer from the stream before it shows the Yielded output.
    session = _Session(RuntimeResponse("Terminated", "9", [_text("after")]))
    record = CellRecord("9", {}, 1)
    items = await stop_cell(Terminations(), _services(session), record, None, first_unread=False)
    assert items == [_text("after")]


@pytest.mark.unit
async def test_a_result_that_won_the_race_is_the_outcome():
    # Codex's terminate answers with the cell's result when it had completed already.
    session = _Session(RuntimeResponse("Result", "10", [], error_text="exec cell 10 not found"))
    record = CellRecord("10", {}, 1)
    reader = _unread(RuntimeResponse("Result", "10", [_text("done")]))
    items = await stop_cell(Terminations(), _services(session), record, None, reader=reader, first_unread=True)
    assert items == [_text("done")]
    assert record.final is not None and record.final.kind == "Result" and record.final.error_text is None


class _SlowSession(_Session):
    """A live host that answers the terminate only after ``delay_s`` (a host stopping a cell it
    cannot interrupt answers after half a second)."""

    def __init__(self, answer: RuntimeResponse, delay_s: float) -> None:
        super().__init__(answer)
        self.delay_s = delay_s
        self.probes = 0

    async def terminate(self, cell_id: str, max_output_tokens: int | None = None) -> WaitOutcome:
        await asyncio.sleep(self.delay_s)
        return await super().terminate(cell_id, max_output_tokens)

    async def probe_host(self, timeout_s: float) -> bool:
        self.probes += 1
        return True


@pytest.mark.unit
async def test_a_live_hosts_answer_within_the_bound_keeps_the_cells_output():
    session = _SlowSession(RuntimeResponse("Terminated", "11", [_text("before")]), delay_s=0.7)
    record = CellRecord("11", {}, 1)
    items = await stop_cell(Terminations(), _services(session), record, None)
    assert session.probes == 1
    assert items == [_text("before")]


@pytest.mark.slow
async def test_an_answer_past_the_bound_is_not_waited_for():
    session = _SlowSession(RuntimeResponse("Terminated", "12", [_text("late")]), delay_s=3.0)
    record = CellRecord("12", {}, 1)
    terminations = Terminations()
    items = await stop_cell(terminations, _services(session), record, None)
    assert items == []
    assert record.final is not None and record.final.kind == "Terminated"
    assert terminations.in_flight == 1  # it finishes in the background
    await terminations.settle(5.0)
    assert terminations.in_flight == 0
