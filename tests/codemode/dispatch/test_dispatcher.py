"""Dispatcher behaviour beyond the seed tests: gate overlap, abort texts, marshalling,
validation, listener events, and a property test of cancellation at random points."""

from __future__ import annotations

import asyncio
import time

import pytest
from dispatch_helpers import FakeClock, FakeRegistry, slow_handler, wire
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode.cancellation import CancellationToken
from codemode.dispatch import ToolCallRuntime, abort_message
from codemode.tools.base import Tool


def timed_tool(name, spans, *, parallel, delay=0.05):
    async def handler(args, ctx):
        start = time.monotonic()
        await asyncio.sleep(delay)
        spans.append((name, start, time.monotonic()))
        return {"ok": True}

    return Tool(name=name, description="", handler=handler, supports_parallel=parallel)


def overlaps(a, b):
    return a[1] < b[2] and b[1] < a[2]


async def run_calls(dispatcher, names, cell="1"):
    return await asyncio.gather(
        *(
            dispatcher.handle_tool_call(cell, f"tool-{i}", wire(n), "function", {}, CancellationToken())
            for i, n in enumerate(names)
        )
    )


@pytest.mark.unit
async def test_parallel_calls_overlap():
    spans = []
    dispatcher = ToolCallRuntime(FakeRegistry(timed_tool("p", spans, parallel=True)))
    await run_calls(dispatcher, ["p"] * 4)
    assert all(overlaps(a, b) for a in spans for b in spans if a is not b)


@pytest.mark.unit
async def test_exclusive_calls_never_overlap_any_call_of_the_cell():
    spans = []
    dispatcher = ToolCallRuntime(
        FakeRegistry(timed_tool("p", spans, parallel=True), timed_tool("x", spans, parallel=False))
    )
    await run_calls(dispatcher, ["p", "x", "p", "x", "p"])
    for a in spans:
        for b in spans:
            if a is not b and "x" in (a[0], b[0]):
                assert not overlaps(a, b), (a, b)


@pytest.mark.unit
async def test_gates_are_per_cell():
    spans = []
    dispatcher = ToolCallRuntime(FakeRegistry(timed_tool("x", spans, parallel=False)))
    await asyncio.gather(run_calls(dispatcher, ["x"], "1"), run_calls(dispatcher, ["x"], "2"))
    assert overlaps(spans[0], spans[1])


@pytest.mark.unit
def test_abort_texts():
    assert abort_message("sleep", 0.0) == "aborted by user after 0.1s"
    assert abort_message("sleep", 2.26) == "aborted by user after 2.3s"
    assert abort_message("exec_command", 1.04) == "Wall time: 1.0 seconds\naborted by user"


@pytest.mark.unit
async def test_non_waiting_tool_is_aborted_at_once_and_sees_the_cancellation():
    seen = []
    entered = asyncio.Event()

    def cancelled(ctx):
        seen.append(ctx.cancellation.cancelled)
        raise asyncio.CancelledError

    handler = slow_handler(entered, cancelled)

    clock = FakeClock(100.0)
    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="slow", description="", handler=handler)), clock=clock)
    token = CancellationToken()
    dispatcher.add_listener(lambda event: event.kind == "started" and setattr(clock, "now", 102.26))
    task = asyncio.ensure_future(dispatcher.handle_tool_call("1", "tool-1", wire("slow"), "function", {}, token))
    await entered.wait()
    token.cancel()
    result = await asyncio.wait_for(task, 1)
    assert (result.outcome, result.error) == ("aborted", "aborted by user after 2.3s")
    assert seen == [True]


def echo_and_raw_dispatcher() -> ToolCallRuntime:
    """A dispatcher with a function tool ``echo`` and a freeform tool ``raw``, both echoing."""

    async def echo(args, ctx):
        return args

    return ToolCallRuntime(
        FakeRegistry(
            Tool(name="echo", description="", handler=echo),
            Tool(name="raw", description="", handler=echo, kind="freeform"),
        )
    )


