"""A host that died while nothing ran on it, through :class:`CodeModeSession` (``execute``'s
``on_idle_loss``; ``HostConnection.notice_exit``).

- The host is killed and the test waits, on its own thread and without reaping, until the host
  has exited, before the event loop has run again: the connection has not noticed (its reader
  and process watcher are loop callbacks). The next execute still goes to a new host and tells
  its caller why, once; the execute after it says nothing.
- The host is stopped (SIGSTOP), an execute is written to it, then it is killed: the
  connection fails with the execute in flight but never admitted. That cell did not start: it
  goes to a new host, once, and its caller is told of the idle loss.
- A host killed while a cell runs fails that cell (its caller is told): the execute that
  replaces it reports no idle loss.
- A wait on a cell of a dead host gets the stale-generation error and starts no host.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

import pytest
from polling import poll_until
from session_harness import SessionHarness, texts

from codemode.errors import CodeModeError, HostConnectionError

pytestmark = pytest.mark.timeout(120)
BOUND_S = 10.0
REASONS = ("code-mode host closed its stdout", "code-mode host exited with status signal: 9 (SIGKILL)")


def _kill_and_wait_for_exit(h: SessionHarness) -> None:
    """SIGKILL the host and block this thread (the event loop's) until it has exited."""
    connection = h.session.provider.connection
    assert connection is not None and connection.process is not None
    pid = connection.process.pid
    os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):  # asyncio's child watcher reaped it first
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    assert connection.alive  # nothing on the loop has run since


async def test_an_execute_after_an_idle_host_died_runs_on_a_new_host_and_says_why():
    async with SessionHarness() as h:
        await h.run('store("kept", 7); text("warm")', BOUND_S)
        _kill_and_wait_for_exit(h)
        losses: list[HostConnectionError] = []
        started = await h.session.execute('text(String(load("kept")))', on_idle_loss=losses.append)
        response = await asyncio.wait_for(started.initial_response, BOUND_S)
        assert (started.cell_id, texts(response)) == ("g2:1", ["7"])
        assert [(loss.reason in REASONS, loss.generation) for loss in losses] == [(True, 1)], losses
        started = await h.session.execute('text("again")', on_idle_loss=losses.append)
        assert started.cell_id == "g2:2" and len(losses) == 1


async def test_an_execute_written_to_a_host_killed_before_it_answered_runs_on_a_new_host():
    async with SessionHarness() as h:
        await h.run('store("kept", 7); text("warm")', BOUND_S)
        connection = h.session.provider.connection
        assert connection is not None and connection.process is not None
        os.kill(connection.process.pid, signal.SIGSTOP)
        losses: list[HostConnectionError] = []
        execute = asyncio.ensure_future(h.session.execute('text(String(load("kept")))', on_idle_loss=losses.append))
        # Until the execute is in the stopped host's pipe (no event marks a frame written).
        await poll_until(
            lambda: any(p.kind == "execute" and p.sent for p in connection.state.requests.pending.values()),
            "the execute sent",
            interval_s=0,
        )
        os.kill(connection.process.pid, signal.SIGKILL)
        started = await asyncio.wait_for(execute, BOUND_S)
        response = await asyncio.wait_for(started.initial_response, BOUND_S)
        assert (started.cell_id, texts(response)) == ("g2:1", ["7"])
        assert [(loss.reason in REASONS, loss.generation) for loss in losses] == [(True, 1)], losses


async def test_a_host_that_died_under_a_cell_is_no_idle_loss():
    async with SessionHarness() as h:
        running = await h.session.execute("await tools.sleep({ms: 60000})", yield_time_ms=50)
        assert (await asyncio.wait_for(running.initial_response, BOUND_S)).kind == "Yielded"
        _kill_and_wait_for_exit(h)
        with pytest.raises(HostConnectionError):
            await h.session.wait(running.cell_id, yield_time_ms=10_000)
        losses: list[HostConnectionError] = []
        started = await h.session.execute('text("new")', on_idle_loss=losses.append)
        assert (started.cell_id, losses) == ("g2:1", [])


async def test_a_wait_on_a_cell_of_a_dead_host_starts_no_host():
    async with SessionHarness() as h:
        cell_id, _ = await h.run('text("done")', BOUND_S)
        _kill_and_wait_for_exit(h)
        connection = h.session.provider.connection
        assert connection is not None
        await asyncio.wait_for(connection.closed.wait(), BOUND_S)  # the session has noticed
        with pytest.raises(CodeModeError) as info:
            await h.session.wait(cell_id, yield_time_ms=10)
        assert str(info.value) == f"cell {cell_id} belongs to a stale code-mode host generation"
        assert h.session.provider.generation == 1
