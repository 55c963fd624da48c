"""The dispatcher contains every failure of tool code: any exception (``BaseException``
included) or a result JSON cannot hold fails only that call, with a sentence naming the tool
and the problem; the call's cancellation keeps its meaning (aborted); the next call works."""

from __future__ import annotations

import asyncio
import datetime

import pytest
from dispatch_helpers import FakeRegistry, wire

import codemode.tools.builtins
from codemode.cancellation import CancellationToken
from codemode.dispatch import ToolCallRuntime
from codemode.errors import ToolCallError
from codemode.tools.base import Tool
from codemode.tools.failures import MAX_JSON_DEPTH
from codemode.tools.registry import ToolRegistry

pytestmark = pytest.mark.unit


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no text")


RAISED = [
    (SystemExit(2), "tool `t` raised SystemExit: 2"),
    (SystemExit(), "tool `t` raised SystemExit."),
    (KeyboardInterrupt(), "tool `t` raised KeyboardInterrupt."),
    (GeneratorExit("closing"), "tool `t` raised GeneratorExit: closing"),
    (asyncio.CancelledError(), "tool `t` raised CancelledError although its call was not cancelled."),
    (Unprintable(), "tool `t` raised Unprintable: (its message cannot be shown: str() raised ValueError)"),
    (ValueError(""), "tool `t` raised ValueError."),
    (ToolCallError("t: the disk is full."), "t: the disk is full."),
    (ToolCallError(""), "tool `t` raised ToolCallError."),
]


async def ok(args, ctx):
    return {"ok": True}


def dispatcher_with(handler, **options) -> ToolCallRuntime:
    return ToolCallRuntime(FakeRegistry(Tool(name="t", description="", handler=handler, **options), Tool("ok", "", ok)))


async def call(dispatcher, name="t", token=None, args=None):
    return await dispatcher.handle_tool_call(
        "1", "tool-1", wire(name), "function", args or {}, token or CancellationToken()
    )


@pytest.mark.parametrize("exc, text", RAISED, ids=[type(e).__name__ + str(i) for i, (e, _) in enumerate(RAISED)])
@pytest.mark.parametrize("after_await", [False, True])
async def test_any_exception_fails_only_its_call(exc, text, after_await):
    async def handler(args, ctx):
        if after_await:
            await asyncio.sleep(0)
        raise exc

    dispatcher = dispatcher_with(handler)
    result = await call(dispatcher)
    assert (result.outcome, result.error, result.success) == ("failed", text, False)
    assert [r["outcome"] for r in dispatcher.calls_for("1")] == ["failed"]
    assert (await call(dispatcher, "ok")).value == {"ok": True}


async def test_cancellation_still_aborts_and_a_cleanup_that_raises_is_contained():
    in_handler = asyncio.Event()

    async def handler(args, ctx):
        in_handler.set()
        await ctx.cancellation.wait()
        raise KeyboardInterrupt("during cleanup")

    for waits in (False, True):
        in_handler.clear()
        dispatcher = dispatcher_with(handler, waits_for_cancellation=waits)
        token = CancellationToken()
        task = asyncio.ensure_future(call(dispatcher, token=token))
        await in_handler.wait()
        token.cancel()
        result = await task
        assert (result.outcome, result.error) == ("aborted", "aborted by user after 0.1s")
        assert (await call(dispatcher, "ok")).value == {"ok": True}


NOT_JSON = [
    ({"a": [1, {2, 3}]}, "`a[1]` is a value of type set"),
    ({"x": float("nan")}, "`x` is NaN"),
    ([float("-inf")], "`[0]` is an infinite number"),
    ({"when": datetime.date(2024, 1, 2)}, "`when` is a value of type date"),
    ({(1, 2): "pair"}, "the result has a key that is a value of type tuple"),
    ({"content-type": {"b c": object()}}, '`["content-type"]["b c"]` is a value of type object'),
    (b"bytes", "the result is a value of type bytes"),
]


@pytest.mark.parametrize("value, problem", NOT_JSON)
async def test_results_json_cannot_hold_fail_with_the_place(value, problem):
    async def handler(args, ctx):
        return value

    result = await call(dispatcher_with(handler))
    assert (result.outcome, result.error) == ("failed", f"tool `t` returned a value that is not JSON: {problem}.")


async def test_cycles_and_depth_are_reported_and_json_values_pass():
    looped: dict = {"items": []}
    looped["items"].append(looped)
    deep: list = []
    inner = deep
    for _ in range(MAX_JSON_DEPTH):
        inner.append([])
        inner = inner[0]
    fine = {"n": 1, "f": 0.5, "none": None, "t": (True, "é\ud800"), 1: "int key", None: "null key"}
    for value, expected in [
        (looped, "failed: tool `t` returned a value that is not JSON: `items[0]` contains itself."),
        (
            deep,
            f"failed: tool `t` returned a value that is not JSON: `{'[0]' * MAX_JSON_DEPTH}` is nested more "
            f"than {MAX_JSON_DEPTH} levels deep.",
        ),
        (fine, "completed"),
    ]:

        async def handler(args, ctx, value=value):
            return value

        result = await call(dispatcher_with(handler))
        assert (f"{result.outcome}: {result.error}" if result.error else result.outcome) == expected


async def test_a_builtin_whose_work_raises_system_exit_in_its_thread(monkeypatch, tmp_path):
    def exit_now(*args, **kwargs):
        raise SystemExit(5)

    registry = await ToolRegistry.create()
    dispatcher = ToolCallRuntime(registry)
    # read_file's work, run in the built-ins' thread.
    monkeypatch.setattr(codemode.tools.builtins, "read_checked", exit_now)
    result = await call(dispatcher, "read_file", args={"path": str(tmp_path / "x")})
    assert (result.outcome, result.error) == ("failed", "tool `read_file` raised SystemExit: 5")
    monkeypatch.undo()
    (tmp_path / "x").write_text("fine")
    assert (await call(dispatcher, "read_file", args={"path": str(tmp_path / "x")})).value == {"content": "fine"}


async def test_a_failing_registry_and_an_unusable_schema_fail_or_pass_cleanly():
    class BrokenRegistry:
        def find(self, name, namespace=None):
            raise KeyboardInterrupt("registry")

    result = await call(ToolCallRuntime(BrokenRegistry()))
    assert (result.outcome, result.error) == ("failed", "tool `t` raised KeyboardInterrupt: registry")

    async def echo(args, ctx):
        return args

    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    dispatcher = ToolCallRuntime(FakeRegistry(Tool(name="t", description="", handler=echo, input_schema=schema)))
    assert (await call(dispatcher, args={"a": 1})).value == {"a": 1}
