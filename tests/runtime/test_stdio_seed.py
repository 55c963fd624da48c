"""Python counterparts of Codex's host stdio tests (``codex-rs/code-mode-host/tests/stdio.rs``).

Each test keeps the name and the asserted behaviour of its Rust original, driven over the
real protocol with the ``rt_client`` test client instead of Codex's
``ProcessOwnedCodeModeSessionProvider``. Where the original exercises the client side
(refusing to send an oversized frame, rebuilding after the host died) the host-side half
is asserted here and the client half lives in ``tests/codemode``.
"""

from __future__ import annotations

import asyncio

import pytest
from rt_client import ToolFailure, body_of, start_host, text_items, tool_def, without_duration

from codemode.wire.framing import MAX_FRAME_BYTES, FrameTooLarge, encode_frame


@pytest.fixture
async def shared_host():
    client = await start_host()
    await client.hello()
    yield client
    await client.close()


async def test_session_execution_limits_are_isolated_on_a_shared_process_host(shared_host):
    host = shared_host
    await host.open("limited", cellExecutionLimits={"maxYieldTimeMs": 1})
    await host.open("other", cellExecutionLimits={"maxYieldTimeMs": 1000})
    cell_id, response = await host.execute("await new Promise(() => {});", session_id="limited")
    assert (cell_id, "Yielded" in response, body_of(response)["content_items"]) == ("1", True, [])
    waited = await asyncio.wait_for(host.wait("1", 60_000, session_id="limited"), 5)
    assert body_of(waited["LiveCell"])["content_items"] == [] and "Yielded" in waited["LiveCell"]
    terminated = (await host.terminate("1", session_id="limited"))["LiveCell"]
    assert without_duration(terminated) == {"Terminated": {"cell_id": "1", "content_items": []}}
    for session_id in ("limited", "other"):
        assert (await host.request({"method": "session/shutdown", "sessionId": session_id}))["status"] == "ok"


async def test_remote_session_persists_values_forwards_delegates_and_controls_cells(shared_host):
    host = shared_host
    await host.open("s1")

    async def echo(value):
        return {"value": "output"} if value == {"value": "persisted"} else value

    host.tools["echo"] = echo
    first = await host.run('store("key", "persisted");')
    assert body_of(first) | {"code_mode_host_duration_ns": 0} == {
        "cell_id": "1",
        "content_items": [],
        "error_text": None,
        "result_buffered_for_ns": 0,
        "code_mode_host_duration_ns": 0,
    }
    second = await host.run(
        'const result = await tools.echo({ value: String(load("key")) });\nnotify("notice");\ntext(result.value);',
        tools=[tool_def("echo")],
        tool_call_id="call-2",
    )
    assert body_of(second)["cell_id"] == "2" and text_items(second) == ["output"]
    invocation = host.calls[0].request["invocation"]
    assert invocation == {
        "cell_id": "2",
        "runtime_tool_call_id": "tool-1",
        "tool_name": {"name": "echo", "namespace": None},
        "tool_kind": "function",
        "input": {"value": "persisted"},
    }
    assert host.calls[1].request == {"type": "notification/send", "callId": "call-2", "cellId": "2", "text": "notice"}
    cell_id, pending = await host.execute("await new Promise(() => {});", yield_time_ms=1, tool_call_id="call-3")
    assert cell_id == "3" and "Yielded" in pending and body_of(pending)["content_items"] == []
    waited = await host.wait("3", 1)
    assert "Yielded" in waited["LiveCell"] and body_of(waited["LiveCell"])["content_items"] == []
    terminated = await host.terminate("3")
    assert "Terminated" in terminated["LiveCell"] and body_of(terminated["LiveCell"])["content_items"] == []
    assert (await host.request({"method": "session/shutdown", "sessionId": "s1"}))["status"] == "ok"
    assert host.closed_cells == [("s1", "1"), ("s1", "2"), ("s1", "3")]


async def test_dropping_long_wait_releases_observer_before_next_wait(shared_host):
    host = shared_host
    await host.open("s1")
    cell_id, response = await host.execute("await new Promise(() => {});", yield_time_ms=1)
    assert "Yielded" in response
    wait_id, first_wait = host.start_request(
        {"method": "session/wait", "sessionId": "s1", "request": {"cell_id": cell_id, "yield_time_ms": 60_000}}
    )
    host.send({"type": "operation/cancel", "id": wait_id})
    cancelled = await asyncio.wait_for(first_wait, 5)
    assert cancelled == {"status": "error", "message": "code-mode request cancelled"}
    second = await asyncio.wait_for(host.wait(cell_id, 1), 2)
    assert "Yielded" in second["LiveCell"] and body_of(second["LiveCell"])["content_items"] == []
    await host.terminate(cell_id)


