"""The kernel's code-mode services (config, tool registry, dispatcher, code-mode session),
built lazily.

``kernel_info`` must answer without importing ``mcp`` (importing it takes about two seconds),
so the services are imported in a worker thread and built on the first request that needs
them; every later request shares them. A failed build is retried by the next request.

Naming: in kernel code ``self.session`` is ipykernel's message session (``jupyter_client``'s
``Session``). The code-mode session (:class:`codemode.session.CodeModeSession`, which runs
cells in the runtime host) is :attr:`Services.code_mode`.

Configured Python tool modules (``[python_tools] modules``) are looked up in the installed
packages and then in the folder of the config file (for a ``codemode.toml`` beside the
notebook: the notebook's folder). That folder is on ``sys.path`` only while the registry
imports those modules, and at its end, so a file there named like an installed module
(``json.py``, ``regex.py``) never shadows it. The kernel itself runs with Python's ``-P``
(``kernel.json``), so the notebook's folder is not on its import path otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from codemode.kernel.host_loss import HostLosses

ENGINE_VARIABLE = "CODEMODE_ENGINE"
"""Set by a kernelspec installed with ``--engine``: the runtime host's engine, over ``[session] engine``."""
PROFILE_VARIABLE = "CODEMODE_PROFILE"
"""Set by a kernelspec installed with ``--profile``: the cells' profile, over ``[session] profile``."""
HEADLESS_VARIABLE = "CODEMODE_HEADLESS"
"""Set by a runner (``python -m codemode replay --run`` sets ``never``): when requests run
headless, over ``[session] headless`` (:mod:`codemode.kernel.headless`)."""
VARIABLES = {"engine": ENGINE_VARIABLE, "profile": PROFILE_VARIABLE, "headless": HEADLESS_VARIABLE}
"""The ``[session]`` settings a kernelspec may choose, each with its environment variable."""

if TYPE_CHECKING:  # the real modules import mcp (slow): loaded in a worker thread at run time
    from codemode.config import Config
    from codemode.dispatch import ToolCallRuntime
    from codemode.session import CodeModeSession
    from codemode.tools.registry import ToolRegistry

log = logging.getLogger(__name__)

DANGER_NOTICE = (
    'sandbox_mode is "danger-full-access": exec_command runs commands without a sandbox (every file '
    "the kernel's user can reach, the network, the kernel's environment) and write_file writes anywhere."
)
"""Shown once, with the first cell of a kernel whose sandbox is off."""


@dataclass
class Services:
    """The built services: ``config``, ``registry`` (the enabled tools), ``dispatcher`` (runs
    tool calls), ``code_mode`` (the code-mode session: execute / wait / terminate cells), the
    ``pragma`` and ``truncation`` modules (``codemode.pragma``, ``codemode.wire.truncation``), and
    ``losses`` (explains cells lost with the runtime host, :mod:`codemode.kernel.host_loss`)."""

    config: Config
    registry: ToolRegistry
    dispatcher: ToolCallRuntime
    code_mode: CodeModeSession
    pragma: ModuleType
    truncation: ModuleType
    losses: HostLosses

    def problems(self) -> list[str]:
        """Config and tool start-up problems, in the order they were found, each once (the
        registry's list repeats the config's)."""
        found = list(self.config.errors) + list(self.registry.errors)
        return list(dict.fromkeys(found))

    def notices(self) -> list[str]:
        """What the user must know once per kernel that is not a problem: a session without
        a sandbox (``sandbox_mode = "danger-full-access"``)."""
        if not self.registry.sandbox.policy.unrestricted:
            return []
        return [DANGER_NOTICE]


def _import_service_modules() -> dict[str, ModuleType]:
    """Import the services' modules (run in a worker thread: ``mcp`` takes ~2 s to import)."""
    from codemode import config, dispatch, pragma, session
    from codemode.tools import registry
    from codemode.wire import truncation

    return {
        "config": config,
        "truncation": truncation,
        "pragma": pragma,
        "session": session,
        "dispatch": dispatch,
        "registry": registry,
    }


@contextlib.contextmanager
def tool_module_folder(folder: Path | None) -> Iterator[None]:
    """Append ``folder`` to ``sys.path`` for the duration of the block (see the module
    docstring); nothing happens for None or a folder already on the path.

    Meanwhile Python's bytecode cache is a fresh folder of this kernel's (``sys.pycache_prefix``):
    a ``__pycache__`` in the notebook's folder is neither read (a cell could have planted a
    compiled module there for the next start) nor written; and a module the folder holds two
    candidates for is not imported
    (:class:`~codemode.tools.module_folder.SingleCandidateFinder`)."""
    entry = str(folder) if folder is not None else None
    if folder is None or entry is None or entry in sys.path:
        yield
        return
    from codemode.tools.module_folder import SingleCandidateFinder

    finder = SingleCandidateFinder(folder)
    sys.path.append(entry)
    sys.meta_path.insert(0, finder)
    previous = sys.pycache_prefix
    sys.pycache_prefix = tempfile.mkdtemp(prefix="codemode-pycache-")
    try:
        yield
    finally:
        cache, sys.pycache_prefix = sys.pycache_prefix, previous
        shutil.rmtree(cache, ignore_errors=True)
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
        with contextlib.suppress(ValueError):
            sys.path.remove(entry)


