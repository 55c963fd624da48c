"""What runs at the next kernel start: tool modules at every level of their dotted name, the
modules they import from the config file's folder, and the working folder of MCP servers.

The kernel-level attack (a cell plants the code, a new kernel must not run it) is
``tests/kernel/test_kernel_startup_code.py``; these pin the pieces.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys

import pytest

from codemode.config import McpServerConfig, load_config
from codemode.kernel.services import tool_module_folder
from codemode.sandbox.startup import shadowed_modules, startup_code
from codemode.tools.mcp_stdio import find_command, server_folder, server_programs
from codemode.tools.module_folder import SingleCandidateFinder, missing_modules

pytestmark = pytest.mark.unit


def test_a_second_candidate_is_found_at_every_level_of_a_dotted_name(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    for name in ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/tools.py", "pkg/sub/deep.py"):
        (tmp_path / name).write_text("")
    assert shadowed_modules(tmp_path, ["pkg.tools", "pkg.sub.deep"]) == {}
    (tmp_path / "pkg" / "tools").mkdir()
    (tmp_path / "pkg" / "sub" / "deep.cpython-311-x86_64-linux-gnu.so").write_text("")
    assert shadowed_modules(tmp_path, ["pkg.tools", "pkg.sub.deep", "pkg.sub"]) == {
        "pkg.tools": ["pkg/tools/", "pkg/tools.py"],
        "pkg.sub.deep": ["pkg/sub/deep.cpython-311-x86_64-linux-gnu.so", "pkg/sub/deep.py"],
    }
    assert shadowed_modules(tmp_path, ["pkg.missing.x", "p[k]g"]) == {}


@pytest.fixture
def fresh_modules():
    """Forget the modules a test imports (names starting with ``cmst_``) afterwards."""
    yield
    for name in [n for n in sys.modules if n.startswith("cmst_")]:
        del sys.modules[name]
    importlib.invalidate_caches()


def test_a_module_imported_from_the_folder_with_a_second_candidate_is_refused(tmp_path, fresh_modules):
    (tmp_path / "cmst_pkg").mkdir()
    (tmp_path / "cmst_pkg" / "__init__.py").write_text("")
    (tmp_path / "cmst_pkg" / "tools.py").write_text("import cmst_helpers\nfrom . import inner\n")
    (tmp_path / "cmst_pkg" / "inner.py").write_text("")
    (tmp_path / "cmst_helpers.py").write_text("")
    with tool_module_folder(tmp_path):
        importlib.import_module("cmst_pkg.tools")
    for name in [n for n in sys.modules if n.startswith("cmst_")]:
        del sys.modules[name]
    (tmp_path / "cmst_helpers").mkdir()
    (tmp_path / "cmst_helpers" / "__init__.py").write_text("raise SystemExit('planted code ran')\n")
    with tool_module_folder(tmp_path), pytest.raises(ImportError) as refused:
        importlib.import_module("cmst_pkg.tools")
    assert str(refused.value) == (
        f"the module 'cmst_helpers' has several candidates in {str(tmp_path)!r} (cmst_helpers/, cmst_helpers.py), "
        "and a cell may have written one of them; it was not imported. Remove the one you did not write, then "
        "restart the kernel."
    )
    (tmp_path / "cmst_helpers" / "__init__.py").unlink()
    (tmp_path / "cmst_helpers").rmdir()
    (tmp_path / "cmst_pkg" / "inner").mkdir()  # a namespace portion beside inner.py
    with tool_module_folder(tmp_path), pytest.raises(ImportError, match="'cmst_pkg.inner' has several candidates"):
        importlib.import_module("cmst_pkg.tools")
    assert not any(isinstance(f, SingleCandidateFinder) for f in sys.meta_path)
    assert str(tmp_path) not in sys.path


def test_everything_imported_from_the_config_folder_is_protected(tmp_path, fresh_modules):
    (tmp_path / "cmst_wspkg").mkdir()
    (tmp_path / "cmst_wspkg" / "__init__.py").write_text("")
    (tmp_path / "cmst_wspkg" / "tools.py").write_text("import cmst_wshelpers, cmst_ns.part\n")
    (tmp_path / "cmst_wshelpers.py").write_text("")
    (tmp_path / "cmst_ns").mkdir()  # a namespace package: adding an __init__.py would make it run
    (tmp_path / "cmst_ns" / "part.py").write_text("")
    with tool_module_folder(tmp_path):
        importlib.import_module("cmst_wspkg.tools")
    paths = startup_code(tmp_path / "codemode.toml", ["cmst_wspkg.tools"])
    for expected in (
        tmp_path / "cmst_wspkg",  # its __init__.py, and no tools/ package can appear beside tools.py
        tmp_path / "cmst_wspkg" / "tools.py",
        tmp_path / "cmst_wshelpers.py",
        tmp_path / "__pycache__",
        tmp_path / "cmst_ns",
        tmp_path / "cmst_ns" / "part.py",
    ):
        assert expected in paths, expected


def test_relative_paths_of_a_server_mean_the_config_folder(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "codemode.toml").write_text(
        '[mcp_servers.a]\ncommand = "bin/server"\n'
        'args = ["../tools/index.js", "./x.py", ".", "UTC", "@scope/pkg", "owner/repo", "--flag=./y", "x.py"]\n'
        '[mcp_servers.b]\ncommand = "bin/server"\ncwd = "run"\nargs = ["./x.py"]\n'
    )
    monkeypatch.chdir(tmp_path)
    servers = load_config(conf / "codemode.toml").mcp_servers
    assert (servers["a"].command, servers["a"].cwd) == (str(conf / "bin" / "server"), None)
    assert servers["a"].args == [
        str(tmp_path / "tools" / "index.js"),
        str(conf / "x.py"),
        str(conf),
        "UTC",
        "@scope/pkg",
        "owner/repo",
        "--flag=./y",
        "x.py",
    ]
    assert (servers["b"].command, servers["b"].cwd, servers["b"].args) == (
        str(conf / "run" / "bin" / "server"),
        str(conf / "run"),
        ["./x.py"],
    )


def test_a_server_runs_in_a_folder_cells_cannot_write(tmp_path):
    workspace = tmp_path / "ws"
    (workspace / "sub").mkdir(parents=True)
    elsewhere = tmp_path / "conf"
    elsewhere.mkdir()
    assert server_folder(None, workspace, [workspace]) == "/"
    assert server_folder(None, workspace / "sub", [workspace]) == "/"
    assert server_folder(None, elsewhere, [workspace]) == str(elsewhere)
    assert server_folder(None, None, [workspace]) == "/"
    assert server_folder(str(workspace), workspace, [workspace]) == str(workspace)  # the user's choice
    link = tmp_path / "link"
    link.symlink_to(workspace)
    assert server_folder(None, link, [workspace]) == "/"


def test_a_servers_program_is_not_taken_from_a_relative_path_entry(tmp_path, monkeypatch):
    (tmp_path / "bin").mkdir()
    planted = tmp_path / "bin" / "cm-prog"
    planted.write_text("#!/bin/sh\n")
    planted.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    assert find_command("cm-prog", "bin:.:") is None
    assert find_command("cm-prog", f"bin:{tmp_path / 'bin'}") == str(planted)
    assert find_command("cm-prog", "/bin:/a\0b") is None


def test_modules_the_imports_looked_for_in_the_folder_and_did_not_find_are_recorded(tmp_path, fresh_modules):
    (tmp_path / "cmst_opt").mkdir()
    (tmp_path / "cmst_opt" / "__init__.py").write_text("")
    (tmp_path / "cmst_opt" / "tools.py").write_text(
        "import json, cmst_found\n"
        "try:\n    import cmst_optionalhelper\nexcept ImportError:\n    pass\n"
        "try:\n    from . import cmst_inner\nexcept ImportError:\n    pass\n"
    )
    (tmp_path / "cmst_found.py").write_text("")
    with tool_module_folder(tmp_path):
        importlib.import_module("cmst_opt.tools")
        recorded = missing_modules()
    suffixes = importlib.machinery.all_suffixes()  # .py, .pyc, the extension modules' suffixes
    assert recorded == [
        tmp_path / "cmst_optionalhelper",
        *(tmp_path / f"cmst_optionalhelper{suffix}" for suffix in suffixes),
        tmp_path / "cmst_opt" / "cmst_inner",
        *(tmp_path / "cmst_opt" / f"cmst_inner{suffix}" for suffix in suffixes),
    ]
    assert missing_modules() == []  # no finder outside the block
    protected = startup_code(tmp_path / "codemode.toml", ["cmst_opt.tools"], missing_modules=recorded)
    assert tmp_path / "cmst_optionalhelper.py" in protected


def test_the_files_a_servers_command_line_names_are_protected_before_they_exist(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "codemode.toml").write_text(
        '[mcp_servers.a]\ncommand = "./bin/server"\n'
        '[mcp_servers.b]\ncommand = "python3"\nargs = ["./srv.py", "UTC", "-m", "--flag=./y"]\n'
        '[mcp_servers.c]\ncommand = "python3"\ncwd = "run"\nargs = ["srv.py", "-u"]\n'
    )
    monkeypatch.chdir(tmp_path)
    servers = load_config(conf / "codemode.toml").mcp_servers.values()
    assert startup_code(None, [], servers)[-3:] == [  # after the environment and codemode's code
        conf / "bin" / "server",
        conf / "srv.py",
        conf / "run" / "srv.py",
    ]


def test_a_servers_program_is_protected_in_every_path_folder_before_the_one_found(tmp_path):
    first, second, third = (tmp_path / n for n in ("first", "second", "third"))
    for folder in (second, third):
        folder.mkdir()
        (folder / "cmst-server").write_text("#!/bin/sh\n")
        (folder / "cmst-server").chmod(0o755)
    path = f"{first}:relative:{second}:{third}"
    found = McpServerConfig(name="s", command="cmst-server", env={"PATH": path})
    missing = McpServerConfig(name="m", command="cmst-missing", env={"PATH": path})
    assert server_programs([found, missing]) == [
        first / "cmst-server",
        second / "cmst-server",
        first / "cmst-missing",
        second / "cmst-missing",
        third / "cmst-missing",
    ]
