"""The registry protects what runs at the next start when it lies in a writable folder: the
config file it read and the ``[python_tools]`` modules it loaded stay unchanged by
``write_file`` and by sandboxed commands; configured roots that do not exist are reported."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest
from sandbox_helpers import call, require_bwrap, run

from codemode.config import Config, SandboxSettings

BASH = shutil.which("bash")

MODULE = "codemode_sandbox_probe_tools"
"""A [python_tools] module name no other test uses."""

PYC = f"{MODULE}.{sys.implementation.cache_tag}.pyc"
"""Where Python would cache the compiled module."""

TOOL_SOURCE = "from codemode import tool\n\n\n@tool\ndef probe() -> int:\n    return 1\n"
CONFIG_SOURCE = 'sandbox_mode = "workspace-write"\n'


def read_only_message(path: Path, protected: Path) -> str:
    return (
        f"write_file: {str(path)!r} cannot be written: {str(protected)!r} stays read-only for cells (as in Codex: "
        "what runs by itself later, git hooks, the config file, the kernel's own code, must not be something "
        "a cell wrote)."
    )


@pytest.fixture
def startup_files(ws, monkeypatch):
    """A config file under ``ws/conf`` (not named codemode.toml) and a tool module in ``ws``,
    loaded as the registry loads it (``sys.modules`` restored afterwards)."""
    config_file = ws / "conf" / "settings.toml"
    config_file.parent.mkdir()
    config_file.write_text(CONFIG_SOURCE)
    module_file = ws / f"{MODULE}.py"
    module_file.write_text(TOOL_SOURCE)
    (ws / "__pycache__").mkdir()
    spec = importlib.util.spec_from_file_location(MODULE, module_file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, MODULE, module)
    return config_file, module_file


def config_for(config_file: Path, **settings) -> Config:
    return Config(
        sandbox=SandboxSettings(exclude_slash_tmp=True, **settings),
        python_modules=[MODULE],
        source_path=config_file,
    )


@pytest.mark.unit
async def test_write_file_cannot_change_the_config_file_or_a_tool_module(dispatchers, ws, startup_files):
    config_file, module_file = startup_files
    dispatcher = await dispatchers.make_from(config_for(config_file))
    assert dispatchers.registries[0].errors == []
    cached = ws / "__pycache__" / PYC
    for path, protected in ((config_file, config_file), (module_file, module_file), (cached, cached.parent)):
        result = await call(dispatcher, "write_file", {"path": str(path), "content": "import os\n"})
        assert (result.outcome, result.error) == ("failed", read_only_message(path, protected))
    assert (config_file.read_text(), module_file.read_text()) == (CONFIG_SOURCE, TOOL_SOURCE)
    assert list((ws / "__pycache__").iterdir()) == []
    written = await call(dispatcher, "write_file", {"path": "conf/other.toml", "content": "x"})
    assert written.outcome == "completed"


async def test_commands_cannot_change_the_config_file_or_a_tool_module(dispatchers, ws, startup_files):
    require_bwrap()
    config_file, module_file = startup_files
    dispatcher = await dispatchers.make_from(config_for(config_file))
    script = (
        f"echo 'x' >> conf/settings.toml; echo config=$?; "
        f"echo 'import os' >> {MODULE}.py; echo module=$?; "
        f"touch __pycache__/{PYC}; echo cache=$?; "
        f"mv {MODULE}.py moved.py; echo move=$?; "
        "touch conf/other.toml; echo other=$?"
    )
    result = await run(dispatcher, script)
    assert result["output"] == (
        f"{BASH}: line 1: conf/settings.toml: Read-only file system\nconfig=1\n"
        f"{BASH}: line 1: {MODULE}.py: Read-only file system\nmodule=1\n"
        f"touch: cannot touch '__pycache__/{PYC}': Read-only file system\ncache=1\n"
        f"mv: cannot move '{MODULE}.py' to 'moved.py': Device or resource busy\nmove=1\n"
        "other=0\n"
    )
    assert (config_file.read_text(), module_file.read_text()) == (CONFIG_SOURCE, TOOL_SOURCE)
    assert list((ws / "__pycache__").iterdir()) == []
    assert sorted(p.name for p in config_file.parent.iterdir()) == ["other.toml", "settings.toml"]


@pytest.mark.unit
async def test_the_protected_files_are_listed_as_read_only(dispatchers, ws, startup_files):
    config_file, module_file = startup_files
    await dispatchers.make_from(config_for(config_file))
    summary = dispatchers.registries[0].sandbox.summary()
    assert summary[2] == (
        f"  read-only inside them: {module_file}, {ws / '__pycache__'}, {config_file}, {ws / 'codemode.toml'}"
    )


@pytest.mark.unit
async def test_the_registry_reports_configured_roots_that_do_not_exist(dispatchers, ws, tmp_path):
    gone = tmp_path / "gone"
    config = Config(sandbox=SandboxSettings(writable_roots=[str(gone)]), source_path=ws / "codemode.toml")
    await dispatchers.make_from(config)
    assert dispatchers.registries[0].errors == [
        f"{ws / 'codemode.toml'}: sandbox_workspace_write.writable_roots: {str(gone)!r} is not an existing "
        "folder, so it was left out; create it and restart the kernel to make it writable."
    ]


@pytest.mark.unit
async def test_without_a_config_file_the_problem_names_codemode_toml(dispatchers, tmp_path):
    await dispatchers.make(writable_roots=[str(tmp_path / "gone")])
    assert dispatchers.registries[0].errors == [
        f"codemode.toml: sandbox_workspace_write.writable_roots: {str(tmp_path / 'gone')!r} is not an existing "
        "folder, so it was left out; create it and restart the kernel to make it writable."
    ]
