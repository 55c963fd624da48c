"""The host's exit notice (``host/exiting``, capability ``codemode-host-exit-notice-v1``).

A host that must exit on its own (a cell it could not stop after a terminate) says so before
the answer that follows. The client retires that connection: the answer in flight still reaches
its caller, no new cell goes to it, and the next cell starts on a new host at once (generation
+ 1, stored values seeded) while the old one finishes; cells left on the old host end when it
exits. A host that never sends the notice (Codex's) keeps today's behaviour (the other session
tests).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from driver.driver_harness import FRAME_TIMEOUT_S, SESSION, DriverHarness, RecordingDelegate, terminated
from session_harness import SessionHarness

from codemode.cell_events import StoredValuesCommitted
from codemode.errors import CodeModeError, HostConnectionError

pytestmark = pytest.mark.timeout(60)
SCRIPTED_HOST = [sys.executable, str(Path(__file__).parent / "fakehost" / "scripted_host.py")]
BOUND_S = 10.0


@pytest.mark.unit
async def test_the_answer_after_the_notice_is_delivered_and_no_new_cell_starts():
    async with DriverHarness() as h:
        await h.open(RecordingDelegate())
        await h.start_cell(2, "1")
        terminating = asyncio.ensure_future(h.connection.terminate(SESSION, "1"))
        assert (await h.next_frame())["request"]["method"] == "session/terminate"
        h.send({"type": "host/exiting", "reason": "cell 1 could not be stopped"})
        h.wait_completed(3, "Terminated", "1")
        assert await asyncio.wait_for(terminating, FRAME_TIMEOUT_S) == terminated("1")
        assert h.connection.alive and h.connection.retiring == "cell 1 could not be stopped"
        with pytest.raises(CodeModeError, match=r"^code-mode host is exiting \(cell 1 could not be stopped\)"):
            await h.execute_task()
        # Waits on cells still on the old host go on until it exits.
        waiting = asyncio.ensure_future(h.connection.wait(SESSION, "1", 10))
        assert (await h.next_frame())["request"]["method"] == "session/wait"
        h.wait_completed(4, "Result", "1", live=False)
        assert (await asyncio.wait_for(waiting, FRAME_TIMEOUT_S)).live is False


@pytest.mark.unit
async def test_a_write_to_a_host_closing_after_its_notice_does_not_become_the_failure():
    # After host/exiting the host closes its stdin and exits: a message written then (a probe,
    # a wait) is lost, but the connection ends with the host's exit as the reason, as always.
    async with DriverHarness() as h:
        delegate = RecordingDelegate()
        await h.open(delegate)
        await h.start_cell(2, "1")
        terminating = asyncio.ensure_future(h.connection.terminate(SESSION, "1"))
        assert (await h.next_frame())["request"]["method"] == "session/terminate"
        h.send({"type": "host/exiting", "reason": "cell 1 could not be stopped"})
        h.wait_completed(3, "Terminated", "1")
        await asyncio.wait_for(terminating, FRAME_TIMEOUT_S)  # read after the notice
        assert h.connection.retiring == "cell 1 could not be stopped"
        h.sink.close()
        assert await h.connection.probe(1.0) is False
        with pytest.raises(CodeModeError, match=r"^code-mode host is exiting \(cell 1 could not be stopped\); "):
            await h.connection.wait(SESSION, "1", 10)
        assert h.connection.alive
        h.reader.feed_eof()
        await delegate.until(lambda: delegate.closed_cells == ["1"])
        assert not h.connection.alive
        assert h.connection.failure == "code-mode host closed its stdout"
        assert h.connection.state.requests.pending == {}


async def test_after_the_notice_the_next_cell_starts_on_a_new_host_at_once():
    async with SessionHarness([*SCRIPTED_HOST, "exit-notice"], stored_values_extension=True) as h:
        session = h.session
        first = await session.execute("await new Promise(() => {})")
        second = await session.execute("await new Promise(() => {})")
        assert (first.cell_id, second.cell_id) == ("1", "2")
        old = session.provider.connection
        assert old is not None and old.process is not None
        session._report(StoredValuesCommitted({"kept": 1}))  # as if a cell had stored it

        outcome = await asyncio.wait_for(session.terminate("1"), BOUND_S)
        assert (outcome.response.kind, outcome.response.content_items) == (
            "Terminated",
            [{"type": "input_text", "text": "stopped"}],
        )
        # The old host is still running (it exits 1 s after its notice); the next cell does not wait.
        started = await asyncio.wait_for(session.execute('text("next")'), BOUND_S)
        assert old.alive and old.process.returncode is None
        assert started.cell_id == "g2:1" and session.generation == 2
        new = session.provider.connection
        assert new is not old and new is not None
        assert new.state.sessions.get("session-1") is not None

        # A wait on a cell of the old host still goes there while it lives.
        still = await asyncio.wait_for(session.wait("2", yield_time_ms=10), BOUND_S)
        assert still.live and still.response.cell_id == "2"

        # Then the old host exits: its last cell ends with it, once.
        await asyncio.wait_for(old.closed.wait(), BOUND_S)
        assert h.closed.count("2") == 1 and h.closed.count("1") == 1
        failure = session.host_failure("2")
        assert isinstance(failure, HostConnectionError) and failure.generation == 1
        assert failure.reason in (
            "code-mode host exited with status exit status: 0",
            "code-mode host closed its stdout",
        )
        with pytest.raises(CodeModeError, match="^cell 2 belongs to a stale code-mode host generation$"):
            await session.wait("2", yield_time_ms=10)
        assert session.host_failure("g2:1") is None