@pytest.mark.unit
@pytest.mark.parametrize(
    "tool_name, kind, raw, message",
    [
        ("missing", "function", {}, "unsupported call: missing"),
        ("missing", "freeform", "x", "unsupported custom tool call: missing"),
        ("exec", "function", {}, "exec cannot invoke itself"),
        ("echo", "function", [1], "tool `echo` expects a JSON object for arguments"),
        ("raw", "freeform", {"a": 1}, "tool `raw` expects a string input"),
    ],
)
async def test_marshalling_errors(tool_name, kind, raw, message):
    dispatcher = echo_and_raw_dispatcher()
    result = await dispatcher.handle_tool_call("1", "tool-1", wire(tool_name), kind, raw, CancellationToken())
    assert (result.outcome, result.error) == ("failed", message)


@pytest.mark.unit
async def test_missing_input_becomes_empty_object_and_freeform_passes_strings():
    dispatcher = echo_and_raw_dispatcher()
    assert (
        await dispatcher.handle_tool_call("1", "t", wire("echo"), "function", None, CancellationToken())
    ).value == {}
    assert (
        await dispatcher.handle_tool_call("1", "t", wire("raw"), "freeform", "patch", CancellationToken())
    ).value == "patch"


@pytest.mark.unit
async def test_a_tool_with_any_input_takes_any_value_checked_by_its_schema():
    async def echo(args, ctx):
        return args

    scalar = Tool(
        name="scalar", description="", handler=echo, any_input=True, input_schema={"type": ["string", "null"]}
    )
    dispatcher = ToolCallRuntime(FakeRegistry(scalar))

    def send(raw):
        return dispatcher.handle_tool_call("1", "t", wire("scalar"), "function", raw, CancellationToken())

    assert [(await send(raw)).value for raw in ("x", None)] == ["x", None]
    refused = await send([1])
    assert (refused.outcome, refused.error) == (
        "failed",
        'tool `scalar` received invalid arguments at the top level: [1] is not of type "string", "null" '
        "(schema rule `type`).",
    )


@pytest.mark.unit
async def test_schema_violation_names_field_and_rule_and_never_runs_the_handler():
    ran = []

    async def handler(args, ctx):
        ran.append(args)

    schema = {"type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}, "required": ["ms"]}
    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="sleep", description="", handler=handler, input_schema=schema)))
    bad_type = await dispatcher.handle_tool_call("1", "t", wire("sleep"), "function", {"ms": "x"}, CancellationToken())
    assert (
        bad_type.error
        == 'tool `sleep` received invalid arguments at `ms`: "x" is not of type "integer" (schema rule `type`).'
    )
    missing = await dispatcher.handle_tool_call("1", "t", wire("sleep"), "function", {}, CancellationToken())
    assert missing.error == (
        'tool `sleep` received invalid arguments at the top level: "ms" is a required property (schema rule `required`).'
    )
    negative = await dispatcher.handle_tool_call("1", "t", wire("sleep"), "function", {"ms": -1}, CancellationToken())
    assert negative.error == (
        "tool `sleep` received invalid arguments at `ms`: -1 is less than the minimum of 0 (schema rule `minimum`)."
    )
    assert ran == []


@pytest.mark.unit
@pytest.mark.parametrize(
    "args, where, problem",
    [
        ({"items": [{"name": "a"}, {"name": "b"}, {"name": 3}]}, "`items[2].name`", '3 is not of type "string"'),
        ({"items": [], "headers": {"content-type": 7}}, '`headers["content-type"]`', '7 is not of type "string"'),
        ({"items": [{"name": "a", "tags": ["x", 1]}]}, "`items[0].tags[1]`", '1 is not of type "string"'),
    ],
)
async def test_a_nested_field_is_named_by_its_path(args, where, problem):
    async def handler(args, ctx):
        return args

    item = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
    }
    schema = {
        "type": "object",
        "properties": {
            "items": {"type": "array", "items": item},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        },
    }
    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="t", description="", handler=handler, input_schema=schema)))
    result = await dispatcher.handle_tool_call("1", "c", wire("t"), "function", args, CancellationToken())
    assert (result.outcome, result.error) == (
        "failed",
        f"tool `t` received invalid arguments at {where}: {problem} (schema rule `type`).",
    )


