"""The rows measured through a runtime host: ours (QuickJS, as the kernel runs it) against
Codex's ``codex-code-mode-host``, both driven by the project's client (:mod:`bench.hosts`).

The sessions live on one ``asyncio.Runner`` per row, so a host started on entry keeps its
session across the row's samples; a cell's time is the client's clock from execute to Result.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from bench.hosts import (
    NO_YIELD,
    REFERENCE_MISSING,
    codemode_host,
    host_session,
    host_start,
    output_text,
    reference_host,
    timed_cell,
)
from bench.rows import Goal, Lossy, Row, Side
from codemode.tools.base import Tool

MB = 1_000_000


async def _big_text(args: dict[str, int], ctx: object) -> str:
    return "x" * args["chars"]


BIG_TEXT = Tool(
    name="big_text",
    description="Returns a string of `chars` characters x.",
    handler=_big_text,
    input_schema={"type": "object", "properties": {"chars": {"type": "integer"}}, "required": ["chars"]},
)
"""A Python tool in the client's registry (a plain handler, as the built-in ``echo`` is), so
what the tool row times is the result's way through the host, not a tool's own work."""


class HostStart(Side):
    """A sample spawns the host and times it to the answer of its first cell (:func:`host_start`).
    For our host, the notes give the floors under it, each a process of the same interpreter
    started as the host starts (``-I -S``) and timed as the samples are: bare; importing asyncio
    and json; and the least any CPython host on QuickJS does before it can answer, with no
    asyncio and no protocol at all: importing json, threading and the QuickJS binding and
    compiling the prelude into a fresh context."""

    def __init__(self, runner: asyncio.Runner, command: list[str]) -> None:
        self.runner = runner
        self.command = command
        self.floor: dict[str, list[float]] = {}
        self.floors: tuple[tuple[str, str], ...] = ()
        if command[0] == sys.executable:
            self.floors = (
                ("bare", "pass"),
                ("importing asyncio and json", "import asyncio, json"),
                ("importing json, threading and QuickJS and compiling the prelude", _least_host_code()),
            )

    def sample(self, size: int) -> float:
        seconds = self.runner.run(host_start(self.command, NO_YIELD))
        for name, code in self.floors:
            started = time.perf_counter()
            subprocess.run([sys.executable, "-I", "-S", "-c", code], check=True)
            self.floor.setdefault(name, []).append(time.perf_counter() - started)
        return seconds

    def notes(self) -> list[str]:
        if not self.floor:
            return []
        medians = "; ".join(f"{name} {statistics.median(times) * 1e3:.1f} ms" for name, times in self.floor.items())
        return [
            f"codemode: the floors of a Python host here, `python -I -S` {medians} (median of {len(self.floor['bare'])})"
        ]


def _least_host_code() -> str:
    """The ``-c`` program of the last floor: the imports and the prelude compile every QuickJS
    host of CPython needs before its first answer (the prelude is read from a file written here;
    the QuickJS binding's folder is put on the path as the host's start plan puts it)."""
    import _quickjs

    from codemode.runtime.prelude_source import prelude_source

    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False, encoding="utf-8") as file:
        file.write(prelude_source("quickjs", called=False))
    atexit.register(os.unlink, file.name)
    folder = os.path.dirname(_quickjs.__file__)
    return (
        f"import sys; sys.path.append({folder!r}); import json, threading, _quickjs; "
        f"_quickjs.Context().eval(open({file.name!r}, encoding='utf-8').read())"
    )


class HostCell(Side):
    """One session on the host of ``command`` for the whole row, with the tool ``big_text``;
    a sample is one cell ``source(size)``, whose output must be ``expected(size)`` (else
    :class:`~bench.rows.Lossy`)."""

    def __init__(
        self,
        runner: asyncio.Runner,
        command: list[str],
        source: Callable[[int], str],
        expected: Callable[[int], str],
        warmup: int,
    ) -> None:
        self.runner = runner
        self.command = command
        self.source = source
        self.expected = expected
        self.warmup = warmup
        self._stack = contextlib.AsyncExitStack()

    def __enter__(self) -> HostCell:
        session = host_session(self.command, NO_YIELD, extra_tools=[BIG_TEXT])
        self.session = self.runner.run(self._stack.enter_async_context(session))
        self.sample(self.warmup)
        return self

    def __exit__(self, *exc: object) -> None:
        self.runner.run(self._stack.aclose())

    def sample(self, size: int) -> float:
        seconds, response = self.runner.run(timed_cell(self.session, self.source(size)))
        text = output_text(response)
        want = self.expected(size)
        if text != want:
            raise Lossy(f"{self.command[0]} answered {len(text):,} characters, {len(want):,} expected (or other text)")
        return seconds


def _missing() -> str | None:
    return None if reference_host() else REFERENCE_MISSING


def _hosts(make: Callable[[asyncio.Runner, list[str]], Side]):
    """A ``Row.setup`` entering our host's side and Codex's on one ``asyncio.Runner``."""

    def setup(stack: contextlib.ExitStack, with_peer: bool) -> tuple[Side, Side | None]:
        runner = stack.enter_context(asyncio.Runner())
        ours = stack.enter_context(make(runner, codemode_host()))
        reference = reference_host()
        peer = stack.enter_context(make(runner, reference)) if with_peer and reference else None
        return ours, peer

    return setup


def _megabytes(
    name: str, path: str, ours: str, peer: str, source: Callable[[int], str], expected: Callable[[int], str]
) -> Row:
    """A row of one cell at 2 and 10 MB on a session per host (:class:`HostCell`), growth in ms/MB."""
    return Row(
        name=name,
        path=path,
        ours=ours,
        peer=f"{CODEX}, {peer}",
        goal=Goal(1.0),
        setup=_hosts(lambda runner, command: HostCell(runner, command, source, expected, warmup=MB)),
        peer_missing=_missing,
        sizes=(2 * MB, 10 * MB),
        amount=lambda n: n / MB,
        growth_unit="ms/MB",
        growth_scale=1e3,
        size_text=lambda n: f"{n / MB:g} MB",
    )


CODEX = "Codex's host"
HOST_START = Row(
    name="host-start",
    path="host start + first cell",
    ours="our host, `text(0)`",
    peer=f"{CODEX}, `text(0)`",
    goal=Goal(2.0),
    setup=_hosts(HostStart),
    peer_missing=_missing,
)
TEXT = _megabytes(
    "text-10mb",
    "text() of 10 MB",
    "`text('x'.repeat(N))`",
    "the same cell",
    lambda n: f"text('x'.repeat({n}));",
    lambda n: "x" * n,
)
TOOL = _megabytes(
    "tool-10mb",
    "tool result of 10 MB",
    "`(await tools.big_text({chars: N})).length`, a Python tool returning N characters",
    "the same cell and tool",
    lambda n: f"const r = await tools.big_text({{chars: {n}}}); text(r.length);",
    str,
)
