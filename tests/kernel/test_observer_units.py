"""Unit tests of :class:`codemode.kernel.observer.CellObserver`: an interrupt that reaches a
``%wait`` in the same loop step as the host's answer still ends the ``%wait``.

At kernel level the interrupt and the answer race by a few microseconds (the failure was seen
once in about a hundred CI runs of ``test_interrupt_during_wait_terminates_the_waited_cell``);
here the double's ``on_change`` cancels the collecting task right after the observer marked the
change, which is that race, ordered. Python 3.11's ``asyncio.wait_for`` returned normally in
that order (CPython gh-86296) and the ``%wait`` went on waiting its full yield time.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode.cell_events import CellStream, WaitAnswer
from codemode.kernel.cell_reader import CellReader
from codemode.kernel.cells import CellRecord
from codemode.kernel.observer import CellObserver
from codemode.responses import RuntimeResponse, WaitOutcome

pytestmark = pytest.mark.unit


class _Session:
    """Each ``wait`` is answered with the next answer the test puts in ``answers``, which
    enters the cell's ``stream`` as the session's does."""

    def __init__(self) -> None:
        self.answers: asyncio.Queue[RuntimeResponse] = asyncio.Queue()
        self.waits = 0
        self.stream = CellStream("3")

    async def wait(self, cell_id: str, yield_time_ms: int, max_output_tokens: int | None = None) -> WaitOutcome:
        self.waits += 1
        outcome = WaitOutcome(live=True, response=await self.answers.get())
        self.stream.put(WaitAnswer(cell_id, outcome))
        return outcome

    def yield_wait(self, cell_id: str) -> bool:
        return False

    async def probe_host(self, timeout_s: float) -> bool:
        return True


def _text(value: str) -> dict[str, Any]:
    return {"type": "input_text", "text": value}


async def _cancelled_as_answered(answer: RuntimeResponse) -> tuple[asyncio.Task[Any], CellRecord]:
    session = _Session()
    record = CellRecord("3", {}, 1)
    collecting: list[asyncio.Task[Any]] = []
    reader = CellReader(session.stream, lambda _event: None)
    observer = CellObserver(session, record, lambda _: collecting[0].cancel(), reader)  # type: ignore[arg-type]
    observer.start()
    collecting.append(asyncio.ensure_future(observer.collect(30_000)))
    while session.waits == 0:
        await asyncio.sleep(0)
    session.answers.put_nowait(answer)
    with pytest.raises(asyncio.CancelledError):
        await collecting[0]
    await observer.aclose()
    return collecting[0], record


async def test_an_interrupt_as_the_cell_yields_ends_the_wait():
    task, record = await _cancelled_as_answered(RuntimeResponse("Yielded", "3", [_text("partial")]))
    assert task.cancelled()
    assert record.buffer == [_text("partial")]  # left for the terminate to show


async def test_an_interrupt_as_the_cell_ends_ends_the_wait():
    task, record = await _cancelled_as_answered(RuntimeResponse("Result", "3", [_text("done")]))
    assert task.cancelled()
    assert record.final is not None and record.final.kind == "Result"