@pytest.mark.unit
async def test_tool_exception_rejects_with_its_message_and_events_flow():
    async def boom(args, ctx):
        ctx.report_progress(1, 2, "half")
        raise ValueError("disk on fire")

    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="boom", description="", handler=boom)))
    events = []
    dispatcher.add_listener(events.append)
    result = await dispatcher.handle_tool_call("7", "tool-1", wire("boom"), "function", {}, CancellationToken())
    assert (result.outcome, result.error) == ("failed", "tool `boom` raised ValueError: disk on fire")
    assert [e.kind for e in events] == ["started", "progress", "finished"]
    assert (events[1].progress, events[1].total, events[1].message) == (1, 2, "half")
    assert events[2].outcome == "failed"


@pytest.mark.unit
async def test_mcp_style_error_result_completes_without_success():
    async def handler(args, ctx):
        return {"content": [], "isError": True}

    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="m", description="", handler=handler)))
    result = await dispatcher.handle_tool_call("1", "t", wire("m"), "function", {}, CancellationToken())
    assert result.outcome == "completed" and result.success is False
    assert dispatcher.calls_for("1")[0]["success"] is False


# -- property test: cancel at random points --------------------------------------------------

POINTS = ["before_gate", "in_handler", "in_cleanup", "after_finish"]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(point=st.sampled_from(POINTS), waits=st.booleans(), shell=st.booleans(), fails=st.booleans())
def test_cancellation_at_any_point_gives_exactly_one_outcome(point, waits, shell, fails):
    asyncio.run(_cancel_scenario(point, waits, shell, fails))


async def _cancel_scenario(point, waits, shell, fails):
    loop = asyncio.get_running_loop()
    in_handler = loop.create_future()
    in_cleanup = loop.create_future()
    release = asyncio.Event()
    name = "exec_command" if shell else "tool"

    async def handler(args, ctx):
        in_handler.set_result(None)
        if point == "after_finish":
            if fails:
                raise RuntimeError("failed on purpose")
            return "real result"
        await ctx.cancellation.wait()
        in_cleanup.set_result(None)
        await release.wait()
        return "late result"

    tool = Tool(name=name, description="", handler=handler, waits_for_cancellation=waits)
    clock = FakeClock(50.0)
    dispatcher = ToolCallRuntime(FakeRegistry(tool), clock=clock)
    dispatcher.add_listener(lambda e: e.kind == "started" and setattr(clock, "now", 51.34))
    finished = []
    dispatcher.add_listener(lambda e: e.kind == "finished" and finished.append(e.outcome))
    gate = dispatcher._gate("1")
    if point == "before_gate":
        await gate.acquire(True)
    token = CancellationToken()
    task = asyncio.ensure_future(dispatcher.handle_tool_call("1", "tool-1", wire(name), "function", {}, token))
    if point == "before_gate":
        await asyncio.sleep(0)
        token.cancel()
    elif point == "in_handler":
        await in_handler
        token.cancel()
        await asyncio.sleep(0)
        release.set()
    elif point == "in_cleanup":
        await in_handler
        token.cancel()
        if waits:
            await in_cleanup
        release.set()
    else:
        while not finished:
            await asyncio.sleep(0)
        token.cancel()
    result = await asyncio.wait_for(task, 2)
    if point == "before_gate":
        gate.release(True)
    await asyncio.sleep(0)
    assert len(finished) == 1
    assert [r["outcome"] for r in dispatcher.calls_for("1")] == finished
    if point == "after_finish":
        expected = "failed" if fails else "completed"
        assert result.outcome == finished[0] == expected
        if fails:
            assert result.error == f"tool `{name}` raised RuntimeError: failed on purpose"
        else:
            assert result.value == "real result"
    else:
        assert result.outcome == finished[0] == "aborted"
        # 1.34 s from the call's arrival to its cancellation
        assert result.error == ("Wall time: 1.3 seconds\naborted by user" if shell else "aborted by user after 1.3s")
