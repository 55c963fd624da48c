"""A kernel start runs neither code a cell planted nor waits, and a bad setting loses its key.

Planted code: a kernel runs a Python tool module inside a package (``wspkg.tools``, which
imports ``wshelpers`` from the same folder) and an MCP server started with
``python -m cm_raw_server`` (found through ``PYTHONPATH``, as an installed module would be). A
cell plants code where each would pick it up: ``wspkg/__init__.py`` (run before the tool
module), ``wspkg/tools/__init__.py`` (a package beats the module beside it),
``wshelpers/__init__.py`` (beats ``wshelpers.py``), ``cm_raw_server/__main__.py``
(``python -m`` looks in its working folder first) and the server's program, found on its
``PATH`` in the workspace (``bin/cm-raw-server``; the planted one would be a Python file). Each planted file appends its name to a
marker file when it runs. A new kernel in the same folder must run none of them.

Settings: a NUL in a writable root, a path as a module name and an unknown user's home as a
server's cwd each stopped the whole session; ``startup_timeout_sec = 1e9`` was accepted; every
cell waited for the MCP server still starting (here until the test creates ``gate``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from kernel_driver import collect, execute, send_execute, start_kernel, stop_kernel

pytestmark = pytest.mark.timeout(180)

TOOLS = '''
import codemode
import wshelpers

try:
    import cm_optionalhelper  # not there: a cell must not be able to add it
except ImportError:
    cm_optionalhelper = None


@codemode.tool
def greet(name: str) -> str:
    """Greets ``name``."""
    return wshelpers.hello(name)
'''

PLANTED = (
    "wspkg/__init__.py",
    "wspkg/tools/__init__.py",
    "wshelpers/__init__.py",
    "cm_raw_server/__main__.py",
    "bin/cm-raw-server",
)
SERVERS = Path(__file__).resolve().parents[1] / "codemode" / "servers"
"""Where ``cm_raw_server.py``, a small MCP server without the SDK, lives."""
NOT_YET = ("bin/server", "srv.py", "cm_optionalhelper.py")
"""Files the next start would run that do not exist yet: the program and the script of two
servers' command lines (``./bin/server``; ``python3 ./srv.py``), a module the tool module tries
to import."""
RAW_ECHO = 'const r = await tools.mcp__raw__echo({text: "real"}); text(r.content[0].text)'


def test_planted_code_does_not_run_and_bad_settings_lose_their_key(codemode_kernelspec, tmp_path):
    (tmp_path / "wspkg").mkdir()
    (tmp_path / "wspkg" / "__init__.py").write_text("")
    (tmp_path / "wspkg" / "tools.py").write_text(TOOLS)
    (tmp_path / "wshelpers.py").write_text('def hello(name):\n    return "hello " + name\n')
    gate = tmp_path / "gate"
    (tmp_path / "bin").mkdir()
    program = tmp_path / "bin" / "cm-raw-server"  # found on the server's PATH, in the workspace
    program.write_text(
        f"#!/bin/sh\nwhile [ ! -e {gate} ]; do sleep 0.05; done\nexec {sys.executable} -m cm_raw_server\n"
    )
    program.chmod(0o755)
    source = tmp_path / "codemode.toml"
    source.write_text(
        '[sandbox_workspace_write]\nwritable_roots = ["/tmp", "/tmp/a\\u0000b"]\n\n'
        '[python_tools]\nmodules = ["wspkg.tools", "/etc/passwd"]\n\n'
        '[mcp_servers.raw]\ncommand = "cm-raw-server"\n'
        f"env = {{PYTHONPATH = {json.dumps(str(SERVERS))}, PATH = {json.dumps(f'{tmp_path}/bin:/usr/bin:/bin')}}}\n"
        "startup_timeout_sec = 1e9\n\n"
        '[mcp_servers.program]\ncommand = "./bin/server"\n\n'
        '[mcp_servers.script]\ncommand = "python3"\nargs = ["./srv.py"]\n\n'
        '[mcp_servers.elsewhere]\ncommand = "x"\ncwd = "~nosuchuser-cm/x"\n'
    )
    marker = tmp_path / "ran.txt"
    gate.touch()  # the first kernel's server starts at once (the planting cell names "wspkg/tools/")
    kernel = start_kernel(tmp_path)
    try:
        assert execute(kernel.kc, 'text(await tools.greet({name: "a"}))').stdout == "hello a\n"
        plant = (
            f"const marker = {json.dumps(str(marker))};\n"
            f"for (const path of {json.dumps(list(PLANTED))}) {{\n"
            "  const content = `open(${JSON.stringify(marker)}, 'a').write(${JSON.stringify(path)} + '\\\\n')\\n`;\n"
            "  text(path + ': ' + await tools.write_file({path, content}).then(() => 'written', () => 'refused'));\n"
            "}"
        )
        planted = execute(kernel.kc, plant)
        assert planted.stdout.splitlines() == [
            "wspkg/__init__.py: refused",
            "wspkg/tools/__init__.py: refused",
            "wshelpers/__init__.py: written",
            "cm_raw_server/__main__.py: written",
            "bin/cm-raw-server: refused",
        ], planted.content
        plant_missing = (
            f"const marker = {json.dumps(str(marker))};\n"
            f"for (const path of {json.dumps(list(NOT_YET))}) {{\n"
            f"  const content = `#!{sys.executable}\\nopen(${{JSON.stringify(marker)}}, 'a').write(${{JSON.stringify(path)}} + '\\\\n')\\n`;\n"
            "  text(await tools.write_file({path, content}).then(() => path + ': written', (e) => String(e)));\n"
            "}\n"
            'await tools.exec_command({cmd: "chmod +x bin/server"});'
        )
        planted = execute(kernel.kc, plant_missing)
        assert planted.stdout.splitlines() == [
            f"write_file: {str(tmp_path / path)!r} cannot be written: {str(tmp_path / path)!r} stays read-only for cells (as in "
            "Codex: what runs by itself later, git hooks, the config file, the kernel's own code, must not be "
            "something a cell wrote)."
            for path in NOT_YET
        ], planted.content
    finally:
        stop_kernel(kernel)

    gate.unlink()
    kernel = start_kernel(tmp_path)
    try:
        first = execute(kernel.kc, 'text("one")')  # the server is still starting: not waited for
        assert first.stdout == "one\n", first.content
        problems = (
            f"{source}: sandbox_workspace_write.writable_roots[1]: contains a NUL character, which no path can "
            "hold; the setting was ignored.",
            f"{source}: python_tools.modules[1]: '/etc/passwd' is not a Python module name (identifiers joined "
            "by dots, such as mypkg.tools); it was ignored.",
            f"{source}: mcp_servers.raw.startup_timeout_sec: 1e+09 s is more than the 600 s allowed; 600 s is used.",
            f"{source}: mcp_servers.elsewhere.cwd: starts with '~nosuchuser-cm', the home folder of a user that "
            "does not exist here. The server was skipped.",
            "python_tools.modules: wspkg.tools: cannot be imported (ImportError: the module 'wshelpers' has "
            f"several candidates in {str(tmp_path)!r} (wshelpers/, wshelpers.py), and a cell may have written one "
            "of them; it was not imported. Remove the one you did not write, then restart the kernel.).",
        )
        assert first.stderr_messages == ["".join(f"codemode configuration problem: {p}\n" for p in problems)]
        assert execute(kernel.kc, "text(JSON.stringify(await tools.echo({a: 1})))").stdout == '{"a":1}\n'
        msg_id = send_execute(kernel.kc, RAW_ECHO)  # waits for the server
        gate.touch()
        assert collect(kernel.kc, msg_id).stdout == "real\n"
        assert not marker.exists(), marker.read_text()
    finally:
        stop_kernel(kernel)
