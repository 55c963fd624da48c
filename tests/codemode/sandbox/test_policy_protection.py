"""What the policy keeps from cells beyond Codex's protected names: the workspace's
``codemode.toml`` even before it exists (``masked``), the start-up code the registry names
(``extra_protected``), Jupyter's runtime files (``hidden``), protected symlinks it cannot keep
read-only (``unprotectable``), and the configured roots that do not exist (``Sandbox.problems``)."""

from __future__ import annotations

import importlib.util
import site
import sys
from pathlib import Path
from types import ModuleType

import pytest

import codemode
from codemode.config import SandboxSettings
from codemode.sandbox import Sandbox
from codemode.sandbox.policy import SandboxPolicy, WritableRoot
from codemode.sandbox.startup import jupyter_secrets, startup_code

pytestmark = pytest.mark.unit

TMP = Path("/tmp").resolve()


def policy(workspace, **settings):
    return SandboxPolicy.from_settings(SandboxSettings(**settings), workspace, {})


def only_ws(ws):
    """workspace-write with only ``ws`` writable (pytest's folders are under /tmp)."""
    return policy(ws, exclude_slash_tmp=True)


def test_the_missing_config_file_of_the_workspace_is_masked(ws):
    assert only_ws(ws).masked() == [ws / "codemode.toml"]
    assert only_ws(ws).can_write(ws / "codemode.toml") is False
    assert only_ws(ws).can_write(ws / "codemode.toml.bak") is True


def test_an_existing_config_file_is_protected_instead_of_masked(ws):
    (ws / "codemode.toml").write_text('sandbox_mode = "read-only"\n')
    p = only_ws(ws)
    assert (p.masked(), p.writable_roots()) == ([], [WritableRoot(ws, (ws / "codemode.toml",))])
    assert p.can_write(ws / "codemode.toml") is False


@pytest.mark.parametrize("mode", ["read-only", "danger-full-access"])
def test_only_workspace_write_masks_the_config_file(ws, mode):
    assert policy(ws, sandbox_mode=mode).masked() == []


def test_another_roots_config_file_is_protected_only_when_it_exists(ws, tmp_path):
    extra = tmp_path / "extra"
    extra.mkdir()
    p = policy(ws, exclude_slash_tmp=True, writable_roots=[str(extra)])
    assert (p.masked(), p.can_write(extra / "codemode.toml")) == ([ws / "codemode.toml"], True)
    (extra / "codemode.toml").write_text("")
    assert p.can_write(extra / "codemode.toml") is False


def test_with_protection_adds_absolute_paths_once(ws, monkeypatch):
    monkeypatch.chdir(ws)
    p = only_ws(ws).with_protection((Path("conf.toml"), ws / "tools.py"), (Path("/run/jupyter"),))
    p = p.with_protection((ws / "conf.toml",), (Path("/run/jupyter"), Path("/run/other")))
    assert p.extra_protected == (ws / "conf.toml", ws / "tools.py")
    assert p.hidden == (Path("/run/jupyter"), Path("/run/other"))
    assert only_ws(ws).extra_protected == ()


def test_extra_protected_paths_are_read_only_where_they_exist_inside_a_root(ws, tmp_path):
    (ws / "tools.py").write_text("")
    (ws / "pkg").mkdir()
    (tmp_path / "elsewhere.toml").write_text("")
    extra = (ws / "tools.py", ws / "pkg", ws / "not-yet.py", tmp_path / "elsewhere.toml")
    p = only_ws(ws).with_protection(extra)
    assert p.writable_roots() == [WritableRoot(ws, (ws / "tools.py", ws / "pkg"))]
    assert [p.can_write(path) for path in (ws / "tools.py", ws / "pkg" / "mod.py", ws / "other.py")] == [
        False,
        False,
        True,
    ]
    # A protected path that does not exist yet is kept from being created (as the workspace's
    # config file is): what the next start would run must not be something a cell wrote.
    assert p.can_write(ws / "not-yet.py") is False
    assert p.masked() == [ws / "codemode.toml", ws / "not-yet.py"]


