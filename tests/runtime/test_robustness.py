"""Robustness of the host (issue "Host protocol, isolation and recovery", host side).

- the message decoder (``codemode.runtime.validate``) answers any JSON value with either
  a decoded message or a clean ``DecodeError``, never another exception;
- random bytes, truncated frames and huge lengths end the host cleanly (status 0 or 1,
  message on stderr), never a hang;
- 4097 cells in a row (the count of the seed's tombstone test) leave the host's memory
  flat; limits on in-flight requests answer with Codex's text.
"""

from __future__ import annotations

import asyncio
import json
import struct

import psutil
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rt_client import echo_tool, frame_header, start_host, text_items, without_duration

from codemode.runtime.validate import DecodeError, decode_message

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=10), c, max_size=4),
    max_leaves=12,
)
_fields = st.sampled_from(
    [
        "method",
        "sessionId",
        "request",
        "cellId",
        "maxOutputTokens",
        "cellExecutionLimits",
        "outputTruncation",
        "storedValues",
        "extra",
    ]
)
_methods = st.sampled_from(
    ["session/open", "session/execute", "session/wait", "session/terminate", "session/shutdown", "session/bogus"]
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(method=_methods, fields=st.dictionaries(_fields, _json, max_size=5))
def test_message_decoder_never_fails_uncleanly(method, fields):
    message = {"type": "operation/request", "id": 1, "request": {"method": method, **fields}}
    try:
        decoded = decode_message(message)
    except DecodeError as exc:
        assert str(exc)
    else:
        assert decoded["request"]["method"] == method


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(["id", "result", "type"]), _json, max_size=3))
def test_delegate_response_decoder_never_fails_uncleanly(message):
    try:
        decode_message({**message, "type": "delegate/response"})
    except DecodeError as exc:
        assert str(exc)


@pytest.mark.unit
@settings(max_examples=200, deadline=None)
@given(_json)
def test_any_json_value_decodes_or_fails_cleanly(value):
    try:
        decode_message(value)
    except DecodeError as exc:
        assert str(exc)


async def _feed_and_close(data: bytes) -> tuple[int, str]:
    host = await start_host()
    try:
        await host.hello()
        host.send_raw(data)
        host.process.stdin.close()
        status = await asyncio.wait_for(host.process.wait(), 20)
        stderr = (await host.process.stderr.read()).decode()
        return status, stderr
    finally:
        if host.process.returncode is None:
            host.process.kill()
            await host.process.wait()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.binary(min_size=1, max_size=64),
        st.builds(lambda n, body: struct.pack("<I", n) + body, st.integers(0, 2**32 - 1), st.binary(max_size=32)),
        st.builds(lambda obj: frame_header(len(json.dumps(obj))) + json.dumps(obj).encode()[:-1], _json),
    )
)
def test_random_bytes_end_the_host_cleanly(data):
    status, stderr = asyncio.run(_feed_and_close(data))
    assert status in (0, 1)
    if status == 1:
        assert "Error: failed to read code-mode client message" in stderr
    assert "Traceback" not in stderr


async def test_too_many_in_flight_requests():
    """Past 256 requests in flight: Codex's text for the extra ones, connection kept (MAX_IN_FLIGHT_REQUESTS).

    300 ``session/open`` frames go out in one write, so the host admits them all before any
    of them has finished.
    """
    from codemode.wire.framing import encode_frame

    host = await start_host()
    try:
        await host.hello()
        futures = {}
        frames = []
        for i in range(1, 301):
            futures[i] = asyncio.get_running_loop().create_future()
            host._responses[i] = futures[i]
            frames.append(
                encode_frame(
                    {"type": "operation/request", "id": i, "request": {"method": "session/open", "sessionId": f"s{i}"}}
                )
            )
        host._ids = iter(range(1000, 2000))
        host.send_raw(b"".join(frames))
        results = await asyncio.wait_for(asyncio.gather(*futures.values()), 20)
        refused = [r for r in results if r["status"] == "error"]
        assert refused and all(r["message"] == "code-mode host has too many in-flight requests" for r in refused)
        assert sum(r["status"] == "ok" for r in results) >= 256
        ok_id = next(i for i, r in zip(futures, results, strict=True) if r["status"] == "ok")
        assert text_items(await host.run("text('kept')", session_id=f"s{ok_id}")) == ["kept"]
    finally:
        host.process.kill()
        await host.process.wait()


