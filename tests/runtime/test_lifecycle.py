"""Execute / wait / terminate lifecycle of cells, as Codex's host 0.171 does it."""

from __future__ import annotations

import asyncio

import pytest
from rt_client import body_of, start_host, text_items, without_duration

from codemode.runtime.livecell import effective_yield_ms


@pytest.mark.unit
def test_effective_yield_time_pinned_pairs():
    """(limit, requested) -> effective: +1000 ms grace from 10 000 ms, clamped by maxYieldTimeMs (Codex's rules)."""
    pairs = [
        (None, 0, 0),
        (None, 9999, 9999),
        (None, 10000, 11000),
        (None, 10001, 11001),
        (0, 10000, 0),
        (5000, 9999, 5000),
        (10000, 10000, 10000),
        (10500, 10000, 10500),
        (11000, 10000, 11000),
        (12000, 10000, 11000),
        (10500, 5000, 5000),
    ]
    for limit, requested, effective in pairs:
        assert effective_yield_ms(requested, limit) == effective
    assert effective_yield_ms(None, None) == 11000


async def test_cell_ids_and_started_before_initial_response(host):
    """The host numbers cells "1", "2", …; execution/started precedes execute/initialResponse."""
    first, _ = await host.execute("text(1)")
    second, _ = await host.execute("text(2)")
    assert (first, second) == ("1", "2")
    kinds = [m["type"] for m in host.events if m["type"] in ("operation/response", "execute/initialResponse")]
    assert kinds[1:5] == ["operation/response", "execute/initialResponse"] * 2  # [0] answers session/open
    await host.wait_for(lambda: len(host.closed_cells) == 2)
    assert host.closed_cells == [("s1", "1"), ("s1", "2")]


async def test_yield_then_waits_return_only_new_output(host):
    """Yielded first, an empty Yielded wait, then the Result with the rest (long_sleep_then_wait)."""
    cell_id, first = await host.execute("text('start'); await tools.sleep({ms: 600}); text('end');", yield_time_ms=50)
    assert text_items(first) == ["start"] and "Yielded" in first
    second = await host.wait(cell_id, 10)
    assert second == {"LiveCell": {"Yielded": {**body_of(second["LiveCell"]), "content_items": []}}}
    final = await host.wait(cell_id, 5000)
    assert "Result" in final["LiveCell"] and text_items(final["LiveCell"]) == ["end"]
    missing = await host.wait(cell_id, 10)
    assert body_of(missing["MissingCell"])["error_text"] == f"exec cell {cell_id} not found"


async def test_unknown_cells_are_missing(host):
    """wait/terminate on ids that never existed answer MissingCell (wait_terminate_unknown_cell)."""
    waited = await host.wait("999", 10)
    assert body_of(waited["MissingCell"]) | {"code_mode_host_duration_ns": 0, "result_buffered_for_ns": 0} == {
        "cell_id": "999",
        "content_items": [],
        "error_text": "exec cell 999 not found",
        "code_mode_host_duration_ns": 0,
        "result_buffered_for_ns": 0,
    }
    terminated = await host.terminate("nope")
    assert body_of(terminated["MissingCell"])["error_text"] == "exec cell nope not found"


async def test_yield_control(host):
    """yield_control() answers Yielded at once, even with no output (yield_control_only)."""
    cell_id, first = await host.execute(
        "yield_control(); text('later'); await new Promise((r) => setTimeout(r, 100)); text('done');",
        yield_time_ms=20000,
    )
    assert first == {"Yielded": {**body_of(first), "content_items": []}}
    final = await host.wait(cell_id, 5000)
    assert text_items(final["LiveCell"]) == ["later", "done"]


async def test_one_observer_at_a_time(host):
    """A second concurrent wait fails with Codex's text; the first goes on."""
    cell_id, _ = await host.execute("await new Promise((r) => setTimeout(r, 400)); text('x');", yield_time_ms=0)
    first = host.start_wait(cell_id, 5000)  # written to the host's stdin before the second
    second = await host.request(
        {"method": "session/wait", "sessionId": "s1", "request": {"cell_id": cell_id, "yield_time_ms": 5000}}
    )
    assert second == {"status": "error", "message": f"exec cell {cell_id} already has an active observer"}
    result = await asyncio.wait_for(first, 10)
    assert text_items(result["value"]["outcome"]["LiveCell"]) == ["x"]


async def test_unobserved_completion_is_kept_and_wins_over_terminate(host):
    """A finished cell keeps its output for the next observer; terminate then gets the Result."""
    cell_id, first = await host.execute(
        "tools.sleep({ms: 30000}); await new Promise((r) => setTimeout(r, 50)); text('done');", yield_time_ms=0
    )
    assert "Yielded" in first
    # The host cancels the unawaited call in the same step that records the completion.
    await host.wait_for(lambda: bool(host.calls) and host.calls[0].cancelled)
    outcome = await host.terminate(cell_id)
    assert "Result" in outcome["LiveCell"] and text_items(outcome["LiveCell"]) == ["done"]
    await _closed(host, cell_id)


async def _closed(host, cell_id: str) -> bool:
    await host.wait_for(lambda: ("s1", cell_id) in host.closed_cells)
    return True


