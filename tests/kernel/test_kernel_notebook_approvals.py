"""Approvals in the notebook profile, through a real kernel: a question is asked only for the
cell in the foreground and only for its own calls.

All cells share one JavaScript context, and a function a cell declared outlives it: once that
cell has ended its helpers act for the latest cell still running. Whose code called such a
function (the foreground cell's, or a background cell's promise job) cannot be told, so a call
through an ended cell's helpers may not ask a person; a background cell's own calls cannot ask
either (docs/sandbox.md, "The question"). A file appearing in ``outside`` (under the real home,
which the sandbox does not let commands write) proves a command ran outside the sandbox.
"""

from __future__ import annotations

import json

import pytest
from kernel_driver import answer, collect, execute, reply_or_question, send_execute, start_kernel, stop_kernel

pytestmark = pytest.mark.usefixtures("codemode_kernelspec", "bubblewrap")

LONG_YIELD = '// @exec: {"yield_time_ms": 120000}\n'
"""Keeps a cell's execute in the foreground until it ends (a question comes only under it)."""

DECLARATIONS = """
let release, done;
const gate = new Promise((r) => { release = r; });
const finished = new Promise((r) => { done = r; });
function escalated(t, path) {
  return t.exec_command({ cmd: `echo ok > ${path}`, sandbox_permissions: "require_escalated", justification: "needed" });
}
async function escalate(path) { return escalated(tools, path); }
async function sh(cmd) { return (await tools.exec_command({ cmd })).output; }
function leave() {
  return tools.exec_command({ cmd: "true", get justification() { exit(); } });
}
globalThis.kept = tools;
"""
"""The first cell's declarations: helpers that call its ``tools`` (``escalate``, ``sh``, the
stashed ``kept``), one that takes the caller's (``escalated``), one whose argument runs
``exit()`` while its helper serialises it (``leave``), and two gates between cells."""


def printing(expression: str) -> str:
    """A cell statement printing the awaited JSON of ``expression``, or ``ERROR`` and the error."""
    return f"try {{ text(JSON.stringify(await {expression})); }} catch (e) {{ text('ERROR ' + (e?.message ?? e)); }}"


def ended_cell_refusal(cell: str) -> str:
    return (
        'ERROR exec_command needs a person\'s approval here (approval_policy = "on-request"), but the call came '
        f"through a function that cell {cell} declared, and cell {cell} has ended: such a call cannot ask, since "
        "the cells share one context and which running cell called the function cannot be told. The command "
        "was not run. Call tools.exec_command in the cell that needs it, or give the function that cell's tools "
        "(f(tools)), or run the command inside the sandbox."
    )


NO_ONE_TO_ASK = (
    'ERROR exec_command needs a person\'s approval here (approval_policy = "on-request"), but no one can be '
    "asked: only a cell run by a front end that allows input (stdin) can ask, and nbclient, papermill, nbval "
    "and most harnesses do not, nor can a cell that runs in the background. The command was not run. Run it "
    "inside the sandbox, or change approval_policy or sandbox_mode in codemode.toml."
)


@pytest.fixture(scope="module")
def notebook(codemode_kernelspec, tmp_path_factory):
    """A notebook-profile kernel whose first cell ran :data:`DECLARATIONS`; yields the kernel and
    that cell's id."""
    kernel = start_kernel(tmp_path_factory.mktemp("notebook-approvals"), {"CODEMODE_PROFILE": "notebook"})
    try:
        first = execute(kernel.kc, DECLARATIONS)
        assert first.errors == [] and first.codemode["status"] == "completed"
        yield kernel, first.codemode["cell_id"]
    finally:
        stop_kernel(kernel)


def run_foreground(kc, code: str):
    return reply_or_question(kc, send_execute(kc, LONG_YIELD + code, allow_stdin=True))


def escalate_in_the_background(kc, expression: str, gate: str, finished: str):
    """A cell yields, waits for ``gate``, then prints ``expression`` awaited and resolves
    ``finished``; meanwhile a cell in the foreground (allowing stdin) opens the gate and waits for
    ``finished``. The foreground cell must end without a question; returns the ``%wait`` of the
    background cell."""
    background = execute(
        kc,
        f"yield_control();\nawait {gate};\ntry {{\n  " + printing(expression) + "\n} finally {\n  done();\n}",
    )
    assert background.codemode["status"] == "running"
    kind, foreground = run_foreground(kc, f'release();\nawait {finished};\ntext("foreground done");')
    assert kind == "done", f"asked: {foreground['content']['prompt']}"
    assert foreground.stdout == "foreground done\n"
    return execute(kc, f"%wait {background.codemode['cell_id']}")


