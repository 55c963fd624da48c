"""A randomized "hostile cell" test: hypothesis draws sequences of cells that misbehave (lone
surrogates in tool arguments, stored values, tool results and tool output, tampered built-ins,
floods, heap exhaustion, a blocked Python tool, an endless loop, interrupts at random moments,
yielded cells left running, runtime functions sought through call sites and called with forged
frame text, 1024 tool calls held by one cell, a background cell asking for approval while
another waits in the foreground, 72 MiB of stored values through a killed host) and runs each sequence in one
fresh kernel. After every step:

- a control cell answers within 2 s (the one timed check: what a user waits for);
- ``load()`` returns the values stored at the start, intact;
- a control cell printing 1 000 numbered lines delivers all of them, in order.

Each step also checks its own outcome (the error a user sees, or the output). One explicit
example runs every kind once; a few drawn examples of a few steps mix them, within about 90 s; under ``CI`` the examples are derandomized (the same
random mix on every run). ``HOSTILE_EXAMPLES=30`` runs more examples (about 3 minutes).
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from kernel_driver import (
    BLOCKING_TOOL,
    Execution,
    collect,
    execute,
    reply_or_question,
    runtime_host,
    send_execute,
    start_kernel,
    stop_kernel,
    wait_for_iopub,
)

pytestmark = [pytest.mark.timeout(600), pytest.mark.usefixtures("bubblewrap")]

TOOLS = (
    '''
import time
from pathlib import Path

import codemode


@codemode.tool
def surrogate() -> str:
    """Returns a string holding a lone surrogate."""
    return "ab\\ud800cd"


@codemode.tool
def print_surrogate() -> str:
    """Prints a line holding a lone surrogate, then returns ok."""
    print("printed \\udfff here", flush=True)
    return "ok"
'''
    + BLOCKING_TOOL
)
HEAP_BYTES = 32 * 2**20
STORED = {"nested": {"list": [1, 2, {"deep": "ünïcode"}], "none": None}, "emoji": "text with 😀 and ✓"}
CONTROL_S = 2.0
SERIALIZE_ERROR = "failed to serialize JavaScript value: unexpected end of hex escape at line 1 column "
TERMINATED = "Cell {cell} was terminated; output it produced before that is shown above."


def _terminated(run: Execution) -> None:
    cell_id = run.codemode["cell_id"]
    assert (run.content["ename"], run.content["evalue"]) == ("CellTerminated", TERMINATED.format(cell=cell_id))


def _interrupt_when(kernel, code: str, ready: Callable[[dict], bool]) -> Execution:
    """Run ``code``, interrupt once a message of its request satisfies ``ready``."""
    msg_id = send_execute(kernel.kc, code)
    seen = wait_for_iopub(kernel.kc, msg_id, ready)
    kernel.km.interrupt_kernel()
    return collect(kernel.kc, msg_id, earlier=seen)


def _shown(needle: str) -> Callable[[dict], bool]:
    def match(msg: dict) -> bool:
        data = msg["content"].get("data", {})
        return msg["msg_type"] in ("display_data", "update_display_data") and needle in data.get("text/plain", "")

    return match


def surrogate_argument(kernel, _: float) -> None:
    run = execute(kernel.kc, 'await tools.echo({s: "ab😀".slice(0, 3)})')
    assert run.content["ename"] == "Error" and run.content["evalue"].startswith(SERIALIZE_ERROR)


def surrogate_stored(kernel, _: float) -> None:
    run = execute(kernel.kc, 'store("bad", "ab😀".slice(0, 3))')
    assert run.content["ename"] == "Error" and run.content["evalue"].startswith(SERIALIZE_ERROR)


def surrogate_from_python(kernel, _: float) -> None:
    assert execute(kernel.kc, "text(await tools.surrogate())").stdout == "ab\ufffdcd\n"


def surrogate_printed_by_python(kernel, _: float) -> None:
    assert execute(kernel.kc, "text(await tools.print_surrogate())").stdout == "printed \ufffd here\nok\n"


def tampered_to_json(kernel, _: float) -> None:
    run = execute(kernel.kc, 'Object.prototype.toJSON = () => "P"; text({a: 1}); store("t", {b: 2}); text(load("t"))')
    assert run.stdout == '"P"\nP\n'


def replaced_stringify(kernel, _: float) -> None:
    code = 'JSON.stringify = () => { throw new Error("no") }; text({a: 1}); text(await tools.echo({x: 1}))'
    assert execute(kernel.kc, code).stdout == '{"a":1}\n{"x":1}\n'


def tampered_arrays(kernel, _: float) -> None:
    code = (
        "Array.prototype.map = null; Array.prototype.push = () => 0; Array.prototype[Symbol.iterator] = null;\n"
        "text([1, 2]); text(await tools.echo({a: [1]}))"
    )
    assert execute(kernel.kc, code).stdout == '[1,2]\n{"a":[1]}\n'


def tampered_then(kernel, _: float) -> None:
    code = 'Promise.prototype.then = function () { throw new Error("then") }; text(await tools.echo({}))'
    assert execute(kernel.kc, code).stdout == "{}\n"


def notify_flood(kernel, _: float) -> None:
    _terminated(_interrupt_when(kernel, 'let i = 0; while (true) notify("n" + i++)', _shown("more notifications")))


def text_flood(kernel, _: float) -> None:
    code = (
        '// @exec: {"max_output_tokens": 100000000}\n'
        'let i = 0; while (true) { text("line " + i); if (++i % 5000 === 0) notify("at " + i); }'
    )
    _terminated(_interrupt_when(kernel, code, _shown("at 20000")))


def heap_exhausted(kernel, _: float) -> None:
    run = execute(kernel.kc, 'const a = []; while (true) a.push("x".repeat(1e6))')
    assert (run.content["ename"], run.content["evalue"]) == (
        "RangeError",
        f"out of memory: the cell exceeded its heap limit of {HEAP_BYTES} bytes (maxHeapSizeBytes)",
    )


def blocked_tool_terminated(kernel, _: float) -> None:
    gate = kernel.cwd / "never-opened"
    msg_id = send_execute(kernel.kc, f'// @exec: {{"yield_time_ms": 0}}\nawait tools.blocking({{gate: {str(gate)!r}}})')
    run = collect(kernel.kc, msg_id)
    if not run.of_type("stream"):  # the tool's thread runs once it says so (maybe after the reply)
        wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "stream")
    stopped = execute(kernel.kc, f"%terminate {run.codemode['cell_id']}")
    assert stopped.stdout == f"Cell {run.codemode['cell_id']} was terminated.\n"


def endless_loop_interrupted(kernel, _: float) -> None:
    _terminated(_interrupt_when(kernel, 'notify("spinning"); while (true) {}', _shown("spinning")))


def interrupt_at_random(kernel, delay_s: float) -> None:
    # The cell runs for at least a second; the interrupt comes within its first half second.
    code = 'for (let i = 0; i < 200; i++) { text("tick " + i); await tools.sleep({ms: 5}); }'
    msg_id = send_execute(kernel.kc, code)
    seen = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "execute_input")
    time.sleep(delay_s)  # a random moment of the running cell, not a synchronisation
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, earlier=seen)
    _terminated(run)
    ticks = run.stdout.splitlines()
    assert ticks == [f"tick {i}" for i in range(len(ticks))]


FORGED = '0:null}},"type":"bogus","id":1,"cell_id":"1","x":{"y":{"z"'
"""Text that, spliced into a ``delegate/request`` frame, closed the argument and wrote the
frame's own fields."""