def chosen(setting: str, configured: str) -> str:
    """The kernelspec's or runner's choice of ``setting`` (``"engine"``, ``"profile"`` or
    ``"headless"``: the variable of :data:`VARIABLES`, which ``install --engine`` /
    ``--profile`` sets) when it names one of the
    setting's choices (``codemode.config.session_defaults.CHOICES``), else ``configured`` (the
    ``[session]`` value). A variable that names none is logged."""
    from codemode.config.session_defaults import CHOICES

    variable = VARIABLES[setting]
    value = os.environ.get(variable)
    if not value:
        return configured
    if value not in CHOICES[setting]:
        log.warning("%s=%r names no %s; %s is used", variable, value, setting, configured)
        return configured
    return value


def reference_host_problem(profile: str) -> str | None:
    """The problem to report when ``profile`` is not ``strict`` but ``CODEMODE_HOST_BIN`` names
    another host (Codex's, which takes no ``--profile`` and runs every cell strictly): the
    session then runs strict cells. None when there is no such problem."""
    binary = os.environ.get("CODEMODE_HOST_BIN")
    if profile == "strict" or not binary:
        return None
    return (
        f"session.profile: {profile!r} needs codemode's own runtime host, but CODEMODE_HOST_BIN names "
        f"{binary}, which takes no profile; cells run in the strict profile."
    )


async def build_services(cwd: Path | None = None) -> Services:
    """Load ``codemode.toml`` (from ``cwd``, default the working folder), start the tools and
    make the code-mode session. Raises whatever fails (an import error, a broken registry)."""
    mods = await asyncio.to_thread(_import_service_modules)
    config = mods["config"].load_config(cwd=cwd or Path.cwd())
    config.session.engine = chosen("engine", config.session.engine)
    config.session.profile = chosen("profile", config.session.profile)
    config.session.headless = chosen("headless", config.session.headless)
    problem = reference_host_problem(config.session.profile)
    if problem is not None:
        config.errors.append(problem)
        config.session.profile = "strict"
    from codemode.config.session_defaults import NOTEBOOK_ENGINES, combination_problem

    combination = combination_problem(config.session.engine, config.session.profile)
    if combination is not None:
        config.errors.append(f"session.engine: {combination}; {NOTEBOOK_ENGINES[0]} is used.")
        config.session.engine = NOTEBOOK_ENGINES[0]
    folder = config.source_path.parent if config.source_path is not None else None
    if config.mcp_servers:
        # codemode's own imports (mcp, httpx, anyio: ~2 s) off the event loop, and before the
        # notebook's folder is on the import path, so that none of them looks there.
        await asyncio.to_thread(importlib.import_module, "codemode.tools.mcp")
    with tool_module_folder(folder):
        registry = await mods["registry"].ToolRegistry.create(config)
    dispatcher = mods["dispatch"].ToolCallRuntime(registry, recorder=registry.recorder)
    code_mode = mods["session"].CodeModeSession(
        registry=registry,
        dispatcher=dispatcher,
        defaults=config.session,
    )
    return Services(config, registry, dispatcher, code_mode, mods["pragma"], mods["truncation"], HostLosses(code_mode))


class ServicesLoader:
    """Builds the :class:`Services` once (``build`` is a coroutine function) and hands them out."""

    def __init__(self, build: Callable[[], Awaitable[Services]]) -> None:
        self._build = build
        self._future: asyncio.Future[Services] | None = None
        self._early: asyncio.Task[None] | None = None

    def start_early(self, loop: asyncio.AbstractEventLoop) -> None:
        """Build the services and start the runtime host on ``loop`` now, while the frontend
        is still connecting, so that the first cell does not wait for them. A failure is only
        logged: the first request that needs the services builds them again and reports it."""
        self._early = loop.create_task(self._start())

    async def _start(self) -> None:
        try:
            services = await self.get()
            await services.code_mode.open()
        except Exception:  # noqa: BLE001 - reported by the first cell that needs the services
            log.debug("starting the services ahead of the first cell failed", exc_info=True)

    async def get(self) -> Services:
        """The services, built on first use. Raises what building raised; the next call
        retries. A cancelled caller does not cancel the build (other requests may share it)."""
        if self._future is None:
            self._future = asyncio.ensure_future(self._build())
        try:
            return await asyncio.shield(self._future)
        except asyncio.CancelledError:
            raise
        except Exception:
            self._future = None
            raise

    def built(self) -> Services | None:
        """The services if they were built successfully, else None (never starts a build)."""
        future = self._future
        if future is None or not future.done() or future.cancelled() or future.exception() is not None:
            return None
        return future.result()

    async def aclose(self) -> None:
        """Stop the code-mode session (and its host) and the tool servers; later :meth:`get`
        calls build new services. Problems are logged, never raised."""
        early, self._early = self._early, None
        if early is not None:
            # Not cancelled: a host cancelled in its handshake would be left running.
            await early
        future, self._future = self._future, None
        if future is None:
            return
        try:
            services = await future
        except Exception:
            return
        try:
            await services.code_mode.shutdown()
        except Exception:
            log.exception("code-mode session shutdown failed")
        try:
            await services.registry.aclose()
        except Exception:
            log.exception("stopping the tool servers failed")


__all__ = [
    "Services",
    "ServicesLoader",
    "build_services",
    "chosen",
    "reference_host_problem",
    "tool_module_folder",
]