async def test_terminate_running_cell_cancels_tool_calls(host):
    """Terminate: pending delegate cancelled, Terminated with undelivered output, MissingCell after (terminate_*)."""
    cell_id, first = await host.execute(
        "text('before'); await tools.sleep({ms: 30000}); text('never');", yield_time_ms=50
    )
    assert text_items(first) == ["before"]
    await host.wait_for(lambda: len(host.calls) == 1)
    outcome = await host.terminate(cell_id)
    assert "Terminated" in outcome["LiveCell"] and text_items(outcome["LiveCell"]) == []
    assert host.calls[0].cancelled
    await _closed(host, cell_id)
    assert body_of((await host.wait(cell_id, 10))["MissingCell"])["error_text"] == f"exec cell {cell_id} not found"
    assert text_items(await host.run("text('next cell works')")) == ["next cell works"]


async def test_infinite_loop_yields_and_terminates(host):
    """A CPU-bound loop still yields on time and is terminated in-process (infinite_loop_terminate)."""
    cell_id, first = await host.execute("text('spinning'); while (true) {}", yield_time_ms=100)
    assert "Yielded" in first and text_items(first) == ["spinning"]
    outcome = await host.terminate(cell_id)
    assert without_duration(outcome["LiveCell"]) == {"Terminated": {"cell_id": cell_id, "content_items": []}}
    assert host.process.returncode is None
    assert text_items(await host.run("text('alive')")) == ["alive"]


async def test_terminated_cell_commits_nothing(host):
    """Stored values: a terminated cell commits nothing."""
    cell_id, _ = await host.execute("store('k', 'from terminated'); await new Promise(() => {});", yield_time_ms=50)
    await host.terminate(cell_id)
    assert text_items(await host.run("text(String(load('k')));")) == ["undefined"]


async def test_store_snapshot_and_last_finisher_wins(host):
    """Each cell sees a snapshot; writes merge per key when a cell completes (concurrent_cells)."""
    await host.run("store('a', 1); store('b', 2);")
    slow_id, _ = await host.execute(
        "store('a', 3); await new Promise((r) => setTimeout(r, 300)); text(JSON.stringify([load('a'), load('b')]));",
        yield_time_ms=0,
    )
    assert text_items(await host.run("store('b', 4); text(load('a'));")) == ["1"]
    final = await host.wait(slow_id, 5000)
    assert text_items(final["LiveCell"]) == ["[3,2]"]
    assert text_items(await host.run("text(JSON.stringify([load('a'), load('b')]));")) == ["[3,4]"]


async def test_failed_cell_still_commits(host):
    """Completion with an error commits earlier store() calls."""
    await host.run("store('x', 'kept'); throw new Error('late');")
    assert text_items(await host.run("text(load('x'));")) == ["kept"]


async def test_operation_yield_forces_yield(host):
    """operation/yield makes an in-flight execute answer Yielded now (operation_yield)."""
    rid, started, initial = host.start_execute(
        "text('before'); await tools.sleep({ms: 300}); text('after');", yield_time_ms=20000
    )
    cell_id = (await started)["value"]["cellId"]
    await host.wait_for(lambda: len(host.calls) == 1)
    host.send({"type": "operation/yield", "id": rid})
    first = (await asyncio.wait_for(initial, 5))["value"]
    assert "Yielded" in first and text_items(first) == ["before"]
    assert text_items((await host.wait(cell_id, 5000))["LiveCell"]) == ["after"]


@pytest.mark.parametrize("request_kind", ["wait", "execute"])
async def test_operation_yield_read_with_its_request_still_yields(host, request_kind):
    """An ``operation/yield`` read in the same batch as the request it names (before that
    request's observation began) still ends the observation at once with ``Yielded``: the
    yield is not lost, and the request does not run its whole yield time (60 s)."""
    source = "text('a'); await tools.sleep({ms: 60000});"
    if request_kind == "wait":
        cell_id, _ = await host.execute(source, yield_time_ms=50)
    with host.one_write():
        if request_kind == "wait":
            answer = host.start_wait(cell_id, 60_000)
            rid = max(host._responses)
        else:
            rid, started, answer = host.start_execute(source, yield_time_ms=60_000)
        host.send({"type": "operation/yield", "id": rid})
    response = (await asyncio.wait_for(answer, 10))["value"]
    if request_kind == "wait":
        response = response["outcome"]["LiveCell"]
        assert without_duration(response) == {"Yielded": {"cell_id": cell_id, "content_items": []}}
    else:
        cell_id = (await started)["value"]["cellId"]
        assert "Yielded" in response
    assert "Terminated" in (await host.terminate(cell_id))["LiveCell"]


async def test_operation_cancel_of_execute_has_no_effect(host):
    """operation/cancel aimed at an execute: the cell runs on and answers (operation_cancel_execute)."""
    rid, started, initial = host.start_execute("await tools.sleep({ms: 100}); text('ran');", yield_time_ms=5000)
    await started
    host.send({"type": "operation/cancel", "id": rid})
    assert text_items((await asyncio.wait_for(initial, 5))["value"]) == ["ran"]


