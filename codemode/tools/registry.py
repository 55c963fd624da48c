"""The tool registry: built-ins, Python tools and MCP servers behind one list.

``ToolRegistry.create(config)`` makes the built-ins available at once and starts each MCP
server in the background. Names follow Codex's code-mode rules: tools are sorted by raw name,
and when two tools normalise to the same JavaScript name the first registered wins; the others
are skipped with a warning (kept in :attr:`errors`).
``[tools] disabled`` hides tools by JS or raw name; an entry that names no tool is reported as a
configuration problem once every MCP server has started or given up (a typo must not leave a
tool on that the user believes is off).
``[recording] mode = "replay"`` (:mod:`codemode.replay`): the registry offers only the tools of
the recording, each answered from it; no built-in runs, no Python tool module is imported and
no MCP server is started.
"""

from __future__ import annotations

import asyncio
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING

from codemode.config import Config
from codemode.sandbox import Sandbox
from codemode.sandbox.secrets import temp_folders
from codemode.sandbox.startup import jupyter_secrets, shadowed_modules, startup_code
from codemode.tools.base import Tool
from codemode.tools.builtins import builtin_tools
from codemode.tools.exec_sessions import ExecSessions
from codemode.tools.reach import may_use_unlisted

if TYPE_CHECKING:
    from codemode.replay.recorder import Recorder, RecordingState
    from codemode.tools.mcp import McpClient

logger = logging.getLogger(__name__)


class _Index:
    """The enabled tools worked out from ``sources`` (kept, so that the ids in ``key`` stay
    theirs) and their lookups by wire name and by JS or raw name (first in order wins)."""

    def __init__(self, key: tuple[object, ...], sources: tuple[list[Tool], ...], tools: list[Tool]) -> None:
        self.key = key
        self.sources = sources
        self.tools = tools
        self.by_wire_name: dict[tuple[str, str | None], Tool] = {}
        self.by_other_name: dict[str, Tool] = {}
        for tool in tools:
            self.by_wire_name.setdefault((tool.name, tool.namespace or None), tool)
        for tool in tools:
            for other in (tool.js_name, tool.raw_name):
                self.by_other_name.setdefault(other, tool)


