"""Recording nested tool calls and answering them from the recording (in process).

The registry and dispatcher are the real ones; tools are Python tools given as ``extra_tools``
and the built-in ``echo``. A replay configured with an MCP server and a Python tool module
starts neither: the unit guard fails a test that starts a process, and the socket guard here
fails one that opens a connection.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config, McpServerConfig, parse_config
from codemode.config.recording import RecordingSettings, effective_recording
from codemode.dispatch import ToolCallRuntime
from codemode.errors import ToolCallError
from codemode.replay.recording import SeedError, read_recording, write_recording
from codemode.tools.base import Tool
from codemode.tools.registry import ToolRegistry

pytestmark = pytest.mark.unit


@pytest.fixture(autouse=True)
def _no_recording_env(monkeypatch):
    for name in ("CODEMODE_RECORDING", "CODEMODE_RECORDING_PATH", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)


def counting_tools() -> list[Tool]:
    """``count`` returns 1, 2, 3, ... at each call; ``fail`` raises ``ValueError('no <x>')``."""
    calls = {"n": 0}

    async def count(args, ctx):
        calls["n"] += 1
        return {"n": calls["n"], "label": args.get("label")}

    async def fail(args, ctx):
        raise ValueError(f"no {args.get('x')}")

    schema = {"type": "object", "properties": {"label": {"type": "string"}}}
    return [
        Tool("count", "Counts its calls.", count, input_schema=schema, origin="python:test"),
        Tool("fail", "Always fails.", fail, origin="python:test"),
    ]


async def run(dispatcher: ToolCallRuntime, tool: str, args) -> tuple[str, object]:
    result = await dispatcher.handle_tool_call("1", "tool-1", tool, "function", args, CancellationToken())
    return (result.outcome, result.value if result.outcome == "completed" else result.error)


async def session(path: Path, mode: str, **config) -> tuple[ToolRegistry, ToolCallRuntime]:
    registry = await ToolRegistry.create(
        Config(recording=RecordingSettings(mode, path), **config),
        extra_tools=counting_tools() if mode != "replay" else None,
    )
    return registry, ToolCallRuntime(registry, recorder=registry.recorder)


CALLS = [
    ("count", {"label": "a"}),
    ("count", {"label": "b"}),
    ("count", {"label": "a"}),
    ("fail", {"x": 1}),
    ("echo", {"message": "hi"}),
]


async def record(path: Path) -> list[tuple[str, object]]:
    registry, dispatcher = await session(path, "record")
    try:
        return [await run(dispatcher, tool, args) for tool, args in CALLS]
    finally:
        await registry.aclose()


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a replay opened a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


async def test_a_replay_answers_as_the_live_tools_did_with_no_server_module_or_network(tmp_path, no_network):
    path = tmp_path / "run.recording.jsonl"
    live = await record(path)
    assert live == [
        ("completed", {"n": 1, "label": "a"}),
        ("completed", {"n": 2, "label": "b"}),
        ("completed", {"n": 3, "label": "a"}),
        ("failed", "tool `fail` raised ValueError: no 1"),
        ("completed", {"message": "hi"}),
    ]
    # The MCP server's command and the tool module do not exist: starting or importing either
    # would fail (and the unit guard fails a test that starts a process).
    server = McpServerConfig(name="gone", command=str(tmp_path / "no-such-server"))
    registry, dispatcher = await session(
        path, "replay", mcp_servers={"gone": server}, python_modules=["no_such_tool_module"]
    )
    try:
        assert registry.mcp_clients == {}
        assert registry.errors == []
        assert sorted(t.raw_name for t in registry.tools) == sorted(
            t.raw_name for t in (await ToolRegistry.create()).tools + counting_tools()
        )
        replayed = [await run(dispatcher, tool, args) for tool, args in CALLS]
    finally:
        await registry.aclose()
    assert replayed == live
    assert registry.recording is not None
    assert registry.recording.summary() == (
        f"Recording: replay, from {path}: 5 calls recorded, 5 answered, 0 refused (not recorded)."
    )


async def test_the_recording_holds_a_header_the_tools_and_one_line_per_call(tmp_path):
    path = tmp_path / "r.jsonl"
    await record(path)
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert set(lines[0]) == {"codemode_recording", "created", "codemode"}
    assert lines[0]["codemode_recording"] == 1
    assert lines[1]["type"] == "tools"
    count = next(t for t in lines[1]["tools"] if t["name"] == "count")
    assert count == {
        "name": "count",
        "namespace": None,
        "namespace_description": None,
        "description": "Counts its calls.",
        "kind": "function",
        "input_schema": {"type": "object", "properties": {"label": {"type": "string"}}},
        "output_schema": None,
        "supports_parallel": True,
        "any_input": False,
        "origin": "python:test",
    }
    calls = lines[2:]
    assert len(calls) == 5 and all(
        set(c)
        == {"type", "seq", "tool", "arguments", "outcome", "cell", "call_id", "started", "duration_ms"}
        | ({"result"} if c["outcome"] == "completed" else {"error"})
        for c in calls
    )
    assert [(c["seq"], c["tool"], c["arguments"], c.get("result", c.get("error"))) for c in calls] == [
        (1, "count", {"label": "a"}, {"n": 1, "label": "a"}),
        (2, "count", {"label": "b"}, {"n": 2, "label": "b"}),
        (3, "count", {"label": "a"}, {"n": 3, "label": "a"}),
        (4, "fail", {"x": 1}, "tool `fail` raised ValueError: no 1"),
        (5, "echo", {"message": "hi"}, {"message": "hi"}),
    ]
    assert calls[0]["cell"] == "1" and calls[0]["call_id"] == "tool-1"


async def test_equal_calls_get_the_recorded_answers_in_order_and_key_order_does_not_matter(tmp_path):
    path = tmp_path / "r.jsonl"
    write_recording(
        path,
        [
            ("count", {"label": "a", "k": 1}, {"n": 1}),
            ("count", {"label": "b"}, {"n": 2}),
            ("count", {"k": 1, "label": "a"}, {"n": 3}),
        ],
    )
    registry, dispatcher = await session(path, "replay")
    assert await run(dispatcher, "count", {"label": "b"}) == ("completed", {"n": 2})
    assert await run(dispatcher, "count", {"k": 1, "label": "a"}) == ("completed", {"n": 1})
    assert await run(dispatcher, "count", {"label": "a", "k": 1}) == ("completed", {"n": 3})
    # A third equal call: every answer was used.
    assert await run(dispatcher, "count", {"label": "a", "k": 1}) == (
        "failed",
        f'replay: {path} holds no answer left for tools.count({{"k":1,"label":"a"}}): it was recorded 2 times '
        "and every answer was used by an earlier call. Calls are not sent to live tools in replay mode.",
    )
    # The failed call did not stop the next one.
    assert await run(dispatcher, "count", {"label": "b"}) == (
        "failed",
        f'replay: {path} holds no answer left for tools.count({{"label":"b"}}): it was recorded once '
        "and every answer was used by an earlier call. Calls are not sent to live tools in replay mode.",
    )


async def test_a_call_not_recorded_names_the_nearest_recorded_call(tmp_path):
    path = tmp_path / "r.jsonl"
    await record(path)
    registry, dispatcher = await session(path, "replay")
    assert await run(dispatcher, "count", {"label": "c"}) == (
        "failed",
        f'replay: {path} holds no answer for tools.count({{"label":"c"}}); the nearest recorded call is '
        'tools.count({"label":"a"}) (line 3). Calls are not sent to live tools in replay mode.',
    )
    # A tool the recording offers but never saw called: the closest tool name's call.
    assert await run(dispatcher, "sleep", {"ms": 1}) == (
        "failed",
        f'replay: {path} holds no answer for tools.sleep({{"ms":1}}); the nearest recorded call is '
        'tools.fail({"x":1}) (line 6). Calls are not sent to live tools in replay mode.',
    )
    assert registry.recording is not None and registry.recording.player is not None
    assert registry.recording.player.unmatched == 2


async def test_a_seeded_recording_offers_its_tools_and_answers_errors(tmp_path):
    path = tmp_path / "seed.jsonl"
    write_recording(
        path,
        [
            ("mcp__fs__read_file", {"path": "/a"}, {"content": [{"type": "text", "text": "A"}]}),
            ("exec_command", {"cmd": "false"}, SeedError("exit 1")),
        ],
    )
    registry, dispatcher = await session(path, "replay")
    assert [t.js_name for t in registry.tools] == ["exec_command", "mcp__fs__read_file"]
    assert await run(dispatcher, "mcp__fs__read_file", {"path": "/a"}) == (
        "completed",
        {"content": [{"type": "text", "text": "A"}]},
    )
    assert await run(dispatcher, "exec_command", {"cmd": "false"}) == ("failed", "exit 1")
    assert [c.line for c in read_recording(path).calls] == [2, 3]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            '{"codemode_recording":1}\n{"type":"call","seq":1,"tool":"echo","arguments":{},"outcome":"completed","result":1}\nnot json\n{"type":"call","seq":2,"tool":"echo","arguments":{},"outcome":"completed","result":2}\n',
            "line 3: is not JSON (Expecting value: line 1 column 1 (char 0))",
        ),
        (
            '{"codemode_recording":1}\n{"type":"call","seq":1,"tool":"echo","arguments":{},"outcome":"completed","result":1}\n{"type":"call","seq":2,"tool":"ec',
            "line 3: is cut short (no newline ends it and it is not complete JSON): the run that wrote it stopped "
            "while writing; delete that line to replay the rest",
        ),
        ('{"type":"call"}\n', 'line 1: is not a recording header (a header is {"codemode_recording": 1, ...})'),
        ('{"codemode_recording":2}\n', "line 1: is a recording of format 2; this codemode reads format 1"),
        ("", "line 1: the file is empty; a recording starts with its header line"),
        (
            '{"codemode_recording":1}\n{"type":"call","seq":1,"tool":"echo","arguments":{},"outcome":"done"}\n',
            'line 2: a call needs `outcome`, "completed" or "failed" (not \'done\')',
        ),
        (
            '{"codemode_recording":1}\n{"type":"note"}\n',
            'line 2: has type \'note\'; a line after the header is a "tools" or a "call" line',
        ),
        ('{"codemode_recording":1}\n[1]\n', "line 2: is not a JSON object"),
    ],
)
async def test_a_corrupt_recording_is_named_at_start_and_offers_no_tool(tmp_path, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    registry, _ = await session(path, "replay")
    assert registry.tools == []
    assert registry.errors == [f"{path}: {problem}. Replay mode offers no tools until the recording is fixed."]


async def test_a_missing_recording_in_replay_mode_offers_no_tool(tmp_path):
    path = tmp_path / "none.jsonl"
    registry, _ = await session(path, "replay")
    assert registry.tools == []
    assert registry.errors == [
        f"{path}: cannot be read (No such file or directory). Replay mode offers no tools until the recording is fixed."
    ]


async def test_recording_replaces_the_previous_recording(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text("old\n")
    registry, dispatcher = await session(path, "record")
    await run(dispatcher, "echo", {"message": "x"})
    await registry.aclose()
    assert [c.result for c in read_recording(path).calls] == [{"message": "x"}]
    assert list(tmp_path.iterdir()) == [path]
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_recording_section_and_the_environment(tmp_path):
    config = parse_config({"recording": {"mode": "replay", "path": "sub/r.jsonl"}}, "c.toml", tmp_path)
    assert config.recording == RecordingSettings("replay", tmp_path / "sub" / "r.jsonl")
    assert config.errors == []
    bad = parse_config({"recording": {"mode": "play", "file": "x"}}, "c.toml", tmp_path)
    assert bad.recording == RecordingSettings("off", None)
    assert bad.errors == [
        'c.toml: recording.mode: must be "off", "record" or "replay", not a string (\'play\'); "off" is used.',
        'c.toml: recording.file: is not a known setting (the section has "mode" and "path") and was ignored.',
    ]
    errors: list[str] = []
    env = {"CODEMODE_RECORDING": "record", "CODEMODE_RECORDING_PATH": "ci.jsonl"}
    assert effective_recording(config.recording, errors, tmp_path, env) == RecordingSettings(
        "record", tmp_path / "ci.jsonl"
    )
    assert effective_recording(RecordingSettings(), errors, tmp_path, {}) == RecordingSettings(
        "off", tmp_path / "codemode.recording.jsonl"
    )
    notebook = {"JPY_SESSION_NAME": "nb/Analysis.ipynb", "CODEMODE_RECORDING": "replay"}
    assert effective_recording(RecordingSettings(), errors, tmp_path, notebook) == RecordingSettings(
        "replay", tmp_path / "Analysis.recording.jsonl"
    )
    absolute = {"JPY_SESSION_NAME": "/srv/nb/Analysis.ipynb"}
    assert effective_recording(RecordingSettings(), errors, tmp_path, absolute).path == Path(
        "/srv/nb/Analysis.recording.jsonl"
    )
    assert errors == []
    assert (
        effective_recording(RecordingSettings("replay"), errors, tmp_path, {"CODEMODE_RECORDING": "on"}).mode
        == "replay"
    )
    assert errors == ['CODEMODE_RECORDING=\'on\' is not "off", "record" or "replay"; recording.mode "replay" is used.']


async def test_the_player_refuses_with_a_tool_call_error_when_the_recording_has_no_calls(tmp_path):
    path = tmp_path / "empty.jsonl"
    write_recording(path, [], tools=[{"name": "count"}])
    registry, dispatcher = await session(path, "replay")
    assert await run(dispatcher, "count", {}) == (
        "failed",
        f"replay: {path} holds no answer for tools.count({{}}); the recording holds no calls. "
        "Calls are not sent to live tools in replay mode.",
    )
    assert issubclass(ToolCallError, Exception)


async def test_what_a_tool_printed_is_printed_again_in_a_replay(tmp_path):
    async def chatty(args, ctx):
        ctx.report_output("stdout", "working\n")
        ctx.report_output("stderr", "careful\n")
        return "done"

    def printed(dispatcher: ToolCallRuntime) -> list[tuple[str | None, str | None]]:
        seen: list[tuple[str | None, str | None]] = []
        dispatcher.add_listener(lambda e: seen.append((e.stream, e.text)) if e.kind == "output" else None)
        return seen

    path = tmp_path / "r.jsonl"
    registry = await ToolRegistry.create(
        Config(recording=RecordingSettings("record", path)), extra_tools=[Tool("chatty", "Prints.", chatty)]
    )
    dispatcher = ToolCallRuntime(registry, recorder=registry.recorder)
    live = printed(dispatcher)
    assert await run(dispatcher, "chatty", {}) == ("completed", "done")
    await registry.aclose()
    assert json.loads(path.read_text().splitlines()[-1])["output"] == [["stdout", "working\n"], ["stderr", "careful\n"]]
    registry, dispatcher = await session(path, "replay")
    replayed = printed(dispatcher)
    assert await run(dispatcher, "chatty", {}) == ("completed", "done")
    assert replayed == live == [("stdout", "working\n"), ("stderr", "careful\n")]


async def test_a_lone_surrogate_and_other_text_round_trip(tmp_path):
    path = tmp_path / "r.jsonl"
    registry, dispatcher = await session(path, "record")
    assert await run(dispatcher, "echo", {"message": "\ud800 é"}) == ("completed", {"message": "\ud800 é"})
    assert await run(dispatcher, "echo", {"message": "日本"}) == ("completed", {"message": "日本"})
    await registry.aclose()
    assert registry.recording is not None and registry.recording.summary() == (
        f"Recording: record, to {path}: 2 calls recorded."
    )
    assert "日本" in path.read_text()
    registry, dispatcher = await session(path, "replay")
    assert await run(dispatcher, "echo", {"message": "\ud800 é"}) == ("completed", {"message": "\ud800 é"})
    assert await run(dispatcher, "echo", {"message": "日本"}) == ("completed", {"message": "日本"})