def internals_via_call_sites(kernel, _: float) -> None:
    # Every function a call site hands out is called with a forged frame text: none may be
    # a runtime function (the list stays empty), and the kernel keeps its host.
    code = (
        "const got = [];\n"
        "Error.prepareStackTrace = (e, sites) => sites;\n"
        "const probe = () => { for (const s of new Error().stack) { const f = s.getFunction();"
        " if (typeof f === 'function') got.push(f); } return {ms: 1}; };\n"
        "await tools.sleep({ms: 1, toJSON: probe});\n"
        "Error.prepareStackTrace = undefined;\n"
        f"for (const f of got) await Promise.resolve().then(() => f({json.dumps(FORGED)})).catch(() => {{}});\n"
        "text(JSON.stringify(got.map((f) => f.name)))"
    )
    run = execute(kernel.kc, code)
    assert (run.stdout, run.stderr_messages) == ("[]\n", [])


NO_ONE_ASKED = (
    'ERROR exec_command needs a person\'s approval here (approval_policy = "on-request"), but no one can be asked'
)
PENDING_LIMIT = "code-mode host has too many pending delegate calls (1024, the limit per connection)"


def pending_calls_held(kernel, _: float) -> None:
    holder = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 60000}\n'
        "for (let i = 0; i < 1024; i++) tools.sleep({ms: 600000});\n"
        "yield_control(); await new Promise(() => {});",
    )
    holder_id = holder.codemode["cell_id"]
    other = execute(kernel.kc, "try { await tools.sleep({ms: 1}); } catch (e) { text(e); }")
    # A cell an earlier step left running may hold one of the connection's calls.
    held = re.fullmatch(rf"{re.escape(PENDING_LIMIT)}: cell {re.escape(holder_id)} holds (\d+)\n", other.stdout)
    assert held is not None and int(held[1]) >= 1020, other.stdout
    assert execute(kernel.kc, f"%terminate {holder_id}").stdout == f"Cell {holder_id} was terminated.\n"


