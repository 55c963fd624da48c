"""Driving a runtime host (ours or Codex's) through the project's client, for benchmarks.

Every host is driven by :class:`codemode.session.CodeModeSession`, the client the kernel uses,
with the built-in tools (and any extra Python tools) in its registry. Codex's host is the
``codex-code-mode-host`` program of the npm package ``@openai/codex@0.171.0``, named by
``$CODEMODE_REFERENCE_HOST``.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator

from codemode.config import SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.host import default_host_command
from codemode.responses import RuntimeResponse
from codemode.session import CodeModeSession
from codemode.tools.base import Tool
from codemode.tools.registry import ToolRegistry

REFERENCE_VARIABLE = "CODEMODE_REFERENCE_HOST"
REFERENCE_MISSING = f"${REFERENCE_VARIABLE} is not set (the codex-code-mode-host program of npm @openai/codex@0.171.0)"
NO_YIELD = SessionDefaults(yield_time_ms=600_000)
"""Session defaults under which no benchmark cell yields (a yield would end its timing early)."""


def codemode_host(engine: str = "quickjs") -> list[str]:
    """Our host's command, as the kernel runs it (``codemode.host.default_host_command``)."""
    return default_host_command(engine)


def reference_host() -> list[str] | None:
    """Codex's host's command from ``$CODEMODE_REFERENCE_HOST``, or None when it is not set."""
    binary = os.environ.get(REFERENCE_VARIABLE)
    return [binary, "--listen", "stdio"] if binary else None


async def timed_cell(session: CodeModeSession, source: str) -> tuple[float, RuntimeResponse]:
    """Seconds from ``session.execute(source)`` to the cell's ``Result``, and that response;
    raises ``RuntimeError`` for any other outcome (a yield, a terminate, an error text)."""
    started = time.perf_counter()
    cell = await session.execute(source)
    response = await cell.initial_response
    elapsed = time.perf_counter() - started
    if response.kind != "Result" or response.error_text:
        raise RuntimeError(f"{source[:80]!r} gave {response.kind}: {str(response.error_text)[:400]}")
    return elapsed, response


async def run_cell(session: CodeModeSession, source: str) -> float:
    """Seconds from ``session.execute(source)`` to the cell's ``Result`` (see :func:`timed_cell`)."""
    return (await timed_cell(session, source))[0]


def output_text(response: RuntimeResponse) -> str:
    """The text of a response's ``input_text`` items, joined."""
    return "".join(item.get("text", "") for item in response.content_items if item.get("type") == "input_text")


@contextlib.asynccontextmanager
async def host_session(
    command: list[str], defaults: SessionDefaults | None = None, extra_tools: list[Tool] | None = None
) -> AsyncIterator[CodeModeSession]:
    """A ``CodeModeSession`` with the built-in tools and ``extra_tools`` on the host whose full
    argv is ``command`` (``[..., "--listen", "stdio"]``); the host is spawned by the first cell
    and shut down on exit."""
    registry = await ToolRegistry.create(extra_tools=extra_tools)
    session = CodeModeSession(
        registry=registry,
        dispatcher=ToolCallRuntime(registry),
        defaults=defaults or SessionDefaults(),
        host_command=command,
    )
    try:
        yield session
    finally:
        await session.shutdown()
        await registry.aclose()


async def host_start(command: list[str], defaults: SessionDefaults | None = None) -> float:
    """Seconds to spawn the host of ``command`` and answer its first cell ``text(0)`` (the
    registry is built before the clock starts)."""
    async with host_session(command, defaults) as session:
        return await run_cell(session, "text(0)")
