"""A stopped or stuck host is noticed on every request, not only on a wait's deadline.

With a short :class:`~codemode.host.Liveness` (probe after 0.3 s of silence, 0.5 s for the
answer) a host stopped with SIGSTOP during an execute, a wait or a terminate, or while idle, and
a host whose only thread is blocked, each end the request with
:class:`~codemode.errors.HostConnectionError` ``code-mode host stopped responding: …``; the
host's process is gone and the next execute runs on a new host with the stored values. An
execute the stopped host never admitted started no cell: it goes to a new host, once, and its
caller is told of the idle loss (``on_idle_loss``). A host
that is merely busy (a cell spinning in ``while (true) {}``) is not mistaken for a stopped one.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path

import pytest
from session_harness import OUR_HOST, SessionHarness

from codemode.errors import HostConnectionError
from codemode.host import Liveness

pytestmark = pytest.mark.timeout(120)

BLOCKING_HOST = [sys.executable, str(Path(__file__).parent / "fakehost" / "scripted_host.py"), "block-after-open"]
LIVENESS = Liveness(silence_s=0.3, answer_s=0.5)
STOPPED = "code-mode host stopped responding: no answer to a liveness probe within 0.5 s"
BOUND_S = 10.0
"""Far below the 60 s transport deadline: failing within it can only come from the probe."""


class Harness(SessionHarness):
    def __init__(self, command: list[str] = OUR_HOST, liveness: Liveness = LIVENESS) -> None:
        super().__init__(command, liveness=liveness)

    async def run(self, source: str, timeout_s: float | None = BOUND_S, **kw: int):
        return await super().run(source, timeout_s, **kw)

    async def stored_then_stopped(self):
        _, response = await self.run('store("kept", 42); text("stored")')
        assert response.error_text is None
        connection = self.provider.connection
        return connection

    async def expect_rebuilt(self, connection) -> None:
        """The stopped host is gone and the next cell runs on a new one with the stored value."""
        assert connection.failure == STOPPED
        await asyncio.wait_for(connection.process.wait(), BOUND_S)
        cell, response = await self.run("text(String(load('kept')))")
        assert (cell, [i["text"] for i in response.content_items]) == ("g2:1", ["42"])
        assert self.provider.connection.process.pid != connection.process.pid


async def expect_stopped(awaitable) -> None:
    with pytest.raises(HostConnectionError) as info:
        await asyncio.wait_for(awaitable, BOUND_S)
    assert str(info.value) == STOPPED and info.value.generation == 1


async def test_sigstop_during_an_execute_fails_its_initial_response():
    async with Harness() as h:
        connection = await h.stored_then_stopped()
        started = await h.session.execute("await tools.sleep({ms: 60000})", yield_time_ms=60_000)
        os.kill(connection.process.pid, signal.SIGSTOP)
        await expect_stopped(started.initial_response)
        assert h.closed.count(started.cell_id) == 1
        await h.expect_rebuilt(connection)


async def test_sigstop_during_a_wait_fails_the_wait():
    async with Harness() as h:
        connection = await h.stored_then_stopped()
        cell, _ = await h.run("await tools.sleep({ms: 60000})", yield_time_ms=50)
        waiting = asyncio.ensure_future(h.session.wait(cell, yield_time_ms=30_000))
        os.kill(connection.process.pid, signal.SIGSTOP)
        await expect_stopped(waiting)
        await h.expect_rebuilt(connection)


async def test_sigstop_during_a_terminate_fails_the_terminate():
    async with Harness() as h:
        connection = await h.stored_then_stopped()
        cell, _ = await h.run("await tools.sleep({ms: 60000})", yield_time_ms=50)
        os.kill(connection.process.pid, signal.SIGSTOP)
        await expect_stopped(h.session.terminate(cell))
        await h.expect_rebuilt(connection)


async def test_sigstop_while_idle_then_execute_runs_it_on_a_new_host():
    async with Harness() as h:
        connection = await h.stored_then_stopped()
        os.kill(connection.process.pid, signal.SIGSTOP)
        losses: list[HostConnectionError] = []
        started = await asyncio.wait_for(
            h.session.execute('text(String(load("kept")))', on_idle_loss=losses.append), BOUND_S
        )
        response = await asyncio.wait_for(started.initial_response, BOUND_S)
        assert (started.cell_id, [i["text"] for i in response.content_items]) == ("g2:1", ["42"])
        assert [(loss.reason, loss.generation) for loss in losses] == [(STOPPED, 1)]
        await asyncio.wait_for(connection.process.wait(), BOUND_S)
        assert connection.process.returncode == -signal.SIGKILL


async def test_a_host_whose_thread_is_blocked_is_noticed():
    async with Harness(BLOCKING_HOST) as h:
        losses: list[HostConnectionError] = []
        with pytest.raises(HostConnectionError) as info:  # two probes: far below the deadline
            await asyncio.wait_for(h.session.execute('text("never")', on_idle_loss=losses.append), 2 * BOUND_S)
        # The blocked host admitted nothing: the execute went to a second host, once, blocked too.
        assert (str(info.value), info.value.generation, [loss.reason for loss in losses]) == (STOPPED, 2, [STOPPED])
        connection = h.provider.connection
        await asyncio.wait_for(connection.process.wait(), BOUND_S)
        assert connection.process.returncode == -signal.SIGKILL


async def test_a_busy_host_is_not_mistaken_for_a_stopped_one():
    async with Harness() as h:
        cell, response = await h.run("while (true) {}", yield_time_ms=50)
        assert response.kind == "Yielded"
        outcome = await asyncio.wait_for(h.session.wait(cell, yield_time_ms=2_000), BOUND_S)
        assert outcome.response.kind == "Yielded"
        assert h.provider.connection.alive and h.session.generation == 1
        assert await h.session.probe_host(0.5) is True
        await h.session.terminate(cell)


async def test_probe_host_fails_a_stopped_host_within_its_timeout():
    async with Harness(liveness=Liveness()) as h:  # the watchdog's 5 s never preempt the probe
        connection = await h.stored_then_stopped()
        cell, _ = await h.run("await tools.sleep({ms: 60000})", yield_time_ms=50)
        os.kill(connection.process.pid, signal.SIGSTOP)
        terminating = asyncio.ensure_future(h.session.terminate(cell))
        assert await asyncio.wait_for(h.session.probe_host(0.2), BOUND_S) is False
        with pytest.raises(HostConnectionError) as info:
            await asyncio.wait_for(terminating, BOUND_S)
        assert str(info.value) == "code-mode host stopped responding: no answer to a liveness probe within 0.2 s"
        assert await h.session.probe_host(0.2) is False  # no live host; nothing is spawned
        assert h.provider.generation == 1
