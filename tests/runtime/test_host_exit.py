"""A host that must exit on its own says so first, answers, flushes, and exits.

When a cell does not stop within half a second of ``session/terminate`` (no in-process
interrupt, or JavaScript stuck in one long engine call such as ``new Array(1e9) + ""``),
the host cannot go on. A client granted codemode's ``codemode-host-exit-notice-v1`` gets
``{"type": "host/exiting", "reason": ...}`` before the terminate's answer, so it starts
no new cell on this host; the answer (whole, however large) and ``cell/closed`` follow,
then the host exits with status 3. The host ignores SIGINT: an interrupt jupyter_client
sends to the kernel's process group does not take the host, or its cells, down.
"""

from __future__ import annotations

import asyncio
import signal

from rt_client import start_host, text_items, without_duration

from codemode.wire.framing import CAPABILITIES, EXIT_NOTICE_CAPABILITY

REASON = (
    "cell 1 of session s1 did not stop within 0.5 s of session/terminate (no in-process interrupt is available); "
    "the code-mode host is exiting so the client can start a new one"
)


async def _spinning_host(optional: list[str]):
    host = await start_host(env={"CODEMODE_HOST_NO_INTERRUPT": "1"})
    await host.hello(optional=optional)
    await host.open("s1")
    return host


async def _finish(host) -> int:
    status = await asyncio.wait_for(host.process.wait(), 30)
    if host._reader is not None:
        await asyncio.wait_for(host._reader, 30)
    return status


async def test_exit_notice_comes_before_the_terminate_answer():
    host = await _spinning_host(list(CAPABILITIES))
    try:
        cell_id, first = await host.execute("yield_control(); text('x'.repeat(8000000)); while (true) {}")
        assert "Yielded" in first
        _, answer = host.start_request({"method": "session/terminate", "sessionId": "s1", "cellId": cell_id})
        outcome = (await asyncio.wait_for(answer, 30))["value"]["outcome"]
        assert text_items(outcome["LiveCell"]) == ["x" * 8_000_000]
        assert await _finish(host) == 3
        tail = [m["type"] for m in host.events[-3:]]
        assert tail == ["host/exiting", "operation/response", "cell/closed"]
        assert host.events[-3] == {"type": "host/exiting", "reason": REASON}
        assert host.read_error is None
    finally:
        if host.process.returncode is None:
            host.process.kill()
            await host.process.wait()


async def test_no_exit_notice_without_the_capability():
    without = [c for c in CAPABILITIES if c != EXIT_NOTICE_CAPABILITY]
    host = await _spinning_host(without)
    try:
        assert EXIT_NOTICE_CAPABILITY not in host.handshake["capabilities"]
        cell_id, _ = await host.execute("while (true) {}", yield_time_ms=10)
        outcome = await host.terminate(cell_id)
        assert without_duration(outcome["LiveCell"]) == {"Terminated": {"cell_id": cell_id, "content_items": []}}
        assert await _finish(host) == 3
        assert "host/exiting" not in [m["type"] for m in host.events]
        assert [m["type"] for m in host.events[-2:]] == ["operation/response", "cell/closed"]
    finally:
        if host.process.returncode is None:
            host.process.kill()
            await host.process.wait()


async def test_sigint_does_not_stop_the_host_or_its_cells(host):
    cell_id, first = await host.execute("await tools.sleep({ms: 300}); text('done');", yield_time_ms=0)
    assert "Yielded" in first
    host.process.send_signal(signal.SIGINT)
    final = await host.wait(cell_id, 10_000)
    assert text_items(final["LiveCell"]) == ["done"]
    assert text_items(await host.run("text('next')")) == ["next"]
    assert host.process.returncode is None
