"""A CodeModeSession over our real runtime host, with Python tool modules loaded, for the tool
tests that must go through the layer a kernel uses (cells calling tools over the host protocol)."""

from __future__ import annotations

import sys
from pathlib import Path

from codemode.config import Config, SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.session import CodeModeSession
from codemode.tools.registry import ToolRegistry

PYTOOLS = Path(__file__).resolve().parent
HOST = [sys.executable, "-m", "codemode.runtime", "--listen", "stdio"]


class HostSession:
    """``async with HostSession(["module"]) as h``: a registry with the built-ins and the
    Python tools of ``modules`` (found in this folder), a dispatcher, a session on a real host.
    ``h.events`` collects the dispatcher's events."""

    def __init__(self, modules: list[str]) -> None:
        self.modules = modules
        self.events: list = []

    async def __aenter__(self) -> HostSession:
        if str(PYTOOLS) not in sys.path:
            sys.path.insert(0, str(PYTOOLS))
        self.registry = await ToolRegistry.create(Config(python_modules=self.modules))
        self.dispatcher = ToolCallRuntime(self.registry)
        self.dispatcher.add_listener(self.events.append)
        self.session = CodeModeSession(
            registry=self.registry, dispatcher=self.dispatcher, defaults=SessionDefaults(), host_command=HOST
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.session.shutdown()
        await self.registry.aclose()

    async def run(self, source: str, **kw) -> tuple[str, object]:
        """Execute ``source``; ``(cell_id, initial response)``."""
        started = await self.session.execute(source, **kw)
        return started.cell_id, await started.initial_response


def texts(response) -> list[str]:
    """The text items of a response."""
    return [item["text"] for item in response.content_items if item["type"] == "input_text"]
