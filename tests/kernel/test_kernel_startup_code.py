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
from kernel_driver import execute, start_kernel, stop_kernel

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