def approval_borrowing(kernel, _: float) -> None:
    # A yielded cell asks to leave the sandbox while another cell waits in the foreground,
    # allowing stdin: nothing is asked (the question would show under the foreground cell),
    # nothing runs, the background cell's call is refused.
    opened, done, marker = (kernel.cwd / name for name in ("borrow-opened", "borrow-done", "borrow-ran"))
    for path in (opened, done, marker):
        path.unlink(missing_ok=True)
    escalate = json.dumps({"cmd": f"touch {marker}", "sandbox_permissions": "require_escalated", "justification": "?"})
    background = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 0}\n'
        f"await tools.blocking({{gate: {json.dumps(str(opened))}}});\n"
        f'try {{ await tools.exec_command({escalate}); }} catch (e) {{ text("ERROR " + (e?.message ?? e)); }}\n'
        f"await tools.exec_command({{cmd: {json.dumps(f'touch {done}')}}});",
    )
    assert background.codemode["status"] == "running"
    foreground = send_execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 120000}\n'
        f"await tools.exec_command({{cmd: {json.dumps(f'touch {opened}')}}});\n"
        f'await tools.blocking({{gate: {json.dumps(str(done))}}});\ntext("foreground");',
        allow_stdin=True,
    )
    kind, run = reply_or_question(kernel.kc, foreground)
    assert kind == "done", run["content"]["prompt"]
    assert run.stdout == "blocking\nforeground\n", run.stdout
    waited = execute(kernel.kc, f"%wait {background.codemode['cell_id']}")
    assert waited.stdout.startswith(NO_ONE_ASKED), waited.stdout
    assert not marker.exists()


HUGE_VALUES = 12
HUGE_BYTES = 6 * 2**20
"""12 values of 6 MiB stored in one cell: 72 MiB in all, more than one 64 MiB frame carries."""


def huge_stored(kernel, _: float) -> None:
    # 72 MiB of stored values survive a killed host and come back intact; they are then
    # overwritten with null, so later steps do not carry them.
    keys = f"Array.from({{length: {HUGE_VALUES}}}, (_, i) => 'huge' + i)"
    stored = execute(
        kernel.kc, f"{keys}.forEach((k, i) => store(k, String(i % 10).repeat({HUGE_BYTES}))); text('stored')"
    )
    assert (stored.content["status"], stored.stdout) == ("ok", "stored\n")
    host = runtime_host(kernel)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=30)
    check = (
        f"text({keys}.filter((k, i) => load(k) === String(i % 10).repeat({HUGE_BYTES})).length);"
        f" {keys}.forEach(k => store(k, null))"
    )
    back = execute(kernel.kc, check)
    assert (back.content["status"], back.stdout) == ("ok", f"{HUGE_VALUES}\n")


def yielded_left_running(kernel, _: float) -> None:
    run = execute(kernel.kc, '// @exec: {"yield_time_ms": 0}\nnotify("left running"); await tools.sleep({ms: 600000})')
    assert run.codemode["status"] == "running"


STEPS = {
    f.__name__: f
    for f in (
        surrogate_argument,
        surrogate_stored,
        surrogate_from_python,
        surrogate_printed_by_python,
        tampered_to_json,
        replaced_stringify,
        tampered_arrays,
        tampered_then,
        notify_flood,
        text_flood,
        heap_exhausted,
        blocked_tool_terminated,
        endless_loop_interrupted,
        interrupt_at_random,
        yielded_left_running,
        internals_via_call_sites,
        pending_calls_held,
        approval_borrowing,
        huge_stored,
    )
}


def _check(kernel) -> None:
    started = time.monotonic()
    control = execute(kernel.kc, 'text("control")')
    elapsed_s = time.monotonic() - started
    assert control.stdout == "control\n"
    assert elapsed_s < CONTROL_S, elapsed_s
    stored = execute(kernel.kc, 'text(JSON.stringify({nested: load("nested"), emoji: load("emoji")}))')
    assert json.loads(stored.stdout) == STORED
    lines = execute(kernel.kc, 'for (let i = 0; i < 1000; i++) text("line " + i)')
    assert lines.stdout == "".join(f"line {i}\n" for i in range(1000))


def _hostile_kernel(folder: Path):
    (folder / "hostile_tools.py").write_text(TOOLS)
    (folder / "codemode.toml").write_text(
        f'[session]\nmax_heap_size_bytes = {HEAP_BYTES}\n[python_tools]\nmodules = ["hostile_tools"]\n'
    )
    return start_kernel(folder)


STEP = st.tuples(st.sampled_from(sorted(STEPS)), st.floats(min_value=0.0, max_value=0.5))


@settings(
    max_examples=int(os.environ.get("HOSTILE_EXAMPLES", "4")),
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEP, min_size=4, max_size=6))
@example(steps=[(name, 0.25) for name in STEPS])  # every kind at least once, whatever is drawn
def test_hostile_cells_leave_the_kernel_responsive_and_stored_values_intact(
    codemode_kernelspec, tmp_path_factory, steps
):
    kernel = _hostile_kernel(tmp_path_factory.mktemp("hostile"))
    try:
        stored = execute(kernel.kc, f"const v = {json.dumps(STORED)};\nfor (const k in v) store(k, v[k]);")
        assert stored.content["status"] == "ok"
        _check(kernel)
        for name, delay_s in steps:
            STEPS[name](kernel, delay_s)
            _check(kernel)
    finally:
        stop_kernel(kernel)
