"""What a cell cannot do to the other cells through the runtime, driven through Jupyter.

- Frames: a cell once got the prelude's ``__cm_tool`` from a call site's ``getFunction()``
  (QuickJS) and, through it, wrote fields of the ``delegate/request`` frame: a forged ``type``
  made the client drop the host, ending every other cell. Now no runtime function reaches a
  cell, and the host checks every argument of the prelude's calls.
- Pending tool calls: at most 1024 per host connection, as in Codex (``HostPeer``); a yielded
  cell holding them makes another cell's call fail, with a text naming the holder as the kernel
  names it.
"""

from __future__ import annotations

import re
import signal

from kernel_driver import execute, runtime_host

LIMIT = "code-mode host has too many pending delegate calls (1024, the limit per connection)"

FORGE = r"""
let tool;
Error.prepareStackTrace = (e, sites) => sites;
await tools.sleep({ ms: 1, toJSON() {
  for (const site of new Error().stack) {
    const fn = site.getFunction();
    if (typeof fn === "function" && fn.name === "__cm_tool") tool = fn;
  }
  return { ms: 1 };
} });
Error.prepareStackTrace = undefined;
text("runtime function: " + typeof tool);
// what a forged type, id and cell_id looked like: the text closes the argument and writes the
// frame's own fields (the host appends ":null", the argument's JSON)
if (tool) {
  await tool('0:null}},"type":"bogus","x":{"y":{"z"', undefined).catch((e) => text("refused: " + e));
  await tool('0:1},"cell_id":"1","x":{"y":{"z"', undefined).catch((e) => text("refused: " + e));
}
"""


def test_a_cell_cannot_write_frame_fields_or_end_another_cell(kernel):
    """A background cell keeps running while another cell tries to reach the runtime's tool
    function through call sites and forge frame fields with it: it gets no function, the host
    stays, and the background cell completes with its output."""
    gate = kernel.cwd / "gate-forge"
    background = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 0}\n'
        f'await tools.exec_command({{cmd: "while [ ! -e {gate} ]; do sleep 0.02; done"}});\n'
        'text("background done")',
    )
    assert background.codemode["status"] == "running"
    forged = execute(kernel.kc, FORGE)
    assert forged.content["status"] == "ok", forged.errors
    assert forged.stdout == "runtime function: undefined\n"
    assert forged.stderr_messages == []
    gate.write_text("open")
    waited = execute(kernel.kc, f"%wait {background.codemode['cell_id']}")
    assert waited.codemode["status"] == "completed"
    assert "background done\n" in waited.stdout
    assert waited.stderr_messages == []


def test_a_cell_holding_the_pending_calls_is_named_in_another_cells_error(kernel):
    """A yielded cell with 1024 tool calls in flight: another cell's call fails with Codex's
    text, the limit and the holder's id as the kernel shows it (``g<generation>:<id>`` on a
    replaced host); once the holder is terminated, calls go out again."""
    host = runtime_host(kernel)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=30)
    assert execute(kernel.kc, 'text("on a new host")').stdout == "on a new host\n"
    holder = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 60000}\n'
        "for (let i = 0; i < 1024; i++) tools.sleep({ms: 600000});\n"
        "yield_control(); await new Promise(() => {});",
    )
    assert holder.codemode["status"] == "running"
    holder_id = holder.codemode["cell_id"]
    assert re.fullmatch(r"g\d+:\d+", holder_id), holder_id
    other = execute(kernel.kc, "try { await tools.sleep({ms: 1}); } catch (e) { text(e); }")
    assert other.stdout == f"{LIMIT}: cell {holder_id} holds 1024\n"
    stopped = execute(kernel.kc, f"%terminate {holder_id}")
    assert stopped.content["status"] == "ok", stopped.errors
    after = execute(kernel.kc, 'await tools.sleep({ms: 1}); text("called")')
    assert after.stdout == "called\n"
