"""QueuedInterrupts on its own: an interrupt that finds no running work while an execute request
is between its dispatch and its work is that request's, not an idle interrupt."""

from __future__ import annotations

import pytest
import zmq
from jupyter_client.session import Session

from codemode.kernel.interrupts import QueuedInterrupts

pytestmark = pytest.mark.unit


class FakeKernel:
    """What QueuedInterrupts reads of the kernel to number messages: its session."""

    def __init__(self) -> None:
        self.session = Session(key=b"k")


def _frames(kernel: FakeKernel, msg_type: str) -> tuple[list[zmq.Frame], str]:
    """A signed shell message as the shell socket hands it over (zmq frames, identity first)."""
    message = kernel.session.msg(msg_type, {})
    frames = [b"client-id", *kernel.session.serialize(message)]
    return [zmq.Frame(frame) for frame in frames], message["header"]["msg_id"]


def _interrupts() -> tuple[QueuedInterrupts, FakeKernel, list[str]]:
    kernel, idle = FakeKernel(), []
    return QueuedInterrupts(kernel, on_idle=lambda: idle.append("idle interrupt")), kernel, idle


async def test_an_interrupt_while_an_execute_starts_goes_to_that_execute():
    interrupts, kernel, idle = _interrupts()
    frames, msg_id = _frames(kernel, "execute_request")
    interrupts.stamp(frames)
    interrupts.dispatched(frames)  # ipykernel now publishes its input; its work has not begun
    ticket = interrupts.signalled()
    assert interrupts.take_for_starting(ticket)
    await interrupts.settled()  # answered: the request goes on
    assert interrupts.consume(interrupts.arrival(msg_id))  # and its work takes the interrupt
    assert idle == []


async def test_no_execute_starting_no_taking_and_the_interrupt_is_given_once():
    interrupts, kernel, _ = _interrupts()
    frames, _ = _frames(kernel, "kernel_info_request")
    interrupts.stamp(frames)
    interrupts.dispatched(frames)
    assert not interrupts.take_for_starting(interrupts.signalled())

    frames, msg_id = _frames(kernel, "execute_request")
    interrupts.stamp(frames)
    interrupts.dispatched(frames)
    interrupts.dispatch_done()  # handled without its work beginning (a rejected request)
    assert not interrupts.take_for_starting(interrupts.signalled())

    frames, msg_id = _frames(kernel, "execute_request")
    interrupts.stamp(frames)
    interrupts.dispatched(frames)
    assert interrupts.take_for_starting(interrupts.signalled())
    arrival = interrupts.arrival(msg_id)
    assert interrupts.consume(arrival)
    assert not interrupts.consume(arrival)
