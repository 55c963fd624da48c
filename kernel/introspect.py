"""What ``complete_request`` and ``inspect_request`` need from the running kernel.

:mod:`codemode.kernel.completion` and :mod:`codemode.kernel.inspection` work on tables;
:class:`Introspection` gathers them: the tools, the live cell ids and the globals of the
JavaScript engine the cells run in and their profile (the services', or before they are built
the ones ``codemode.toml`` and the kernelspec choose, :func:`codemode.kernel.services.chosen`;
listed once, in a worker thread, on the first completion:
:func:`codemode.kernel.js_globals.engine_globals`).

When the code names ``tools`` (:func:`codemode.kernel.completion.mentions_tools`), the tool list
is the one after every MCP server has started or given up, each within its
``startup_timeout_sec`` (``ToolRegistry.ready_tools``), as a cell that may call their tools waits: the first
completion of ``tools.`` in a session lists the MCP tools too. Other code is completed at once,
without building the code-mode services. In the notebook profile the session's realm is asked
for the bindings and members it knows (:func:`codemode.kernel.completion.binding_query`),
within :data:`BINDINGS_WAIT_MS`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from codemode.kernel import completion, inspection
from codemode.kernel.js_globals import engine_globals
from codemode.kernel.services import ServicesLoader, chosen
from codemode.kernel.state import KernelState

log = logging.getLogger(__name__)

BINDINGS_WAIT_MS = 200
"""How long the realm may take to list bindings for a completion (it is busy running JavaScript
when it takes longer, and the completion answers without them)."""
BINDINGS_TRANSPORT_S = 0.5
"""Allowance for the request's way to the host and back, on top of :data:`BINDINGS_WAIT_MS`."""


class Introspection:
    """Answers completion and inspection with the kernel's tools (from ``loader``) and cells
    (``state``)."""

    def __init__(self, loader: ServicesLoader, state: KernelState) -> None:
        self.loader = loader
        self.state = state

    async def _tools(self, code: str) -> list[Any]:
        """The enabled tools once the MCP servers are ready, when ``code`` names ``tools``;
        else none. A failure to build the services gives none (logged)."""
        if not completion.mentions_tools(code):
            return []
        try:
            services = await self.loader.get()
            return list(await services.registry.ready_tools())
        except asyncio.CancelledError:
            raise
        except Exception:
            log.debug("no tools for completion", exc_info=True)
            return []

    async def _session(self, setting: str) -> str:
        """The ``engine`` or ``profile`` cells run in (module docstring)."""
        services = self.loader.built()
        if services is not None:
            return str(getattr(services.config.session, setting))

        def configured() -> str:
            from codemode.config import load_config

            return chosen(setting, getattr(load_config(cwd=Path.cwd()).session, setting))

        return await asyncio.to_thread(configured)

    async def complete(self, code: str, cursor_pos: int | None) -> dict[str, Any]:
        """The ``complete_reply`` content (:func:`codemode.kernel.completion.complete`)."""
        before = code if cursor_pos is None else code[: max(0, cursor_pos)]
        tools = await self._tools(before)
        engine = await asyncio.to_thread(engine_globals, await self._session("engine"))
        profile = await self._session("profile")
        query = completion.binding_query(code, cursor_pos, engine) if profile == "notebook" else None
        bindings = None if query is None else await self._bindings(query)
        return completion.complete(code, cursor_pos, tools, self.state.live_ids(), engine, profile, bindings)

    async def _bindings(self, path: list[str]) -> list[tuple[str, str]] | None:
        """What the notebook realm lists at ``path`` (``CodeModeSession.bindings``), within
        :data:`BINDINGS_WAIT_MS` (plus the way there and back); None when no cell ran yet, the
        realm was busy or anything failed (logged)."""
        services = self.loader.built()
        if services is None:
            return None
        try:
            async with asyncio.timeout(BINDINGS_WAIT_MS / 1000 + BINDINGS_TRANSPORT_S):
                return await services.code_mode.bindings(path, BINDINGS_WAIT_MS)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.debug("no bindings for completion", exc_info=True)
            return None

    async def inspect(self, code: str, cursor_pos: int | None, detail_level: int) -> dict[str, Any]:
        """The ``inspect_reply`` content (:func:`codemode.kernel.inspection.inspect`)."""
        profile = await self._session("profile")
        return inspection.inspect(code, cursor_pos, await self._tools(code), detail_level, profile)


__all__ = ["Introspection"]