class ToolRegistry:
    """Enabled tools and where they come from. Use :meth:`create`; close with :meth:`aclose`."""

    def __init__(self, config: Config | None = None) -> None:
        self.config = config or Config()
        self._static: list[Tool] = []
        self._mcp_clients: dict[str, McpClient] = {}
        self._errors: list[str] = list(self.config.errors)
        self._warned: set[str] = set()
        self._cached: _Index | None = None
        self.sandbox = Sandbox.from_settings(self.config.sandbox)
        self.recording: RecordingState | None = None
        self.exec_sessions = ExecSessions()
        self.recording_path: Path | None = None
        """The recording a run records to or a later replay reads (``[recording]``, in every
        mode): kept read-only for cells when it exists at the start (always in record mode),
        since a cell could otherwise forge the answers a replay trusts."""

    @classmethod
    async def create(cls, config: Config | None = None, *, extra_tools: list[Tool] | None = None) -> ToolRegistry:
        """Build the registry: built-ins, ``extra_tools``, Python tools of ``[python_tools]``,
        then MCP servers (started in the background; never raises for server problems) and,
        when at least one is enabled, Codex's MCP resource tools
        (:mod:`codemode.tools.mcp_resources`)."""
        registry = cls(config)
        if registry._open_recording():
            return registry
        if registry.config.mcp_servers:
            # Imported before the tool modules and before the protected paths are worked out:
            # what mcp's own imports look for in the config's folder and miss must be recorded.
            from codemode.tools import mcp, mcp_stdio  # noqa: F401
        registry._static.extend(builtin_tools(registry.sandbox, registry.exec_sessions))
        registry._static.extend(extra_tools or [])
        modules = registry._unshadowed_modules()
        if modules:
            from codemode.tools.python import load_python_tools

            tools, errors = load_python_tools(modules)
            registry._static.extend(tools)
            registry._errors.extend(errors)
        config_file = registry.config.source_path
        servers = registry.config.mcp_servers.values()
        from codemode.tools.module_folder import missing_modules

        protected = startup_code(config_file, modules, servers, missing_modules())
        if registry.recording_path is not None and os.path.lexists(registry.recording_path):
            # Only an existing one: a missing path would be masked by an empty file in every
            # command's folder. Record mode has created it by now.
            protected.append(registry.recording_path)
        if any(server.command for server in servers):
            from codemode.tools.mcp_stdio import server_programs

            protected += server_programs(server for server in servers if server.enabled)
        watched = [*temp_folders(), *registry.sandbox.policy.writable_folders()]
        registry.sandbox.protect(protected, jupyter_secrets(), watched)
        registry._errors.extend(registry.sandbox.problems(str(config_file or "codemode.toml")))
        if registry.config.mcp_servers:
            from codemode.tools.mcp import McpClient
            from codemode.tools.mcp_elicitation import Elicitations
            from codemode.tools.mcp_stdio import server_folder

            writable = registry.sandbox.policy.writable_folders()
            for name, server_config in registry.config.mcp_servers.items():
                if not server_config.enabled:
                    continue
                folder = server_folder(server_config.cwd, config_file.parent if config_file else None, writable)
                elicitations = Elicitations(
                    name, registry.sandbox.approval_policy, registry.sandbox.policy.unrestricted
                )
                client = McpClient(server_config, folder, elicitations)
                registry._mcp_clients[name] = client
                client.start()
        if registry._mcp_clients:
            from codemode.tools.mcp_resources import resource_tools

            registry._static.extend(resource_tools(lambda: registry._mcp_clients))
        return registry

    def _open_recording(self) -> bool:
        """Open the ``[recording]`` of the config (environment included; paths relative to the
        working folder). True in replay mode, where the recording's tools are the only ones."""
        from codemode.config.recording import effective_recording

        settings = effective_recording(self.config.recording, self._errors, Path.cwd())
        self.recording_path = settings.path
        if settings.mode == "off" or settings.path is None:
            return False
        from codemode.replay.recorder import open_recording

        self.recording = open_recording(settings.mode, settings.path)
        self._errors.extend(self.recording.problems)
        if self.recording.mode != "replay":
            return False
        if self.recording.player is not None:
            self._static.extend(self.recording.player.tools())
        return True

    @property
    def recorder(self) -> Recorder | None:
        """The recorder the dispatcher hands each call to, in record mode."""
        return self.recording.recorder if self.recording is not None else None

    def _unshadowed_modules(self) -> list[str]:
        """``[python_tools] modules`` minus those with two candidates in the config's folder
        (reported: a cell may have written one of them)."""
        source = self.config.source_path
        if source is None:
            return list(self.config.python_modules)
        shadowed = shadowed_modules(source.parent, self.config.python_modules)
        for name, found in shadowed.items():
            self._errors.append(
                f"{source}: python_tools.modules: {name!r} has several candidates in {str(source.parent)!r} "
                f"({', '.join(found)}), and a cell may have written one of them; it was not loaded. Remove the "
                "one you did not write, then restart the kernel."
            )
        return [name for name in self.config.python_modules if name not in shadowed]

    # -- contents ------------------------------------------------------------------
    def _sources(self) -> tuple[list[Tool], ...]:
        """The tool lists of every source, in order: built-ins and Python tools, then each MCP server's."""
        return (self._static, *(client.tools for client in self._mcp_clients.values()))

    def _all(self) -> list[Tool]:
        return [tool for source in self._sources() for tool in source]

    @property
    def tools(self) -> list[Tool]:
        """Enabled tools, de-duplicated by JS name (first wins), sorted by raw name. A new list
        each time; worked out again only when a source's tools changed (an MCP server started
        or listed its tools again), since every tool call looks its tool up here."""
        return list(self._index().tools)

    def _index(self) -> _Index:
        sources = self._sources()
        key = (tuple(map(id, sources)), tuple(map(len, sources)), tuple(self.config.disabled_tools))
        index = self._cached
        if index is None or index.key != key:
            index = self._cached = _Index(key, sources, self._enabled(sources))
        return index

    def _enabled(self, sources: tuple[list[Tool], ...]) -> list[Tool]:
        disabled = set(self.config.disabled_tools)
        seen: dict[str, Tool] = {}
        for tool in (tool for source in sources for tool in source):
            if tool.js_name in disabled or tool.raw_name in disabled:
                continue
            if tool.name in ("exec", "wait") and not tool.namespace:
                continue
            first = seen.get(tool.js_name)
            if first is not None:
                if first is not tool:
                    self._warn_collision(first, tool)
                continue
            seen[tool.js_name] = tool
        return sorted(seen.values(), key=lambda t: t.raw_name)

    def _warn_collision(self, first: Tool, later: Tool) -> None:
        key = f"{later.origin}:{later.raw_name}"
        if key in self._warned:
            return
        self._warned.add(key)
        message = (
            f"tool `{later.raw_name}` from {later.origin} was skipped: its JavaScript name "
            f"`{later.js_name}` is already used by `{first.raw_name}` from {first.origin}."
        )
        logger.warning(message)
        self._errors.append(message)

    @property
    def errors(self) -> list[str]:
        """Configuration and start-up problems, as sentences, in the order found."""
        errors = list(self._errors)
        for client in self._mcp_clients.values():
            errors.extend(client.errors)
        errors.extend(self._unmatched_disabled())
        return errors

    def _unmatched_disabled(self) -> list[str]:
        """One problem per ``[tools] disabled`` entry that names no tool, once the MCP servers'
        tools are known (entries under the namespace of a server that failed are not judged)."""
        if not self.config.disabled_tools or any(not c.settled for c in self._mcp_clients.values()):
            return []
        names = {name for tool in self._all() for name in (tool.js_name, tool.raw_name)}
        failed = [f"mcp__{name}__" for name, client in self._mcp_clients.items() if not client.tools]
        source = self.config.source_path or "codemode.toml"
        return [
            f"{source}: tools.disabled: {entry!r} names no tool, so nothing was disabled by it. "
            "Check the spelling against %tools (JavaScript or code-mode names, such as exec_command "
            "or mcp__server__tool)."
            for entry in self.config.disabled_tools
            if entry not in names and not entry.startswith(tuple(failed))
        ]

    def get(self, js_name: str) -> Tool | None:
        """The enabled tool whose JS name is ``js_name``."""
        for tool in self.tools:
            if tool.js_name == js_name:
                return tool
        return None

    def find(self, name: str, namespace: str | None = None) -> Tool | None:
        """The enabled tool with wire name ``{name, namespace}`` (as in a delegate request);
        falls back to the JS or raw name when ``namespace`` is ``None``."""
        index = self._index()
        tool = index.by_wire_name.get((name, namespace or None))
        if tool is None and namespace is None:
            tool = index.by_other_name.get(name)
        return tool

    @property
    def mcp_clients(self) -> dict[str, McpClient]:
        """The connection to each enabled MCP server (:class:`codemode.tools.mcp.McpClient`),
        by the server's configured name."""
        return dict(self._mcp_clients)

    async def tools_for(self, source: str) -> list[Tool]:
        """The tools to start a cell of ``source`` with: :meth:`ready_tools` when an MCP server is
        still starting and the cell may use a tool not listed yet
        (:func:`~codemode.tools.reach.may_use_unlisted`), else :attr:`tools` at once: a cell
        that calls no MCP tool does not wait for the servers."""
        tools = self.tools
        if all(client.settled for client in self._mcp_clients.values()):
            return tools
        if may_use_unlisted(source, {name for tool in tools for name in (tool.js_name, tool.raw_name)}):
            return await self.ready_tools()
        return tools

    async def ready_tools(self) -> list[Tool]:
        """:attr:`tools` after every MCP server has started or given up (each bounded by its
        ``startup_timeout_sec``)."""
        if self._mcp_clients:
            waits = (client.wait_started() for client in self._mcp_clients.values())
            await asyncio.gather(*waits, return_exceptions=True)
        return self.tools

    async def aclose(self) -> None:
        """Stop every MCP server and every ``exec_command`` session (their process groups are
        gone afterwards)."""
        await self.exec_sessions.aclose()
        clients = list(self._mcp_clients.values())
        await asyncio.gather(*(client.aclose() for client in clients), return_exceptions=True)
        if self.recorder is not None:
            self.recorder.close()
