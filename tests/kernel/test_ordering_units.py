"""``CellOrder`` (``kernel/ordering.py``) on its own: callbacks run in the host's order given
by their stamps (the answers read before them), whatever order they arrive in."""

from __future__ import annotations

import asyncio

import pytest

from codemode.kernel.ordering import CellOrder

pytestmark = pytest.mark.unit


class Session:
    """Stands in for ``CodeModeSession.answers_read``: the answers read per cell."""

    def __init__(self) -> None:
        self.read: dict[str, int] = {}

    def answers_read(self, cell_id: str) -> int:
        return self.read.get(cell_id, 0)

    def forget_answers(self, cell_id: str) -> None:
        del self.read[cell_id]


def _order() -> tuple[CellOrder, Session, list[str]]:
    order, session = CellOrder(), Session()
    order.answers_read = session.answers_read
    order.forget_answers = session.forget_answers
    return order, session, []


def test_a_callback_after_an_unhandled_answer_waits_for_it():
    order, session, ran = _order()
    order.cell_started("1")
    order.event("1", lambda: ran.append("before the yield"))
    session.read["1"] = 1  # the Yielded was read, the kernel has not shown it yet
    order.event("1", lambda: ran.append("after the yield"))
    assert ran == ["before the yield"]
    ran.append("yield shown")
    order.answered("1")
    assert ran == ["before the yield", "yield shown", "after the yield"]


def test_a_callback_that_arrives_early_does_not_hold_back_one_stamped_before_it():
    order, session, ran = _order()
    order.cell_started("1")
    session.read["1"] = 1
    order.answered("1")  # the Yielded was shown
    session.read["1"] = 2  # the Result was read: cell/closed arrives at once, stamped 2
    order.event("1", lambda: ran.append("closed"))
    session.read["1"] = 1  # a notification read before the Result, arriving a loop step later
    order.event("1", lambda: ran.append("notify"))
    assert ran == ["notify"]
    order.answered("1")
    assert ran == ["notify", "closed"]


def test_events_of_a_starting_cell_are_held_until_its_id_is_known():
    order, session, ran = _order()
    order.starting = True
    order.event("1", lambda: ran.append("notify before the first answer"))
    session.read["1"] = 1
    order.event("1", lambda: ran.append("after the first answer"))
    order.event("9", lambda: ran.append("a cell never started"))
    assert ran == []
    order.cell_started("1")
    assert ran == ["notify before the first answer"]
    order.answered("1")
    assert ran == ["notify before the first answer", "after the first answer"]
    order.event("9", lambda: ran.append("not followed, not starting"))
    assert ran[-1] == "not followed, not starting"


def test_forgetting_a_cell_runs_what_it_held_and_later_callbacks_at_once():
    order, session, ran = _order()
    order.cell_started("1")
    session.read["1"] = 3
    order.event("1", lambda: ran.append("held"))
    order.forget("1")
    assert ran == ["held"]
    assert session.read == {}  # the session counts its answers no more
    order.event("1", lambda: ran.append("after"))
    assert ran == ["held", "after"]
    assert order.following() == []


def test_caught_up_counts_every_answer_read_as_handled():
    order, session, ran = _order()
    order.cell_started("1")
    session.read["1"] = 2  # a terminate's answer and the wait it ended
    order.event("1", lambda: ran.append("after both"))
    order.caught_up("1")
    assert ran == ["after both"]


async def test_turn_waits_until_the_starting_execute_knows_its_cell():
    # A cell that asks for approval at once: its tool call can come before the execute's
    # answer with the cell's id; the question must wait for that id, or it has no request.

    order, _, _ = _order()
    order.starting = True
    waiting = asyncio.ensure_future(order.turn("1"))
    await asyncio.sleep(0)
    assert not waiting.done()
    order.cell_started("1")
    await asyncio.wait_for(waiting, 5)


async def test_turn_ends_when_the_cell_turns_out_unknown_and_at_once_for_an_unfollowed_cell():

    order, _, _ = _order()
    await asyncio.wait_for(order.turn("9"), 5)  # not following it, nothing starting: at once
    order.starting = True
    waiting = asyncio.ensure_future(order.turn("2"))
    await asyncio.sleep(0)
    order.cell_started("1")  # the execute started another cell: "2" is never followed
    await asyncio.wait_for(waiting, 5)
