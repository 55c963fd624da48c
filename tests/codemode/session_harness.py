"""A :class:`~codemode.session.CodeModeSession` against a real host process, for tests.

``async with SessionHarness(command) as h`` gives ``h.session`` over a fresh tool registry and
dispatcher, and records the cells reported closed (``h.closed``), the notifications
(``h.notes``, ``(cell_id, text)``) and the dispatcher's events (``h.events``);
``await h.until(predicate)`` waits until one of these records makes ``predicate()`` true. :data:`HOSTS`
parametrizes a test over our host and, when ``$CODEMODE_REFERENCE_HOST`` names its binary,
Codex's.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from typing import Any

import pytest
from polling import BOUND_S

from codemode.cell_events import Closed, Notification
from codemode.config import Config, SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.host import HostConnection, HostProvider, Liveness
from codemode.responses import RuntimeResponse
from codemode.session import CodeModeSession
from codemode.tools.base import Tool
from codemode.tools.registry import ToolRegistry

OUR_HOST = [sys.executable, "-m", "codemode.runtime", "--listen", "stdio"]
HOSTS = [pytest.param(OUR_HOST, id="codemode-host")]
if os.environ.get("CODEMODE_REFERENCE_HOST"):
    HOSTS.append(pytest.param([os.environ["CODEMODE_REFERENCE_HOST"], "--listen", "stdio"], id="reference-host"))


def waits_sent(connection: HostConnection | None) -> int:
    """How many ``session/wait`` requests ``connection`` has written to its host and not had
    answered. No event marks a frame handed to the host's stdin: tests poll this with
    :func:`polling.poll_until`."""
    if connection is None:
        return 0
    return sum(p.kind == "wait" and p.sent for p in connection.state.requests.pending.values())


def texts(response: RuntimeResponse) -> list[str]:
    """The text items of a response."""
    return [item["text"] for item in response.content_items if item["type"] == "input_text"]


class SessionHarness:
    """The session runs ``command``, on ``provider`` when one is given (shared with other
    sessions and left open), else on a provider of its own with ``liveness`` (closed on exit)
    when that is given, else as the session starts hosts itself. The registry has the built-ins,
    ``extra_tools`` and what ``config`` names. Other keyword arguments go to
    :class:`~codemode.session.CodeModeSession`."""

    def __init__(
        self,
        command: list[str] = OUR_HOST,
        provider: HostProvider | None = None,
        *,
        liveness: Liveness | None = None,
        config: Config | None = None,
        extra_tools: list[Tool] | None = None,
        **options: Any,
    ) -> None:
        self.command = command
        self._own_provider = provider is None and liveness is not None
        self.provider = HostProvider(command, liveness=liveness) if self._own_provider else provider
        self.config = config
        self.extra_tools = extra_tools
        self.options = options
        self.closed: list[str] = []
        self.notes: list[tuple[str, str]] = []
        self.events: list[Any] = []
        self._recorded = asyncio.Event()

    def _record(self, records: list[Any], value: Any) -> None:
        # The session and the dispatcher call back from the loop or from tool threads.
        records.append(value)
        self._loop.call_soon_threadsafe(self._recorded.set)

    async def until(self, predicate: Callable[[], object], what: str, within_s: float = BOUND_S) -> None:
        """Return once ``predicate()`` is true, checking it again after each record (closed
        cell, notification, dispatcher event). Raises ``AssertionError("<what>: still false
        after <within_s> s")``: a bound for a broken session, not a timing the test relies on."""
        try:
            async with asyncio.timeout(within_s):
                while not predicate():
                    self._recorded.clear()
                    if not predicate():
                        await self._recorded.wait()
        except TimeoutError:
            raise AssertionError(f"{what}: still false after {within_s} s") from None

    async def __aenter__(self) -> SessionHarness:
        self._loop = asyncio.get_running_loop()
        self.registry = await ToolRegistry.create(self.config, extra_tools=self.extra_tools)
        self.dispatcher = ToolCallRuntime(self.registry)
        self.dispatcher.add_listener(lambda event: self._record(self.events, event))
        self.session = CodeModeSession(
            registry=self.registry,
            dispatcher=self.dispatcher,
            defaults=SessionDefaults(),
            host_command=self.command,
            provider=self.provider,
            **self.options,
        )
        self.session.add_listener(self._record_cell_event)
        return self

    def _record_cell_event(self, event: Any) -> None:
        if isinstance(event, Notification):
            self._record(self.notes, (event.cell_id, event.text))
        elif isinstance(event, Closed):
            self._record(self.closed, event.cell_id)

    async def __aexit__(self, *exc: object) -> None:
        await self.session.shutdown()
        if self._own_provider and self.provider is not None:
            await self.provider.aclose()
        await self.registry.aclose()

    async def run(self, source: str, timeout_s: float | None = None, **kw: int) -> tuple[str, RuntimeResponse]:
        """Execute ``source``; its cell id and initial response (within ``timeout_s`` if given)."""
        started = await self.session.execute(source, **kw)
        return started.cell_id, await asyncio.wait_for(started.initial_response, timeout_s)
