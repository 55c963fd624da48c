"""Async Python tools that block their event loop, one that keeps a loop-bound client between
calls, and well-behaved ones, for tests/codemode/test_python_tool_loops*.py (loaded with
``[python_tools] modules = ["cm_async_tools"]``).

Each blocking tool sets an event once it runs and ends when the test releases it
(:func:`release_all`), so that no thread outlives the tests.
"""

from __future__ import annotations

import asyncio
import threading

import codemode

SPINNING = threading.Event()
"""Set by ``spin`` once it runs."""

SPUN = threading.Event()
"""Set by ``spin`` when it returns."""

STOP = threading.Event()
"""``spin`` spins until this is set."""

NAPPING = threading.Event()
"""Set by ``nap`` once it runs."""

WAKE = threading.Event()
"""``nap`` blocks its loop until this is set."""

WAITING = threading.Event()
"""Set by ``wait_forever`` once it runs."""

CANCELLED = threading.Event()
"""Set by ``wait_forever`` when its cancellation reaches it."""


def release_all() -> None:
    """Let ``spin`` and ``nap`` return."""
    STOP.set()
    WAKE.set()


def reset() -> None:
    """Clear every event for the next test."""
    for event in (SPINNING, SPUN, STOP, NAPPING, WAKE, WAITING, CANCELLED):
        event.clear()


@codemode.tool
async def spin() -> str:
    """An async tool that never awaits: it spins until the test sets STOP."""
    SPINNING.set()
    while not STOP.is_set():
        pass
    SPUN.set()
    return "stopped"


@codemode.tool
async def nap() -> str:
    """Blocks the loop it runs on (a blocking wait instead of an await) until WAKE is set."""
    NAPPING.set()
    WAKE.wait()
    return "done"


@codemode.tool
async def wait_forever() -> str:
    """Awaits for ever; records when its cancellation reaches it."""
    WAITING.set()
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        CANCELLED.set()
        raise
    return "never"


@codemode.tool
async def greet(name: str) -> str:
    """Prints a line around an await and returns a greeting."""
    print(f"greeting {name}")
    await asyncio.sleep(0)
    return f"hello {name}"


class Client:
    """Stands in for an aiohttp or httpx client made on first use: a queue served by a task on
    the loop it was made on. On another loop its requests are never answered."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[tuple[int, asyncio.Future[int]]] = asyncio.Queue()
        self.worker = asyncio.get_running_loop().create_task(self._serve())
        self.served = 0

    async def _serve(self) -> None:
        while True:
            n, reply = await self.queue.get()
            self.served += 1
            reply.set_result(2 * n)

    async def request(self, n: int) -> int:
        reply: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((n, reply))
        return await asyncio.wait_for(reply, 10)


CLIENT: list[Client] = []


@codemode.tool
async def client_double(n: int) -> dict:
    """Doubles ``n`` through a client made on the first call and kept for the next ones."""
    if not CLIENT:
        CLIENT.append(Client())
    client = CLIENT[0]
    return {"doubled": await client.request(n), "served": client.served}


@codemode.tool
async def exit_in_background() -> str:
    """Starts a task of its own that raises SystemExit on the loop, and returns at once."""

    async def leave() -> None:
        raise SystemExit(9)

    task = asyncio.get_running_loop().create_task(leave())
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    if not task.done():
        return "pending"
    # Retrieved, so that the task's finalizer logs nothing: Python 3.11 formats that traceback
    # with ast.parse, which fails when the garbage collector runs it inside another ast.parse.
    return "started" if isinstance(task.exception(), SystemExit) else "not stopped"
