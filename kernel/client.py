"""The kernel's client layer (config, tool registry, dispatcher, session), built lazily.

``kernel_info`` must answer without importing ``mcp`` (about 2 s, ``recipes.md`` §1), so the
layer is imported in a worker thread and built on the first request that needs it; every
later request shares it. A failed build is retried by the next request.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.kernel.host_loss import HostLosses

log = logging.getLogger(__name__)


@dataclass
class Client:
    """The built client layer: ``config`` (``codemode.config.Config``), ``registry``
    (``ToolRegistry``), ``dispatcher`` (``ToolCallRuntime``), ``session``
    (``CodeModeSession``), the ``pragma`` and ``output`` modules, and ``losses`` (explains
    cells lost with the runtime host, :mod:`codemode.kernel.host_loss`)."""

    config: Any
    registry: Any
    dispatcher: Any
    session: Any
    pragma: Any
    output: Any
    losses: HostLosses

    def problems(self) -> list[str]:
        """Config and tool start-up problems, in the order they were found, each once (the
        registry's list repeats the config's)."""
        found = list(getattr(self.config, "errors", [])) + list(getattr(self.registry, "errors", []))
        return list(dict.fromkeys(found))


@dataclass
class Callbacks:
    """What the session and dispatcher report to the kernel (called on the event loop or from
    other threads; the kernel moves them onto its loop)."""

    on_tool_event: Callable[[Any], None]
    on_notify: Callable[[str, str], None]
    on_cell_closed: Callable[[str], None]


def _import_client_modules() -> dict[str, Any]:
    """Import the client layer (run in a worker thread: ``mcp`` takes ~2 s to import)."""
    from codemode import config, dispatch, output, pragma, session
    from codemode.tools import registry

    return {
        "config": config,
        "output": output,
        "pragma": pragma,
        "session": session,
        "dispatch": dispatch,
        "registry": registry,
    }


async def build_client(callbacks: Callbacks, cwd: Path | None = None) -> Client:
    """Load ``codemode.toml`` (from ``cwd``, default the working folder), start the tools and
    make the session. Raises whatever fails (an import error, a broken registry)."""
    mods = await asyncio.to_thread(_import_client_modules)
    config = mods["config"].load_config(cwd=cwd or Path.cwd())
    registry = await mods["registry"].ToolRegistry.create(config)
    dispatcher = mods["dispatch"].ToolCallRuntime(registry)
    dispatcher.add_listener(callbacks.on_tool_event)
    session = mods["session"].CodeModeSession(
        registry=registry,
        dispatcher=dispatcher,
        defaults=config.session,
        on_notify=callbacks.on_notify,
        on_cell_closed=callbacks.on_cell_closed,
    )
    return Client(config, registry, dispatcher, session, mods["pragma"], mods["output"], HostLosses(session))


class ClientLayer:
    """Builds the :class:`Client` once (``build`` is a coroutine function) and hands it out."""

    def __init__(self, build: Callable[[], Awaitable[Client]]) -> None:
        self._build = build
        self._future: asyncio.Future[Client] | None = None

    async def get(self) -> Client:
        """The client, built on first use. Raises what building raised; the next call retries.
        A cancelled caller does not cancel the build (other requests may share it)."""
        if self._future is None:
            self._future = asyncio.ensure_future(self._build())
        try:
            return await asyncio.shield(self._future)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._future = None
            raise

    def built(self) -> Client | None:
        """The client if it was built successfully, else None (never starts a build)."""
        future = self._future
        if future is None or not future.done() or future.cancelled() or future.exception() is not None:
            return None
        return future.result()

    async def aclose(self) -> None:
        """Stop the session (and its host) and the tool servers; later :meth:`get` calls build
        a new client. Problems are logged, never raised."""
        future, self._future = self._future, None
        if future is None:
            return
        try:
            client = await future
        except Exception:
            return
        try:
            await client.session.shutdown()
        except Exception:
            log.exception("session shutdown failed")
        try:
            await client.registry.aclose()
        except Exception:
            log.exception("stopping the tool servers failed")
