"""A host killed with SIGKILL, end to end through :class:`CodeModeSession`.

Two sessions share one host (one :class:`HostProvider`), each with a stored value and a live
cell blocked in a slow tool, each with a wait in flight. ``kill -9`` the host, then:
both waits fail with the connection's reason; every cell of both sessions is reported closed
exactly once; each slow tool sees its cancellation (its token fires, the dispatcher records
``aborted``); the next execute in each session answers as ``g2:1`` on a new host process;
ids of the old generation get ``cell <id> belongs to a stale code-mode host generation``; and
the values stored before the kill still load (our host: the client's copy seeds the new
session; Codex's host loses them, so that check is ours only).

Runs against our host, and against Codex's host when ``$CODEMODE_REFERENCE_HOST`` is set.
"""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from polling import poll_until
from session_harness import HOSTS, OUR_HOST, SessionHarness, texts, waits_sent

from codemode.errors import CodeModeError, ToolCallError
from codemode.session import HostProvider
from codemode.tools.base import Tool

pytestmark = pytest.mark.timeout(120)
BOUND_S = 10.0


class Side(SessionHarness):
    """One session on the shared provider, with a ``slow`` tool that reports its start and
    its cancellation."""

    def __init__(self, provider: HostProvider, stored_values_extension: bool | None) -> None:
        self.tool_started = asyncio.Event()
        self.tool_cancelled = asyncio.Event()
        tool = Tool(
            name="slow", description="Blocks until cancelled.", handler=self.slow, input_schema={"type": "object"}
        )
        super().__init__(
            provider.command, provider, extra_tools=[tool], stored_values_extension=stored_values_extension
        )

    async def slow(self, args, ctx):
        self.tool_started.set()
        await ctx.cancellation.wait()
        self.tool_cancelled.set()
        raise ToolCallError("slow tool cancelled")

    async def run(self, source: str, timeout_s: float | None = BOUND_S, **kw: int):
        return await super().run(source, timeout_s, **kw)


def _exists_unreaped(pid: int) -> bool:
    """True while ``pid`` is a live process or a zombie nobody has waited for."""
    return os.path.exists(f"/proc/{pid}")


@pytest.mark.parametrize("command", HOSTS)
async def test_sigkill_with_two_sessions_sharing_a_host(command):
    provider = HostProvider(command)
    ours = command is OUR_HOST
    try:
        async with Side(provider, None) as a, Side(provider, None) as b:
            for side, key, value in ((a, "kept_a", '{"n":1}'), (b, "kept_b", "[1,2]")):
                cell, response = await side.run(f'store("{key}", {value}); text("stored")')
                assert (cell, texts(response)) == ("1", ["stored"])
            for side in (a, b):
                cell, response = await side.run(
                    'text("before"); await tools.slow({}); text("never")', yield_time_ms=200
                )
                assert (cell, response.kind, texts(response)) == ("2", "Yielded", ["before"])
                await asyncio.wait_for(side.tool_started.wait(), BOUND_S)
            connection = provider.connection
            waits = [asyncio.ensure_future(side.session.wait("2", yield_time_ms=30_000)) for side in (a, b)]
            await poll_until(lambda: waits_sent(connection) == 2, "both waits sent", interval_s=0)
            old_pid = connection.process.pid

            os.kill(old_pid, signal.SIGKILL)

            results = await asyncio.wait_for(asyncio.gather(*waits, return_exceptions=True), BOUND_S)
            for result in results:
                assert isinstance(result, CodeModeError)
                assert str(result) in (
                    "code-mode host exited with status signal: 9 (SIGKILL)",
                    "code-mode host closed its stdout",
                ), str(result)
            for side in (a, b):
                await asyncio.wait_for(side.tool_cancelled.wait(), BOUND_S)
                assert sorted(side.closed) == ["1", "2"]
                assert side.session.live_cells == []
                await side.until(lambda side=side: side.dispatcher.calls_for("2"), "tool outcome recorded")
                assert [r["outcome"] for r in side.dispatcher.calls_for("2")] == ["aborted"]
            # The killed host was reaped (no zombie, no orphan). Its exit status is not asserted:
            # CPython's subprocess module may reap an asyncio child first (its Popen goes to
            # subprocess._active and the next Popen's _cleanup() waits for it), and then asyncio
            # reports 255 for it.
            await asyncio.wait_for(connection.process.wait(), BOUND_S)
            # No event reports a /proc entry gone: polled.
            await poll_until(lambda: not _exists_unreaped(old_pid), "the killed host reaped")

            cell, response = await b.run('text("replacement"); text(JSON.stringify(load("kept_b")))')
            assert cell == "g2:1"
            assert texts(response)[0] == "replacement"
            cell, response = await a.run('text(JSON.stringify(load("kept_a")))')
            assert cell == "g2:1"
            assert provider.generation == 2 and provider.connection.process.pid != old_pid
            if ours:
                assert texts(response) == ['{"n":1}']
                _, response = await b.run('text(JSON.stringify(load("kept_b")))')
                assert texts(response) == ["[1,2]"]

            for stale in ("1", "2"):
                with pytest.raises(CodeModeError) as info:
                    await a.session.wait(stale, yield_time_ms=10)
                assert str(info.value) == f"cell {stale} belongs to a stale code-mode host generation"
            for unknown in ("g1:2", "g3:1"):  # no generation gave these ids
                missing = await a.session.terminate(unknown)
                assert (missing.live, missing.response.error_text) == (False, f"exec cell {unknown} not found")
            with pytest.raises(CodeModeError) as info:
                await b.session.terminate("2")
            assert str(info.value) == "cell 2 belongs to a stale code-mode host generation"

            # Each cell was reported closed exactly once, the old ones and the new ones alike.
            b_cells = ["1", "2", "g2:1", "g2:2"] if ours else ["1", "2", "g2:1"]
            await a.until(lambda: len(a.closed) == 3, "new cells of a closed")
            await b.until(lambda: len(b.closed) == len(b_cells), "new cells of b closed")
            assert sorted(a.closed) == ["1", "2", "g2:1"]
            assert sorted(b.closed) == b_cells
    finally:
        await provider.aclose()