async def test_session_max_yield_time_caps_execute_and_wait(raw_host):
    """cellExecutionLimits.maxYieldTimeMs caps execute and wait yields (session_max_yield_time)."""
    await raw_host.hello()
    await raw_host.open("s1", cellExecutionLimits={"maxYieldTimeMs": 100})
    cell_id, first = await raw_host.execute("await tools.sleep({ms: 3000}); text('b');", yield_time_ms=60000)
    assert without_duration(first) == {"Yielded": {"cell_id": cell_id, "content_items": []}}
    waited = await raw_host.wait(cell_id, 60000)
    assert without_duration(waited["LiveCell"]) == {"Yielded": {"cell_id": cell_id, "content_items": []}}
    assert "Terminated" in (await raw_host.terminate(cell_id))["LiveCell"]


async def test_heap_limit_fails_only_the_cell(raw_host):
    """maxHeapSizeBytes is enforced per cell: clear out-of-memory error, session goes on (our improvement)."""
    await raw_host.hello()
    await raw_host.open("s1", cellExecutionLimits={"maxHeapSizeBytes": 16 * 1024 * 1024})
    body = body_of(await raw_host.run("const a = []; for (;;) a.push(new Array(1e5).fill(1));"))
    assert body["error_text"] == (
        "RangeError: out of memory: the cell exceeded its heap limit of 16777216 bytes (maxHeapSizeBytes)"
    )
    assert text_items(await raw_host.run("text('still here')")) == ["still here"]


async def test_shutdown_with_running_cell(host):
    """session/shutdown: pending tool calls cancelled, cell/closed, then session/closed (shutdown_with_running_cell)."""
    cell_id, _ = await host.execute("await tools.sleep({ms: 30000});", yield_time_ms=50)
    await host.wait_for(lambda: len(host.calls) == 1)
    result = await host.request({"method": "session/shutdown", "sessionId": "s1"})
    assert result == {"status": "ok", "value": {"type": "session/closed", "sessionId": "s1"}}
    assert host.calls[0].cancelled and host.closed_cells == [("s1", cell_id)]
    types = [m["type"] for m in host.events]
    assert types.index("cell/closed") < len(types) - 1


async def test_server_truncation_and_wait_budget(raw_host):
    """outputTruncation=server: Codex's marker and header; maxOutputTokens on a wait (wait_max_output_tokens)."""
    await raw_host.hello()
    await raw_host.open("s1", outputTruncation="server")
    first = await raw_host.run('text("abcdefghij".repeat(10));', max_output_tokens=5)
    assert text_items(first) == [
        "Warning: truncated output (original token count: 25)\nTotal output lines: 1\n\n"
        "abcdefghij\u202620 tokens truncated\u2026abcdefghij"
    ]
    failed = await raw_host.run('throw new Error("x");', max_output_tokens=100)
    assert text_items(failed) == ["Script error:\nError: x\n    at exec_main.mjs:1:7"]
    cell_id, _ = await raw_host.execute(
        "await new Promise((r) => setTimeout(r, 50)); text('wait output ' + 'z'.repeat(300));", yield_time_ms=0
    )
    waited = await raw_host.wait(cell_id, 5000, max_output_tokens=10)
    assert text_items(waited["LiveCell"]) == [
        "Warning: truncated output (original token count: 78)\nTotal output lines: 1\n\n"
        "wait output zzzzzzzz\u202668 tokens truncated\u2026" + "z" * 20
    ]


async def test_client_truncation_never_truncates(host):
    """outputTruncation unset/client: nothing is cut, even with max_output_tokens (output_truncation_client_*)."""
    assert text_items(await host.run('text("x".repeat(100000));', max_output_tokens=1)) == ["x" * 100000]


async def test_stored_values_extension(raw_host):
    """Protocol extension: storedValues seeds the store and committed keys are reported before
    cell/closed, each value in a frame of its own (codemode/wire/stored_values.py)."""
    await raw_host.hello()
    await raw_host.open("s1", storedValues={"seed": {"v": 1}})
    assert text_items(await raw_host.run("text(load('seed')); store('n', [1, 2]); store('m', 'x');")) == ['{"v":1}']
    await raw_host.wait_for(lambda: raw_host.closed_cells)
    types = [m["type"] for m in raw_host.events]
    assert types.index("session/storedValues") < types.index("cell/closed")
    assert raw_host.stored_values == [
        {"type": "session/storedValues", "sessionId": "s1", "values": {"n": [1, 2]}},
        {"type": "session/storedValues", "sessionId": "s1", "values": {"m": "x"}},
    ]
    await raw_host.run("text('no writes');")
    await raw_host.open("plain")
    await raw_host.run("store('k', 1);", session_id="plain")
    assert len(raw_host.stored_values) == 2


async def test_sessions_are_isolated():
    """Different sessions never share stored values."""
    client = await start_host()
    try:
        await client.hello()
        await client.open("a")
        await client.open("b")
        await client.run("store('key', 1);", session_id="a")
        assert text_items(await client.run("text(String(load('key')));", session_id="b")) == ["undefined"]
    finally:
        await client.close()
