"""``CodeModeSession.yield_wait``: a long wait in flight is ended on demand with
``operation/yield``; the host answers it at once with ``LiveCell`` + ``Yielded`` (verified on
Codex's 0.171 host and ours). Runs against our host, and Codex's when
``$CODEMODE_REFERENCE_HOST`` names its binary."""

from __future__ import annotations

import asyncio

import pytest
from session_harness import HOSTS

from codemode.config import SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.session import CodeModeSession
from codemode.tools.registry import ToolRegistry

BOUND_S = 10.0
"""Far below the wait's own 60 s: an answer within it can only come from the yield."""


@pytest.mark.timeout(120)
@pytest.mark.parametrize("command", HOSTS)
async def test_yield_wait_ends_the_wait_in_flight_with_yielded(command):
    registry = await ToolRegistry.create()
    session = CodeModeSession(
        registry=registry, dispatcher=ToolCallRuntime(registry), defaults=SessionDefaults(), host_command=command
    )
    try:
        started = await session.execute('text("a"); await tools.sleep({ms: 60000})', yield_time_ms=50)
        cell = started.cell_id
        assert (await started.initial_response).kind == "Yielded"
        assert session.yield_wait(cell) is False  # no wait in flight
        connection = session.provider.connection
        waiting = asyncio.ensure_future(session.wait(cell, yield_time_ms=60_000))
        async with asyncio.timeout(BOUND_S):
            while connection.state.requests.in_flight_wait("session-1", cell) is None:
                await asyncio.sleep(0.01)
        assert session.yield_wait(cell) is True
        outcome = await asyncio.wait_for(waiting, BOUND_S)
        assert (outcome.live, outcome.response.kind, outcome.response.cell_id) == (True, "Yielded", cell)
        assert session.yield_wait(cell) is False
        assert session.yield_wait("g7:1") is False  # a stale id names no wait
        outcome = await session.terminate(cell)
        assert outcome.response.kind == "Terminated"
    finally:
        await session.shutdown()
        await registry.aclose()
