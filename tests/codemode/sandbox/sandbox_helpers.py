"""A dispatcher over the built-in tools with given sandbox settings, as a kernel builds it, with
its workspace (the process's working folder) in a temporary folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from dependencies import require

from codemode.cancellation import CancellationToken
from codemode.config import Config, SandboxSettings
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

BASH_ADDED = {"PWD", "SHLVL", "_"}
"""Variables bash itself exports to ``env``."""


def require_bwrap() -> None:
    require(shutil.which("bwrap") is not None, "bubblewrap (bwrap) is not installed")


class Dispatchers:
    """``await make(**settings)``: a :class:`ToolCallRuntime` whose sandbox has ``settings``
    and whose workspace is ``workspace`` (entered before the registry is built);
    ``await make_from(config)`` for a whole :class:`Config`."""

    def __init__(self, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.workspace = workspace
        self.monkeypatch = monkeypatch
        self.registries: list[ToolRegistry] = []

    async def make(self, **settings) -> ToolCallRuntime:
        return await self.make_from(Config(sandbox=SandboxSettings(**settings)))

    async def make_from(self, config: Config) -> ToolCallRuntime:
        """A dispatcher over the registry ``config`` gives, built in the workspace."""
        self.monkeypatch.chdir(self.workspace)
        registry = await ToolRegistry.create(config)
        self.registries.append(registry)
        return ToolCallRuntime(registry)

    async def close(self) -> None:
        for registry in self.registries:
            await registry.aclose()


async def call(dispatcher: ToolCallRuntime, name: str, args: dict):
    return await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": name, "namespace": None}, "function", args, CancellationToken()
    )


async def run(dispatcher: ToolCallRuntime, cmd: str, **args) -> dict:
    """The value of a completed ``exec_command`` call (fails the test otherwise)."""
    result = await call(dispatcher, "exec_command", {"cmd": cmd, **args})
    assert result.outcome == "completed", result.error
    return result.value


def parse_env(output: str) -> dict[str, str]:
    """``env``'s output as a dict, without what bash adds."""
    pairs = (line.split("=", 1) for line in output.splitlines() if "=" in line)
    return {name: value for name, value in pairs if name not in BASH_ADDED}