def test_a_background_cell_calling_an_ended_cells_function_cannot_borrow_the_foreground_question(notebook, outside):
    """The issue's case: cell B yields, then calls ``escalate`` (declared by the ended first cell)
    while cell C waits in the foreground, allowing stdin. The helper acts for C, the latest
    running cell: before the fix it asked under C's execute, naming C, and ``y`` ran it."""
    kernel, declaring = notebook
    waited = escalate_in_the_background(kernel.kc, f'escalate("{outside}/borrowed.txt")', "gate", "finished")
    assert waited.stdout == ended_cell_refusal(declaring) + "\n"
    assert list(outside.iterdir()) == []


def test_a_foreground_cell_calling_an_ended_cells_function_cannot_ask_either(notebook, outside):
    """The context cannot tell it from the case above: the ended cell's helpers, even when the
    foreground cell's own code calls them (directly or through a stashed ``tools``)."""
    kernel, declaring = notebook
    for expression in (f'escalate("{outside}/direct.txt")', f'escalated(kept, "{outside}/kept.txt")'):
        kind, done = run_foreground(kernel.kc, printing(expression))
        assert kind == "done", f"asked: {done['content']['prompt']}"
        assert done.stdout == ended_cell_refusal(declaring) + "\n"
    assert list(outside.iterdir()) == []


def test_the_running_cells_own_tools_ask_in_its_name_and_unescalated_calls_still_run(notebook, outside):
    """What stays: an ended cell's function given the caller's ``tools`` asks for the caller,
    and a call through an ended cell's helpers that needs no approval runs (for the running cell)."""
    kernel, _ = notebook
    msg_id = send_execute(kernel.kc, LONG_YIELD + printing(f'escalated(tools, "{outside}/own.txt")'), allow_stdin=True)
    kind, question = reply_or_question(kernel.kc, msg_id)
    assert kind == "asked"
    assert question["parent_header"]["msg_id"] == msg_id
    cell_id = question["content"]["prompt"].split(" ", 2)[1]
    assert question["content"]["prompt"].startswith(f"Cell {cell_id} asks to run a command outside the sandbox:\n")
    answer(kernel.kc, question, "y")
    done = collect(kernel.kc, msg_id)
    assert json.loads(done.stdout)["exit_code"] == 0
    assert done.codemode["cell_id"] == cell_id
    assert (outside / "own.txt").read_text() == "ok\n"
    assert execute(kernel.kc, printing('sh("echo still runs")')).stdout == '"still runs\\n"\n'


def test_an_interrupted_helper_of_an_ended_cell_does_not_mark_later_calls(notebook, outside):
    """``exit()`` run while a helper of the ended cell serialises its argument stops the cell's
    JavaScript without running ``finally``: the next cell's own escalation must still ask (before
    the realm forgot the ended caller, it was refused as a call through the ended cell)."""
    kernel, _ = notebook
    left = execute(kernel.kc, "await leave();\ntext('not reached');")
    assert left.stdout == "" and left.codemode["status"] == "completed"
    msg_id = send_execute(
        kernel.kc, LONG_YIELD + printing(f'escalated(tools, "{outside}/after.txt")'), allow_stdin=True
    )
    kind, question = reply_or_question(kernel.kc, msg_id)
    assert kind == "asked", question.stdout
    answer(kernel.kc, question, "n")
    assert collect(kernel.kc, msg_id).stdout == "ERROR exec command rejected by user\n"
    assert list(outside.iterdir()) == []


def test_a_background_cells_own_escalation_is_refused(notebook, outside):
    """The docs' promise: a cell in the background cannot ask, even with its own ``tools``, while
    another cell waits in the foreground allowing stdin."""
    kernel, _ = notebook
    gates = "let gate2 = new Promise((r) => { release = r; });\nlet finished2 = new Promise((r) => { done = r; });"
    assert execute(kernel.kc, gates).errors == []
    waited = escalate_in_the_background(
        kernel.kc, f'escalated(tools, "{outside}/background.txt")', "gate2", "finished2"
    )
    assert waited.stdout == NO_ONE_TO_ASK + "\n"
    assert list(outside.iterdir()) == []
