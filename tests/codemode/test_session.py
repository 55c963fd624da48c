"""CodeModeSession against a real host process: our ``codemode.runtime`` always, and Codex's
``codex-code-mode-host`` too when ``$CODEMODE_REFERENCE_HOST`` names its binary.

Cell ids, delegate routing, cells closed exactly once, host death and rebuild (generation + 1,
``g2:1``), stale ids, shutdown.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import sys
import weakref
from typing import Any

import pytest
from polling import poll_until
from session_harness import HOSTS, OUR_HOST, texts, waits_sent
from session_harness import SessionHarness as Harness

from codemode.cell_events import Closed, InitialAnswer, Notification
from codemode.errors import CodeModeError, HostConnectionError
from codemode.session import HostProvider

pytestmark = pytest.mark.timeout(120)


def is_reference(command):
    return command is not OUR_HOST


@pytest.mark.parametrize("command", HOSTS)
async def test_cells_tools_notifications_and_closing(command):
    async with Harness(command) as h:
        cell, response = await h.run(
            'text("hi"); const r = await tools.echo({value: 1}); text(JSON.stringify(r)); notify("notice")'
        )
        assert (cell, response.kind, texts(response)) == ("1", "Result", ["hi", '{"value":1}'])
        cell, response = await h.run('throw new Error("boom")')
        assert cell == "2" and response.error_text.startswith("Error: boom")
        await h.until(lambda: len(h.closed) == 2, "both cells closed")
        assert h.notes == [("1", "notice")]
        assert h.closed == ["1", "2"]
        assert h.session.live_cells == []
        assert [r["tool"] for r in h.dispatcher.calls_for("1")] == ["echo"]


@pytest.mark.parametrize("command", HOSTS)
async def test_a_closed_cells_stream_lives_only_as_long_as_its_reader_holds_it(command):
    """The session keeps a closed cell's stream only while its reader holds it (tool calls
    still cleaning up report to it); a stream kept for every cell ever run would grow the
    kernel with each cell."""
    async with Harness(command) as h:
        closed = asyncio.Event()
        h.session.add_listener(lambda event: closed.set() if isinstance(event, Closed) else None)
        started = await h.session.execute('text("a")')
        stream = weakref.ref(started.events)
        await asyncio.wait_for(closed.wait(), 10)
        events = [type(started.events.take()).__name__, type(started.events.take()).__name__]
        assert events == ["InitialAnswer", "Closed"]
        del started
        gc.collect()
        assert stream() is None


@pytest.mark.parametrize("command", HOSTS)
async def test_a_cells_stream_holds_the_host_s_events_and_the_dispatcher_s_in_order(command):
    """The events of one cell in one stream: the dispatcher's events of a call come after the
    host's request of it (``ToolInvoked``), in the order they happened; the listener sees
    every event as it enters the stream."""
    async with Harness(command) as h:
        closed = asyncio.Event()
        seen: list[Any] = []
        h.session.add_listener(seen.append)
        h.session.add_listener(lambda event: closed.set() if isinstance(event, Closed) else None)
        started = await h.session.execute('notify("n"); await tools.echo({value: 1}); text("done")')
        await asyncio.wait_for(closed.wait(), 10)
        taken = []
        while (event := started.events.take()) is not None:
            taken.append(event)
        assert taken == seen
        kinds = [getattr(event, "kind", type(event).__name__) for event in taken]
        assert kinds == ["Notification", "ToolInvoked", "started", "finished", "InitialAnswer", "Closed"]
        assert taken[0] == Notification("1", "n")
        assert taken[4] == InitialAnswer("1", await started.initial_response)


@pytest.mark.parametrize("command", HOSTS)
async def test_tool_errors_reject_the_promise_with_the_message(command):
    async with Harness(command) as h:
        _, response = await h.run('try { await tools.sleep({ms: "soon"}) } catch (e) { text(typeof e + ": " + e) }')
        assert texts(response) == [
            'string: tool `sleep` received invalid arguments at `ms`: "soon" is not of type "integer" (schema rule `type`).'
        ]


@pytest.mark.parametrize("command", HOSTS)
async def test_yield_wait_and_terminate_cancel_the_tool(command):
    async with Harness(command) as h:
        cell, response = await h.run('text("a"); await tools.sleep({ms: 60000}); text("never")', yield_time_ms=100)
        assert (response.kind, texts(response)) == ("Yielded", ["a"])
        assert h.session.live_cells == [cell]
        outcome = await h.session.wait(cell, yield_time_ms=50)
        assert outcome.live and outcome.response.kind == "Yielded"
        outcome = await h.session.terminate(cell)
        assert outcome.live and outcome.response.kind == "Terminated" and outcome.response.cell_id == cell
        await h.until(lambda: h.dispatcher.calls_for(cell), "the tool call recorded")
        assert [r["outcome"] for r in h.dispatcher.calls_for(cell)] == ["aborted"]
        missing = await h.session.wait(cell, yield_time_ms=10)
        assert not missing.live and missing.response.error_text == f"exec cell {cell} not found"
        assert h.closed == [cell]


@pytest.mark.parametrize("command", HOSTS)
async def test_host_death_closes_cells_once_and_rebuilds_with_the_next_generation(command):
    async with Harness(command) as h:
        _, first = await h.run('store("kept", {n: 1}); text("stored")')
        assert texts(first) == ["stored"]
        cell, response = await h.run("await tools.sleep({ms: 60000})", yield_time_ms=50)
        assert response.kind == "Yielded"
        waiting = asyncio.ensure_future(h.session.wait(cell, yield_time_ms=30000))
        await poll_until(lambda: waits_sent(h.session.provider.connection) == 1, "the wait sent", interval_s=0)
        process = h.session.provider.connection.process
        os.killpg(process.pid, signal.SIGKILL)
        with pytest.raises(CodeModeError) as info:
            await asyncio.wait_for(waiting, 10)
        assert "code-mode host" in str(info.value)
        assert h.closed.count(cell) == 1
        await h.until(lambda: h.dispatcher.calls_for(cell), "the tool call recorded")
        assert [r["outcome"] for r in h.dispatcher.calls_for(cell)] == ["aborted"]
        new_cell, response = await h.run('text("replacement"); text(JSON.stringify(load("kept")))')
        assert new_cell == "g2:1"
        if not is_reference(command):
            assert texts(response) == ["replacement", '{"n":1}']
            assert h.session.stored_values == {"kept": {"n": 1}}
        for stale in ("1", "2"):
            with pytest.raises(CodeModeError) as info:
                await h.session.wait(stale, yield_time_ms=10)
            assert str(info.value) == f"cell {stale} belongs to a stale code-mode host generation"
        for unknown in ("g1:42", "g3:42", "nonsense"):  # no generation gave these ids
            missing = await h.session.wait(unknown, yield_time_ms=10)
            assert (missing.live, missing.response.cell_id, missing.response.error_text) == (
                False,
                unknown,
                f"exec cell {unknown} not found",
            )
        with pytest.raises(CodeModeError, match="belongs to a stale code-mode host generation"):
            await h.session.terminate("2")


@pytest.mark.parametrize("command", HOSTS)
async def test_sessions_sharing_a_host_move_to_the_new_one(command):
    provider = HostProvider(command)
    try:
        async with Harness(command, provider) as a, Harness(command, provider) as b:
            cell_a, _ = await a.run("await tools.sleep({ms: 60000})", yield_time_ms=50)
            cell_b, _ = await b.run("await tools.sleep({ms: 60000})", yield_time_ms=50)
            assert (cell_a, cell_b) == ("1", "1")
            waits = [asyncio.ensure_future(s.session.wait("1", yield_time_ms=30000)) for s in (a, b)]
            await poll_until(lambda: waits_sent(provider.connection) == 2, "both waits sent", interval_s=0)
            os.killpg(provider.connection.process.pid, signal.SIGKILL)
            results = await asyncio.gather(*waits, return_exceptions=True)
            assert all(isinstance(r, CodeModeError) for r in results)
            assert a.closed == ["1"] and b.closed == ["1"]
            cell, response = await b.run('text("replacement")')
            assert (cell, texts(response)) == ("g2:1", ["replacement"])
            cell, _ = await a.run('text("a again")')
            assert cell == "g2:1"
    finally:
        await provider.aclose()


@pytest.mark.unit
async def test_shutdown_before_open_spawns_nothing_and_later_calls_fail():
    async with Harness(OUR_HOST) as h:
        await h.session.shutdown()
        assert h.session.provider.connection is None
        with pytest.raises(CodeModeError, match="^code mode session is shutting down$"):
            await h.session.execute('text("x")')
        with pytest.raises(CodeModeError, match="^code mode session is shutting down$"):
            await h.session.wait("1", yield_time_ms=10)


@pytest.mark.parametrize("command", HOSTS)
async def test_shutdown_closes_running_cells_and_stops_the_host(command):
    async with Harness(command) as h:
        cell, _ = await h.run("await tools.sleep({ms: 60000})", yield_time_ms=50)
        process = h.session.provider.connection.process
        await h.session.shutdown()
        assert h.closed == [cell]
        assert process.returncode is not None


async def test_missing_host_binary_gives_the_spawn_error():
    async with Harness(["/nonexistent/codemode-host", "--listen", "stdio"]) as h:
        with pytest.raises(CodeModeError, match="^failed to spawn code-mode host /nonexistent/codemode-host: "):
            await h.session.execute('text("x")')


async def test_a_host_that_exits_during_the_handshake_is_reported_with_its_last_stderr_line():
    """A host that refuses its arguments (``codemode-host --profile notebook --engine v8``, for
    now) says why on stderr before it exits."""
    refusing = [
        sys.executable,
        "-c",
        "import sys; sys.stderr.write('usage: host\\nhost: no such profile\\n\\n'); sys.exit(2)",
    ]
    async with Harness(refusing) as h:
        with pytest.raises(CodeModeError) as info:
            await h.session.execute('text("x")')
    assert str(info.value) == "code-mode host exited during handshake: host: no such profile"
    assert isinstance(info.value, HostConnectionError)  # the kernel shows it as HostStopped
    silent = [sys.executable, "-c", "pass"]
    async with Harness(silent) as h:
        with pytest.raises(CodeModeError) as info:
            await h.session.execute('text("x")')
    assert str(info.value) == "code-mode host exited during handshake"


@pytest.mark.parametrize("command", HOSTS)
async def test_oversized_execute_fails_only_that_call(command):
    """An execute over the 64 MiB frame limit fails that call only; the host stays."""
    async with Harness(command) as h:
        cell, _ = await h.run('text("warm")')
        process = h.session.provider.connection.process
        with pytest.raises(CodeModeError) as info:
            await h.session.execute("x" * (64 * 1024 * 1024 + 1))
        assert str(info.value).startswith(
            "code-mode execute request exceeds the IPC frame limit: code-mode IPC frame length "
        )
        assert str(info.value).endswith(" exceeds 67108864 bytes")
        cell, response = await h.run('text("still here")')
        assert (cell, texts(response)) == ("2", ["still here"])
        assert h.session.provider.connection.process is process