def test_a_missing_protected_path_is_guarded_at_its_first_missing_component(ws):
    server = ws / "bin" / "server"
    p = only_ws(ws).with_protection((server, ws / "lib" / "x" / "srv.py"))
    # Neither bin/ nor lib/ exists: each is kept from being created, and so is anything under it.
    assert p.masked() == [ws / "codemode.toml", ws / "bin", ws / "lib"]
    assert [p.can_write(path) for path in (server, ws / "bin" / "other", ws / "lib", ws / "binary")] == [
        False,
        False,
        False,
        True,
    ]
    (ws / "bin").mkdir()  # the user made bin/: only bin/server stays guarded
    assert p.masked() == [ws / "codemode.toml", server, ws / "lib"]
    assert (p.can_write(server), p.can_write(ws / "bin" / "other")) == (False, True)
    (ws / "lib").write_text("")  # a file where a folder is missing: it stays read-only (not replaced)
    assert ws / "lib" in p.writable_roots()[0].read_only
    assert p.can_write(ws / "lib") is False


def test_hidden_paths_cannot_be_written_even_inside_a_root(ws):
    runtime = ws / "runtime"
    runtime.mkdir()
    p = only_ws(ws).with_protection(hidden=(runtime,))
    assert p.can_write(runtime / "kernel-1.json") is False
    assert p.can_write(ws / "runtime-notes.txt") is True


def test_writable_folders_are_the_workspace_and_every_configured_root(ws, tmp_path):
    extra = tmp_path / "missing-extra"
    p = SandboxPolicy.from_settings(SandboxSettings(writable_roots=[str(extra)]), ws, {"TMPDIR": str(tmp_path)})
    assert p.writable_folders() == [ws, extra, TMP, tmp_path]
    assert policy(ws, sandbox_mode="read-only").writable_folders() == [ws, TMP]


def test_writable_folders_keep_the_configured_roots_in_read_only_mode(ws, tmp_path):
    # "whether or not the mode lets commands write them now": a bwrap or bash left in a root by
    # an earlier workspace-write session must not be picked up after a switch to read-only.
    extra = tmp_path / "extra"
    assert policy(ws, sandbox_mode="read-only", writable_roots=[str(extra)]).writable_folders() == [ws, extra, TMP]


@pytest.mark.parametrize("name", [".git", ".codex", ".agents", "codemode.toml"])
def test_a_protected_name_that_is_a_symlink_in_the_workspace_is_unprotectable(ws, tmp_path, name):
    (tmp_path / "target").mkdir()
    (ws / name).symlink_to(tmp_path / "target")
    assert only_ws(ws).unprotectable() == [ws / name]


def test_a_dangling_protected_symlink_is_unprotectable_too(ws, tmp_path):
    (ws / "codemode.toml").symlink_to(tmp_path / "nowhere.toml")
    p = only_ws(ws)
    assert (p.masked(), p.unprotectable()) == ([], [ws / "codemode.toml"])


def test_a_symlinked_extra_protected_path_is_unprotectable(ws, tmp_path):
    (tmp_path / "real.py").write_text("")
    (ws / "tools.py").symlink_to(tmp_path / "real.py")
    assert only_ws(ws).with_protection((ws / "tools.py",)).unprotectable() == [ws / "tools.py"]


def test_a_protected_symlink_inside_a_read_only_folder_is_kept(ws, tmp_path):
    # The folder holding the link is read-only itself, so the link cannot be replaced.
    (ws / ".codex").mkdir()
    (ws / ".codex" / "hooks.py").symlink_to(tmp_path)
    assert only_ws(ws).with_protection((ws / ".codex" / "hooks.py",)).unprotectable() == []


def test_without_writable_roots_nothing_is_unprotectable(ws, tmp_path):
    (ws / ".git").symlink_to(tmp_path)
    assert policy(ws, sandbox_mode="read-only").unprotectable() == []
    assert policy(ws, sandbox_mode="danger-full-access").unprotectable() == []
    (ws / ".git").unlink()
    (ws / ".git").mkdir()
    assert only_ws(ws).unprotectable() == []


def test_sandbox_protect_keeps_adding_to_the_policy(ws):
    (ws / "a.py").write_text("")
    (ws / "b.py").write_text("")
    sandbox = Sandbox.from_settings(SandboxSettings(exclude_slash_tmp=True), ws)
    sandbox.protect([ws / "a.py"])
    sandbox.protect([ws / "b.py"], [ws / "runtime"])
    assert (sandbox.policy.extra_protected, sandbox.policy.hidden) == ((ws / "a.py", ws / "b.py"), (ws / "runtime",))
    assert sandbox.summary()[2] == f"  read-only inside them: {ws}/a.py, {ws}/b.py, {ws}/codemode.toml"


