"""A :class:`~codemode.session.CodeModeSession` against a real host process, for tests.

``async with SessionHarness(command) as h`` gives ``h.session`` over a fresh tool registry and
dispatcher, and records the cells reported closed (``h.closed``), the notifications
(``h.notes``, ``(cell_id, text)``) and the dispatcher's events (``h.events``). :data:`HOSTS`
parametrizes a test over our host and, when ``$CODEMODE_REFERENCE_HOST`` names its binary,
Codex's.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

import pytest

from codemode.cell_events import Closed, Notification
from codemode.config import Config, SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.host import HostProvider, Liveness
from codemode.responses import RuntimeResponse
from codemode.session import CodeModeSession
from codemode.tools.base import Tool
from codemode.tools.registry import ToolRegistry

OUR_HOST = [sys.executable, "-m", "codemode.runtime", "--listen", "stdio"]
HOSTS = [pytest.param(OUR_HOST, id="codemode-host")]
if os.environ.get("CODEMODE_REFERENCE_HOST"):
    HOSTS.append(pytest.param([os.environ["CODEMODE_REFERENCE_HOST"], "--listen", "stdio"], id="reference-host"))


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

    async def __aenter__(self) -> SessionHarness:
        self.registry = await ToolRegistry.create(self.config, extra_tools=self.extra_tools)
        self.dispatcher = ToolCallRuntime(self.registry)
        self.dispatcher.add_listener(self.events.append)
        self.session = CodeModeSession(
            registry=self.registry,
            dispatcher=self.dispatcher,
            defaults=SessionDefaults(),
            host_command=self.command,
            provider=self.provider,
            **self.options,
        )
        self.session.add_listener(self._record)
        return self

    def _record(self, event: Any) -> None:
        if isinstance(event, Notification):
            self.notes.append((event.cell_id, event.text))
        elif isinstance(event, Closed):
            self.closed.append(event.cell_id)

    async def __aexit__(self, *exc: object) -> None:
        await self.session.shutdown()
        if self._own_provider and self.provider is not None:
            await self.provider.aclose()
        await self.registry.aclose()

    async def run(self, source: str, timeout_s: float | None = None, **kw: int) -> tuple[str, RuntimeResponse]:
        """Execute ``source``; its cell id and initial response (within ``timeout_s`` if given)."""
        started = await self.session.execute(source, **kw)
        return started.cell_id, await asyncio.wait_for(started.initial_response, timeout_s)
