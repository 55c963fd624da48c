"""A tiny registry of hand-made tools for dispatcher tests."""

from __future__ import annotations

import asyncio
import re

from codemode.tools.base import Tool


class FakeRegistry:
    """``find(name, namespace)`` over a fixed list of tools."""

    def __init__(self, *tools: Tool) -> None:
        self.tools = list(tools)

    def find(self, name, namespace=None):
        for tool in self.tools:
            if tool.name == name and tool.namespace == namespace:
                return tool
        return None


def wire(name: str) -> dict:
    return {"name": name, "namespace": None}


class FakeClock:
    """A monotonic clock for ``ToolCallRuntime(clock=...)``: each reading returns :attr:`now`,
    then advances it by ``step`` seconds; tests also set :attr:`now` between events."""

    def __init__(self, now: float = 100.0, step: float = 0.0) -> None:
        self.now = now
        self.step = step

    def __call__(self) -> float:
        value = self.now
        self.now += self.step
        return value


def assert_abort_elapsed(text: str, *, shell: bool, at_least: float, at_most: float) -> None:
    """``text`` is Codex's abort text (``Wall time: X.X seconds\\naborted by user`` for shell
    tools, else ``aborted by user after X.Xs``) whose X.X lies within ``[at_least, at_most]``
    seconds (measured by the caller around the call), allowing for rounding to 0.1."""
    pattern = r"Wall time: (\d+\.\d) seconds\naborted by user" if shell else r"aborted by user after (\d+\.\d)s"
    match = re.fullmatch(pattern, text)
    assert match, text
    assert at_least - 0.05 <= float(match.group(1)) <= at_most + 0.05, (text, at_least, at_most)


def slow_handler(entered: asyncio.Event, on_cancel):
    """A tool handler that sets ``entered`` and sleeps a minute; when cancelled, it returns what
    ``on_cancel(ctx)`` returns (which may raise ``CancelledError`` again)."""

    async def handler(args, ctx):
        entered.set()
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            return on_cancel(ctx)
        return "slept"

    return handler