def missing_root(source, root):
    return (
        f"{source}: sandbox_workspace_write.writable_roots: {str(root)!r} is not an existing folder, so it was "
        "left out; create it and restart the kernel to make it writable."
    )


def test_problems_name_each_configured_root_that_is_not_a_folder(ws, tmp_path):
    (tmp_path / "a-file").write_text("")
    (tmp_path / "there").mkdir()
    roots = [str(tmp_path / "gone"), str(tmp_path / "there"), str(tmp_path / "a-file")]
    sandbox = Sandbox.from_settings(SandboxSettings(writable_roots=roots), ws)
    assert sandbox.problems("/etc/codemode.toml") == [
        missing_root("/etc/codemode.toml", tmp_path / "gone"),
        missing_root("/etc/codemode.toml", tmp_path / "a-file"),
    ]


@pytest.mark.parametrize("mode", ["read-only", "danger-full-access"])
def test_roots_are_not_judged_when_the_mode_does_not_use_them(ws, tmp_path, mode):
    settings = SandboxSettings(sandbox_mode=mode, writable_roots=[str(tmp_path / "gone")])
    assert Sandbox.from_settings(settings, ws).problems("codemode.toml") == []


def loaded(name: str, file: Path) -> ModuleType:
    """The module ``name`` loaded from ``file``, without touching ``sys.path`` or ``sys.modules``."""
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_startup_code_names_the_config_file_tool_modules_and_the_environment(tmp_path, monkeypatch):
    (tmp_path / "mytool_startup_probe.py").write_text("X = 1\n")
    (tmp_path / "mypkg_startup_probe").mkdir()
    (tmp_path / "mypkg_startup_probe" / "__init__.py").write_text("")
    for name, file in (
        ("mytool_startup_probe", tmp_path / "mytool_startup_probe.py"),
        ("mypkg_startup_probe", tmp_path / "mypkg_startup_probe" / "__init__.py"),
    ):
        monkeypatch.setitem(sys.modules, name, loaded(name, file))  # removed again afterwards
    config = tmp_path / "conf" / "settings.toml"
    paths = startup_code(config, ["mytool_startup_probe", "mypkg_startup_probe", "not_loaded_anywhere"])
    expected = [
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path(codemode.__file__).parent,
        tmp_path / "mytool_startup_probe.py",
        tmp_path / "__pycache__",
        tmp_path / "mypkg_startup_probe",
        config,
    ]
    if site.ENABLE_USER_SITE:
        expected.append(Path(site.USER_SITE))
    assert [p for p in expected if p not in paths] == []
    assert paths[-1] == config
    assert all(p.is_absolute() for p in paths)
    assert len(paths) == len(set(paths))


def test_startup_code_without_a_config_file(tmp_path):
    paths = startup_code(None, [])
    assert Path(sys.prefix) in paths
    assert all(p.suffix != ".toml" for p in paths)


def test_jupyter_secrets_are_the_runtime_folder_and_every_history_file_existing_or_not(tmp_path, monkeypatch):
    """Listed before they exist: a journal appears only while the history is written, and the
    runtime folder when a Jupyter server or kernel starts, after the policy was made (bubblewrap
    hides those that exist as each command starts)."""
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("CODEMODE_HISTORY_FILE", str(tmp_path / "history.sqlite"))
    history = [
        tmp_path / name
        for name in ("history.sqlite", "history.sqlite-journal", "history.sqlite-wal", "history.sqlite-shm")
    ]
    assert jupyter_secrets() == [tmp_path / "runtime", *history]
    (tmp_path / "runtime").mkdir()
    assert jupyter_secrets() == [tmp_path / "runtime", *history]
    monkeypatch.setenv("CODEMODE_HISTORY_FILE", ":memory:")
    assert jupyter_secrets() == [tmp_path / "runtime"]


def test_the_default_history_is_hidden_as_its_whole_folder(tmp_path, monkeypatch):
    """The default history folder holds only the history and SQLite's companions: a tmpfs over
    it hides a journal SQLite makes and deletes at any moment, with no mount point per file
    that could vanish before bubblewrap mounts over it."""
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("CODEMODE_HISTORY_FILE", raising=False)
    assert jupyter_secrets() == [tmp_path / "runtime", tmp_path / "data" / "codemode"]
    monkeypatch.setenv("CODEMODE_HISTORY_FILE", str(tmp_path / "data" / "codemode" / "history.sqlite"))
    assert jupyter_secrets() == [tmp_path / "runtime", tmp_path / "data" / "codemode"]
