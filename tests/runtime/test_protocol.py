"""The host protocol: handshake, ids, limits and fatal frames, with the texts of Codex's host 0.171."""

from __future__ import annotations

import asyncio
import json

import pytest
from rt_client import frame_header, start_host, text_items, without_duration

from codemode.wire.framing import MAX_FRAME_BYTES


async def _stderr(client) -> str:
    assert client.process.stderr is not None
    return (await client.process.stderr.read()).decode()


async def test_ready_lists_requested_capabilities(raw_host):
    """connection/ready holds the requested capabilities the host supports (handshake)."""
    ready = await raw_host.hello(optional=["yield-observation", "unknown-cap"], required=["bounded-output-v1"])
    assert ready == {
        "type": "connection/ready",
        "selectedVersion": 1,
        "capabilities": ["bounded-output-v1", "yield-observation"],
    }


async def test_the_five_codex_capabilities_the_exit_notice_and_raw_texts_are_granted(raw_host):
    """The five capabilities of Codex 0.171's host, codemode's exit notice and raw texts are
    granted when offered (the session bindings only in the notebook profile)."""
    ready = await raw_host.hello()
    assert ready["capabilities"] == [
        "bounded-output-v1",
        "delegate-capacity-4096",
        "session-cell-execution-resource-limits",
        "tool-catalog-revision-v1",
        "yield-observation",
        "codemode-host-exit-notice-v1",
        "codemode-raw-text-v1",
    ]


async def test_no_compatible_version_rejects_and_exits_zero(raw_host):
    """Only unsupported versions: noCompatibleVersion, then exit 0 (handshake_no_compatible_version)."""
    rejected = await raw_host.hello(versions=[2, 3])
    assert rejected == {
        "type": "connection/rejected",
        "reason": {"type": "noCompatibleVersion", "supportedVersions": [1]},
    }
    assert await raw_host.close() == 0


async def test_missing_required_capability(raw_host):
    """An unknown required capability: missingRequiredCapability, exit 0."""
    rejected = await raw_host.hello(required=["teleportation"])
    assert rejected["reason"] == {"type": "missingRequiredCapability", "capability": "teleportation"}
    assert await raw_host.close() == 0


async def test_first_message_must_be_hello(raw_host):
    """Anything but a hello first is rejected as invalidHello."""
    raw_host.send({"type": "operation/request", "id": 1, "request": {"method": "session/shutdown", "sessionId": "x"}})
    rejected = await raw_host.recv()
    assert rejected == {
        "type": "connection/rejected",
        "reason": {"type": "invalidHello", "message": "first message must be connection/hello"},
    }


async def test_session_id_rules(host):
    """Reopen, reuse after shutdown and unknown sessions get Codex's texts; the connection stays."""
    assert await host.open("s1") == {"status": "error", "message": "code-mode session ID `s1` is already open"}
    assert (await host.request({"method": "session/shutdown", "sessionId": "s1"}))["status"] == "ok"
    assert await host.open("s1") == {"status": "error", "message": "code-mode session ID `s1` was reused"}
    unknown = await host.request(
        {"method": "session/wait", "sessionId": "ghost", "request": {"cell_id": "1", "yield_time_ms": 0}}
    )
    assert unknown == {"status": "error", "message": "unknown code-mode session ghost"}
    assert (await host.open("s2"))["status"] == "ok"
    assert text_items(await host.run("text('ok')", session_id="s2")) == ["ok"]


async def test_session_ids_numbered_per_session(host):
    """Cell ids restart at "1" in every session."""
    await host.open("s2")
    first, _ = await host.execute("1", session_id="s1")
    other, _ = await host.execute("1", session_id="s2")
    assert (first, other) == ("1", "1")


async def _expect_fatal(client, fragment: str) -> None:
    status = await asyncio.wait_for(client.process.wait(), 15)
    stderr = await _stderr(client)
    assert status == 1
    assert "Error: failed to read code-mode client message" in stderr
    assert fragment in stderr


async def test_empty_session_id_ends_connection(raw_host):
    """An empty sessionId kills the connection (session_id_empty)."""
    await raw_host.hello()
    raw_host.send({"type": "operation/request", "id": 1, "request": {"method": "session/open", "sessionId": ""}})
    await _expect_fatal(raw_host, "failed to decode code-mode IPC frame: identifier must not be empty")


