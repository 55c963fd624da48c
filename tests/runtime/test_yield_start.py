"""An execute's yield time counts from the moment the cell's code begins, not from the request.

A strict cell's engine is made ready on the cell's thread (a V8 isolate booted, a QuickJS
context made) before its code runs; on a loaded machine that can take longer than a short
``yield_time_ms``. Codex's host readies its isolate in milliseconds, so a cell's text printed
before its first ``await`` is in its first answer there; here too, because the yield timer of
an observation begun before the cell's ``began`` event starts only at that event
(``LiveCell.on_began``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from codemode.runtime.livecell import LiveCell

pytestmark = pytest.mark.unit


class _Session:
    session_id = "s1"
    output_truncation = "server"
    cell_id_prefix = ""
    connection: Any = None

    def commit(self, cell: LiveCell, writes: dict[str, str]) -> None:
        raise AssertionError("no cell commits here")


def _cell(began: bool) -> LiveCell:
    cell = LiveCell("1", _Session(), "call-1", [])
    cell.began = began
    return cell


async def test_the_yield_timer_of_a_cell_not_yet_begun_starts_when_it_begins():
    loop = asyncio.get_running_loop()
    cell = _cell(began=False)
    future = cell.observe(50, None, 7, take_when_full=True)
    assert cell.observer is not None and cell.observer.timer is None  # no clock runs yet
    cell.on_item({"type": "input_text", "text": "start"})
    began_at = loop.time()
    cell.on_began()
    timer = cell.observer.timer
    assert timer is not None and timer.when() - began_at == pytest.approx(0.05, abs=0.01)
    response = await asyncio.wait_for(future, 5)
    assert response["Yielded"]["content_items"] == [{"type": "input_text", "text": "start"}]


async def test_a_begun_cell_yields_at_its_yield_time_from_the_observation():
    loop = asyncio.get_running_loop()
    cell = _cell(began=True)
    observed_at = loop.time()
    future = cell.observe(50, None, 7)
    timer = cell.observer.timer if cell.observer is not None else None
    assert timer is not None and timer.when() - observed_at == pytest.approx(0.05, abs=0.01)
    assert "Yielded" in await asyncio.wait_for(future, 5)


async def test_an_explicit_yield_does_not_wait_for_the_cell_to_begin():
    cell = _cell(began=False)
    future = cell.observe(60_000, None, 7)
    cell.yield_now()  # operation/yield
    assert (await asyncio.wait_for(future, 5))["Yielded"]["content_items"] == []
