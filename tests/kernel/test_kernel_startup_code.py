"""What a cell writes in the notebook's folder does not run at the next kernel start.

One kernel runs a Python tool module inside a package (``wspkg.tools``, which imports
``wshelpers`` from the same folder) and an MCP server started with ``python -m``. A cell then
plants code where each would pick it up: ``wspkg/__init__.py`` (run before the tool module),
``wspkg/tools/__init__.py`` (a package beats the module beside it), ``wshelpers/__init__.py``
(beats ``wshelpers.py``) and ``mcp_server_time/__main__.py`` (``python -m`` looks in its
working folder first). Each planted file appends its name to a marker file when it runs. A
new kernel in the same folder must run none of them.
"""

from __future__ import annotations

import json
import sys

import pytest
from kernel_driver import collect, execute, send_execute, start_kernel, stop_kernel

pytestmark = pytest.mark.timeout(180)

TOOLS = '''
import codemode
import wshelpers


@codemode.tool
def greet(name: str) -> str:
    """Greets ``name``."""
    return wshelpers.hello(name)
'''

PLANTED = ("wspkg/__init__.py", "wspkg/tools/__init__.py", "wshelpers/__init__.py", "mcp_server_time/__main__.py")


def test_code_a_cell_plants_for_the_next_start_does_not_run(codemode_kernelspec, tmp_path):
    (tmp_path / "wspkg").mkdir()
    (tmp_path / "wspkg" / "__init__.py").write_text("")
    (tmp_path / "wspkg" / "tools.py").write_text(TOOLS)
    (tmp_path / "wshelpers.py").write_text('def hello(name):\n    return "hello " + name\n')
    (tmp_path / "codemode.toml").write_text(
        '[python_tools]\nmodules = ["wspkg.tools"]\n\n'
        f"[mcp_servers.time]\ncommand = {json.dumps(sys.executable)}\n"
        'args = ["-m", "mcp_server_time", "--local-timezone", "UTC"]\nstartup_timeout_sec = 30\n'
    )
    marker = tmp_path / "ran.txt"
    time_call = (
        'const r = await tools.mcp__time__get_current_time({timezone: "UTC"}); text(r.structuredContent.timezone)'
    )
    kernel = start_kernel(tmp_path)
    try:
        assert execute(kernel.kc, 'text(await tools.greet({name: "a"}))').stdout == "hello a\n"
        assert execute(kernel.kc, time_call).stdout == "UTC\n"
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
            "mcp_server_time/__main__.py: written",
        ], planted.content
    finally:
        stop_kernel(kernel)

    kernel = start_kernel(tmp_path)
    try:
        run = execute(kernel.kc, time_call)
        assert run.stdout == "UTC\n", run.content
        assert run.stderr_messages == [
            "codemode configuration problem: python_tools.modules: wspkg.tools: cannot be imported (ImportError: "
            f"the module 'wshelpers' has several candidates in {str(tmp_path)!r} (wshelpers/, wshelpers.py), and "
            "a cell may have written one of them; it was not imported. Remove the one you did not write, then "
            "restart the kernel.).\n"
        ]
        assert not marker.exists(), marker.read_text()
    finally:
        stop_kernel(kernel)


def test_bad_settings_lose_their_key_and_cells_wait_only_for_the_servers_they_use(codemode_kernelspec, tmp_path):
    """A NUL in a writable root, a path as a module name and an unknown user's home as a
    server's cwd each stopped the whole session; a startup_timeout_sec of 1e9 was accepted, and
    every cell waited for the server still starting (here: until the test creates ``gate``)."""
    gate = tmp_path / "gate"
    starts = f"while [ ! -e {gate} ]; do sleep 0.05; done; exec {sys.executable} -m mcp_server_time"
    (tmp_path / "codemode.toml").write_text(
        '[sandbox_workspace_write]\nwritable_roots = ["/tmp", "/tmp/a\\u0000b"]\n\n'
        '[python_tools]\nmodules = ["/etc/passwd"]\n\n'
        f'[mcp_servers.gated]\ncommand = "sh"\nargs = ["-c", {json.dumps(starts)}]\nstartup_timeout_sec = 1e9\n\n'
        '[mcp_servers.elsewhere]\ncommand = "x"\ncwd = "~nosuchuser-cm/x"\n'
    )
    source = tmp_path / "codemode.toml"
    kernel = start_kernel(tmp_path)
    try:
        first = execute(kernel.kc, 'text("one")')
        assert first.stdout == "one\n", first.content
        assert first.stderr_messages == [
            "".join(
                f"codemode configuration problem: {source}: {problem}\n"
                for problem in (
                    "sandbox_workspace_write.writable_roots[1]: contains a NUL character, which no path can hold; "
                    "the setting was ignored.",
                    "python_tools.modules[0]: '/etc/passwd' is not a Python module name (identifiers joined by "
                    "dots, such as mypkg.tools); it was ignored.",
                    "mcp_servers.gated.startup_timeout_sec: 1e+09 s is more than the 600 s allowed; 600 s is used.",
                    "mcp_servers.elsewhere.cwd: starts with '~nosuchuser-cm', the home folder of a user that does "
                    "not exist here. The server was skipped.",
                )
            )
        ]
        assert execute(kernel.kc, "text(JSON.stringify(await tools.echo({a: 1})))").stdout == '{"a":1}\n'
        msg_id = send_execute(
            kernel.kc,
            'const r = await tools.mcp__gated__get_current_time({timezone: "UTC"}); text(r.structuredContent.timezone)',
        )
        gate.touch()
        assert collect(kernel.kc, msg_id).stdout == "UTC\n"
    finally:
        stop_kernel(kernel)