async def test_unawaited_slow_tool_is_cancelled_after_parallel_tools_complete(shared_host):
    host = shared_host
    await host.open("s1")
    release_fast = asyncio.Event()
    slow_cancelled = asyncio.Event()

    async def fast(_):
        await release_fast.wait()
        return {}

    async def slow(_):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            slow_cancelled.set()
            raise

    host.tools.update(
        {
            "tool_call_a": fast,
            "tool_call_b": fast,
            "tool_call_slow": slow,
            "tool_call_barrier": lambda _: _immediate({}),
        }
    )
    source = (
        'await (async () => {\ntext("hello world");\nyield_control();\n'
        "await Promise.all([\n    tools.tool_call_a({}),\n    tools.tool_call_b({}),\n]);\n"
        'text("hello");\ntools.tool_call_slow({});\nawait tools.tool_call_barrier({});\nreturn;\n})();\n'
    )
    tools = [tool_def(n) for n in ("tool_call_a", "tool_call_b", "tool_call_slow", "tool_call_barrier")]
    cell_id, first = await host.execute(source, tools=tools, yield_time_ms=10_000)
    assert text_items(first) == ["hello world"] and "Yielded" in first
    wait_task = asyncio.create_task(host.wait(cell_id, 60_000))
    await host.wait_for(lambda: len(host.calls) == 2)
    assert sorted(c.request["invocation"]["tool_name"]["name"] for c in host.calls) == ["tool_call_a", "tool_call_b"]
    release_fast.set()
    final = await asyncio.wait_for(wait_task, 10)
    assert "Result" in final["LiveCell"] and text_items(final["LiveCell"]) == ["hello"]
    assert body_of(final["LiveCell"])["error_text"] is None
    await asyncio.wait_for(slow_cancelled.wait(), 5)
    await host.wait_for(lambda: ("s1", cell_id) in host.closed_cells)
    slow_call = next(c for c in host.calls if c.request["invocation"]["tool_name"]["name"] == "tool_call_slow")
    assert slow_call.cancelled


async def _immediate(value):
    return value


async def test_oversized_execute_request_does_not_close_the_shared_host(shared_host):
    host = shared_host
    await host.open("s1")
    request = {
        "type": "operation/request",
        "id": 99,
        "request": {
            "method": "session/execute",
            "sessionId": "s1",
            "request": {
                "tool_call_id": "c",
                "enabled_tools": [],
                "source": "x" * MAX_FRAME_BYTES,
                "yield_time_ms": None,
                "max_output_tokens": None,
            },
        },
    }
    with pytest.raises(FrameTooLarge, match="exceeds 67108864 bytes"):
        encode_frame(request)
    response = await host.run('text("still alive");')
    assert body_of(response)["cell_id"] == "1" and text_items(response) == ["still alive"]


async def test_oversized_delegate_payloads_fail_only_the_tool_call(shared_host):
    host = shared_host
    await host.open("s1")

    async def big_result(_):
        payload = {
            "type": "delegate/response",
            "id": 0,
            "result": {"status": "ok", "value": {"type": "tool/result", "result": "x" * MAX_FRAME_BYTES}},
        }
        try:
            encode_frame(payload)
        except FrameTooLarge as exc:  # what Codex's client answers instead of the result
            raise ToolFailure(f"code-mode delegate result exceeds the IPC frame limit: {exc}") from None
        return payload

    host.tools["big_result"] = big_result
    argument = await host.run(
        f'try {{\n    await tools.big_argument({{ value: "x".repeat({MAX_FRAME_BYTES}) }});\n}} catch (_) {{\n'
        '    text("argument rejected");\n}\n',
        tools=[tool_def("big_argument")],
        yield_time_ms=60_000,
    )
    assert body_of(argument)["cell_id"] == "1" and text_items(argument) == ["argument rejected"]
    result = await host.run(
        'try {\n    await tools.big_result({});\n} catch (_) {\n    text("result rejected");\n}\n',
        tools=[tool_def("big_result")],
        yield_time_ms=60_000,
    )
    assert body_of(result)["cell_id"] == "2" and text_items(result) == ["result rejected"]
    alive = await host.run('text("still alive");')
    assert body_of(alive)["cell_id"] == "3" and text_items(alive) == ["still alive"]


async def test_oversized_initial_response_does_not_close_the_shared_host(shared_host):
    host = shared_host
    await host.open("s1")
    _, started, initial = host.start_execute(f'text("x".repeat({MAX_FRAME_BYTES}));')
    assert (await asyncio.wait_for(started, 30))["value"]["cellId"] == "1"
    failed = await asyncio.wait_for(initial, 60)
    assert failed["status"] == "error" and "IPC frame limit" in failed["message"]
    alive = await host.run('text("still alive");')
    assert body_of(alive)["cell_id"] == "2" and text_items(alive) == ["still alive"]


async def test_child_process_loss_cleans_up_and_rebuilds_the_shared_host():
    """Host half: after SIGKILL the client sees EOF (pending waits fail); a new host starts clean.

    The client half (cells closed once, generation 2 ids, stale-id text) is tested in
    ``tests/codemode``.
    """
    host = await start_host()
    await host.hello()
    await host.open("a")
    await host.open("b")
    await host.execute("await tools.sleep({ms: 60000});", session_id="a", yield_time_ms=1)
    await host.execute("await new Promise(() => {});", session_id="b", yield_time_ms=1)
    await host.wait_for(lambda: len(host.calls) == 1)
    waits = [host.start_wait("1", 60_000, session_id=session) for session in ("a", "b")]
    host.process.kill()
    for pending in waits:
        with pytest.raises(ConnectionError):
            await asyncio.wait_for(pending, 5)
    await host.process.wait()
    replacement = await start_host()
    try:
        await replacement.hello()
        await replacement.open("b")
        response = await replacement.run('text("replacement");', session_id="b")
        assert text_items(response) == ["replacement"] and body_of(response)["cell_id"] == "1"
    finally:
        await replacement.close()