async def test_unknown_field_ends_connection(raw_host):
    """deny_unknown_fields: an unexpected field is fatal with serde's wording."""
    await raw_host.hello()
    raw_host.send(
        {
            "type": "operation/request",
            "id": 1,
            "request": {"method": "session/shutdown", "sessionId": "s", "cellId": "1"},
        }
    )
    await _expect_fatal(raw_host, "unknown field `cellId`, expected `sessionId`")


async def test_malformed_json_ends_connection(raw_host):
    """A frame that is not JSON ends the connection cleanly with a message on stderr."""
    await raw_host.hello()
    raw_host.send_raw(frame_header(5) + b"{nope")
    await _expect_fatal(raw_host, "failed to decode code-mode IPC frame:")


async def test_oversized_frame_length_ends_connection(raw_host):
    """A length prefix over 64 MiB is rejected with Codex's text."""
    await raw_host.hello()
    raw_host.send_raw(frame_header(MAX_FRAME_BYTES + 1))
    await _expect_fatal(raw_host, f"code-mode IPC frame length {MAX_FRAME_BYTES + 1} exceeds 67108864 bytes")


async def test_duplicate_request_id_is_fatal(host):
    """Reusing a finished request id ends the connection with Codex's text alone (no "failed
    to read" context: Codex's host reports it on its own)."""
    host.start_request({"method": "session/open", "sessionId": "dup-a"}, request_id=500)
    await host.wait_for(lambda: any(m.get("id") == 500 for m in host.events))
    host.start_request({"method": "session/open", "sessionId": "dup-b"}, request_id=500)
    status = await asyncio.wait_for(host.process.wait(), 15)
    assert (status, await _stderr(host)) == (1, "Error: duplicate code-mode request ID RequestId(500)\n")


async def test_eof_ends_host_cleanly(host):
    """Closing stdin ends the host with status 0, also with a running cell."""
    await host.execute("while (true) {}", yield_time_ms=10)
    assert await host.close() == 0


async def test_oversized_tool_result_fails_only_that_call(host):
    """A tool argument too big for a frame rejects that call; the JS catch runs (Codex's 64 MiB frame limit)."""
    source = (
        "try { await tools.echo('x'.repeat(64 * 1024 * 1024)); } catch (e) { text(typeof e + ' ' + e); }\n"
        "text(await tools.echo('small'));"
    )
    texts = text_items(await host.run(source))
    # The delegate request is the 64 MiB argument plus 224 bytes of envelope.
    assert texts[0] == (
        "string code-mode delegate request exceeds the IPC frame limit: "
        "code-mode IPC frame length 67109088 exceeds 67108864 bytes"
    )
    assert texts[1] == "small"


async def test_delegate_answer_after_cancel_is_ignored(host):
    """A late answer to a cancelled delegate call is ignored silently (terminate_*)."""
    cell_id, _ = await host.execute("await tools.sleep({ms: 30000});", yield_time_ms=20)
    await host.wait_for(lambda: len(host.calls) == 1)
    await host.terminate(cell_id)
    host.send(
        {
            "type": "delegate/response",
            "id": host.calls[0].id,
            "result": {"status": "ok", "value": {"type": "tool/result", "result": 1}},
        }
    )
    assert text_items(await host.run("text('fine')")) == ["fine"]


async def test_too_many_active_cells():
    """The 129th live cell is refused with Codex's text; the connection stays (MAX_ACTIVE_CELLS)."""
    client = await start_host()
    try:
        await client.hello()
        await client.open("s1")
        for _ in range(128):
            await client.execute("await new Promise(() => {});", yield_time_ms=0)
        refused = await client.request(
            {
                "method": "session/execute",
                "sessionId": "s1",
                "request": {
                    "tool_call_id": "c",
                    "enabled_tools": [],
                    "source": "1",
                    "yield_time_ms": 0,
                    "max_output_tokens": None,
                },
            }
        )
        assert refused == {"status": "error", "message": "code-mode host has too many active cells"}
        outcome = await client.terminate("1")
        assert without_duration(outcome["LiveCell"]) == {"Terminated": {"cell_id": "1", "content_items": []}}
        assert text_items(await client.run("text('room again')")) == ["room again"]
    finally:
        await client.close()


@pytest.mark.unit
def test_frames_round_trip_json():
    """The stdout channel carries only frames: a sanity check of the encoder used by both sides."""
    from codemode.wire.framing import decode_frames, encode_frame

    message = {"type": "cell/closed", "sessionId": "s", "cellId": "1", "text": "\u2603"}
    frames, rest = decode_frames(encode_frame(message) + b"\x01")
    assert frames == [json.loads(json.dumps(message))] and rest == b"\x01"