async def test_4097_cells_do_not_grow_host_memory():
    """4097 cells one after another: host RSS at 4097 stays within noise of RSS at 100."""
    host = await start_host()
    try:
        await host.hello()
        await host.open("s1")
        process = psutil.Process(host.process.pid)
        rss = {}
        for i in range(1, 4098):
            response = await host.run(f"text({i}); store('k', {i});", tools=[])
            if i in (100, 4097):
                assert text_items(response) == [str(i)]
                rss[i] = process.memory_info().rss
        assert rss[4097] - rss[100] < 8 * 1024 * 1024, rss
    finally:
        await host.close()


async def test_pending_delegate_limit():
    """Past 1024 unanswered tool calls on a connection the host rejects new ones with Codex's text
    (``MAX_PENDING_DELEGATE_CALLS``, per connection as in Codex's ``HostPeer``), naming the cell
    that holds them: the same cell, or a yielded cell that starves another one's calls. Once that
    cell is terminated, its calls are cancelled and calls go out again."""
    host = await start_host()
    try:
        await host.hello()
        await host.open("s1")

        async def never(_):
            await asyncio.Event().wait()

        host.tools["echo"] = never
        source = (
            "for (let i = 0; i < 1024; i++) tools.echo({i});\n"
            "try { await tools.echo({i: 'over'}); } catch (e) { text(typeof e + ': ' + e); }\n"
        )
        response = await host.run(source)
        limit = "code-mode host has too many pending delegate calls (1024, the limit per connection)"
        assert text_items(response) == [f"string: {limit}: cell 1 holds 1024"]
        await host.wait_for(lambda: sum(c.cancelled for c in host.calls) == 1024)

        holder, first = await host.execute(
            "for (let i = 0; i < 1024; i++) tools.echo({i}); yield_control(); await new Promise(() => {});"
        )
        assert holder == "2" and "Yielded" in first
        await host.wait_for(lambda: sum(not c.cancelled for c in host.calls) == 1024)
        other = await host.run("try { await tools.echo(1); } catch (e) { text(e); }")
        assert text_items(other) == [f"{limit}: cell 2 holds 1024"]
        assert "Terminated" in (await host.terminate(holder))["LiveCell"]
        await host.wait_for(lambda: sum(c.cancelled for c in host.calls) == 2048)
        host.tools["echo"] = echo_tool
        assert text_items(await host.run("text(await tools.echo('next'))")) == ["next"]
    finally:
        await host.close()


async def test_second_terminate_while_cleaning_up():
    """A terminate arriving while the first is still cleaning up gets Codex's text (Codex: ``exec cell <id> is already terminating``)."""
    from codemode.wire.framing import encode_frame

    host = await start_host()
    try:
        await host.hello()
        await host.open("s1")
        cell_id, _ = await host.execute("while (true) {}", yield_time_ms=10)
        futures = []
        frames = []
        for rid in (900, 901):
            fut = asyncio.get_running_loop().create_future()
            host._responses[rid] = fut
            futures.append(fut)
            frames.append(
                encode_frame(
                    {
                        "type": "operation/request",
                        "id": rid,
                        "request": {"method": "session/terminate", "sessionId": "s1", "cellId": cell_id},
                    }
                )
            )
        host.send_raw(b"".join(frames))
        first, second = await asyncio.wait_for(asyncio.gather(*futures), 10)
        assert without_duration(first["value"]["outcome"]["LiveCell"]) == {
            "Terminated": {"cell_id": cell_id, "content_items": []}
        }
        assert second == {"status": "error", "message": f"exec cell {cell_id} is already terminating"}
    finally:
        await host.close()


async def test_without_interrupt_a_spinning_cell_exits_the_host():
    """With no in-process interrupt, terminate answers, then the host exits (status 3)."""
    host = await start_host(env={"CODEMODE_HOST_NO_INTERRUPT": "1"})
    try:
        await host.hello()
        await host.open("s1")
        assert text_items(await host.run("try { exit(); } catch (e) { text('caught ' + e); }")) == [
            "caught __codex_code_mode_exit__"
        ]
        cell_id, _ = await host.execute("while (true) {}", yield_time_ms=10)
        outcome = await host.terminate(cell_id)
        assert without_duration(outcome["LiveCell"]) == {"Terminated": {"cell_id": cell_id, "content_items": []}}
        assert await asyncio.wait_for(host.process.wait(), 10) == 3
        assert (
            "cell 2 of session s1 did not stop within 0.5 s of session/terminate (no in-process interrupt is available)"
            in (await host.process.stderr.read()).decode()
        )
    finally:
        if host.process.returncode is None:
            host.process.kill()
            await host.process.wait()
