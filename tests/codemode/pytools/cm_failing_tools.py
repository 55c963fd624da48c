"""Python tools that fail in every way tool code can, and one that blocks until released.

For tests/codemode/test_python_tool_failures.py and test_python_tool_threads.py (loaded with
``[python_tools] modules = ["cm_failing_tools"]``).
"""

from __future__ import annotations

import asyncio
import threading

import codemode

GATES: dict[str, threading.Event] = {}
"""``blocker`` calls by key: each waits on its event (created on first use)."""

ENTERED: dict[str, threading.Event] = {}
"""Set by ``blocker`` once its call is running in its thread."""


def gate(key: str) -> threading.Event:
    return GATES.setdefault(key, threading.Event())


def entered(key: str) -> threading.Event:
    return ENTERED.setdefault(key, threading.Event())


def release_all() -> None:
    """Let every ``blocker`` call, past and future, return."""
    for event in list(GATES.values()):
        event.set()


@codemode.tool
def exit_sync(code: int = 3) -> None:
    """Calls sys.exit in its thread."""
    raise SystemExit(code)


@codemode.tool
def interrupt_sync() -> None:
    """Raises KeyboardInterrupt in its thread."""
    raise KeyboardInterrupt


@codemode.tool
async def exit_async(code: int = 4) -> None:
    """Calls sys.exit on the event loop."""
    await asyncio.sleep(0)
    raise SystemExit(code)


@codemode.tool
async def interrupt_async() -> None:
    """Raises KeyboardInterrupt on the event loop."""
    await asyncio.sleep(0)
    raise KeyboardInterrupt("stop")


@codemode.tool
async def generator_exit() -> None:
    """Raises GeneratorExit on the event loop."""
    await asyncio.sleep(0)
    raise GeneratorExit


@codemode.tool
async def cancelled_itself() -> None:
    """Raises CancelledError although nobody cancelled its call."""
    await asyncio.sleep(0)
    raise asyncio.CancelledError


@codemode.tool
def stop_sync() -> None:
    """Raises StopIteration in its thread (which a Future refuses as an exception)."""
    raise StopIteration("no more")


@codemode.tool
async def stop_async() -> None:
    """Raises StopIteration in its coroutine (which Python turns into RuntimeError)."""
    await asyncio.sleep(0)
    raise StopIteration


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text for you")


@codemode.tool
def unprintable() -> None:
    """Raises an exception whose str() raises."""
    raise Unprintable


@codemode.tool
def opaque() -> object:
    """Returns an object JSON cannot hold."""
    return object()


@codemode.tool
def not_a_number() -> dict:
    """Returns NaN inside a list."""
    return {"values": [1.0, float("nan")]}


@codemode.tool
def blocker(key: str) -> str:
    """Blocks its thread until the test releases ``key``."""
    entered(key).set()
    gate(key).wait()
    return key


@codemode.tool
def double(n: int) -> int:
    """A sync tool that answers at once."""
    return 2 * n
