"""Tool calls made through an ended cell's helpers in the notebook profile, through a real kernel.

All cells share one JavaScript context; a function a cell declared outlives it, and once that
cell has ended its helpers act for the latest cell still running. A call made so is counted
against that cell: when that cell ends, the host cancels it with the cell's other calls, and its
promise (which another cell may await) is rejected with an error naming the call and the cell,
rather than never settling (docs/profiles.md, "Functions of ended cells").
"""

from __future__ import annotations

import pytest
from kernel_driver import execute, start_kernel, stop_kernel

pytestmark = pytest.mark.usefixtures("codemode_kernelspec")

DECLARATIONS = """
let release, called, done, gate, made, finished;
function rig() {
  gate = new Promise((r) => { release = r; });
  made = new Promise((r) => { called = r; });
  finished = new Promise((r) => { done = r; });
}
async function flood(n) {
  const ps = [];
  for (let i = 0; i < n; i++) ps.push(tools.sleep({ ms: 60000 }));
  called();
  await Promise.all(ps);
  return "done " + n;
}
"""
"""The first cell's declarations: the issue's ``flood`` (its sleeps long enough to be
outstanding when the cell they are counted against ends; ``made`` tells they were made), and
gates between cells, made anew by ``rig()``."""

WAIT = " --yield-time-ms 30000"
"""Long enough for a cell that can end to have ended (a hung cell still reads as running)."""


@pytest.fixture(scope="module")
def notebook(codemode_kernelspec, tmp_path_factory):
    """A notebook-profile kernel whose first cell ran :data:`DECLARATIONS`; yields the kernel's
    client and that cell's id."""
    kernel = start_kernel(tmp_path_factory.mktemp("notebook-ended-calls"), {"CODEMODE_PROFILE": "notebook"})
    try:
        first = execute(kernel.kc, DECLARATIONS)
        assert first.errors == [] and first.codemode["status"] == "completed"
        yield kernel.kc, first.codemode["cell_id"]
    finally:
        stop_kernel(kernel)


def cancelled(tool: str, cell: str, declaring: str) -> str:
    return (
        f"tools.{tool} was cancelled: cell {cell}, which it was made for (through functions cell {declaring} "
        "declared), ended before it was answered"
    )


def flood_in_the_background(kc, n: int, foreground_code: str):
    """Cell B yields, waits for the gate, prints ``flood(n)`` awaited (or ``ERROR`` and the error)
    and resolves ``finished``; then cell C runs ``foreground_code`` in the foreground. Returns C's
    execution and B's ``%wait``."""
    assert execute(kc, "rig();").errors == []
    background = execute(
        kc,
        "yield_control();\nawait gate;\n"
        f"try {{ text(await flood({n})); }} catch (e) {{ text('ERROR ' + e); }} finally {{ done(); }}",
    )
    assert background.codemode["status"] == "running"
    foreground = execute(kc, foreground_code)
    return foreground, execute(kc, f"%wait {background.codemode['cell_id']}{WAIT}")


@pytest.mark.parametrize(
    "ending",
    ['text("foreground done");', 'text("foreground done");\nexit();'],
    ids=["completes", "exits"],
)
def test_a_background_cell_awaiting_calls_counted_against_an_ended_cell_ends(notebook, ending):
    """The issue's case: cell B yields and calls ``flood`` (the first cell's) while cell C runs in
    the foreground; the sleeps are counted against C, which ends (completes, or runs ``exit()``)
    before they are answered. Before the fix B never ended: its promises waited for answers the
    host had cancelled with C's calls."""
    kc, declaring = notebook
    foreground, waited = flood_in_the_background(kc, 3, "release();\nawait made;\n" + ending)
    assert foreground.stdout == "foreground done\n"
    assert waited.stdout == "ERROR " + cancelled("sleep", foreground.codemode["cell_id"], declaring) + "\n"
    assert waited.codemode["status"] == "completed"


def test_the_pending_limit_names_the_calls_made_through_an_ended_cells_functions(notebook):
    """The issue's ``flood(1024)``: the refusal named cell C as holding the calls, which came
    from B's code through the first cell's function; it now says so."""
    kc, declaring = notebook
    foreground, waited = flood_in_the_background(kc, 1025, "release();\nawait finished;")
    cell = foreground.codemode["cell_id"]
    assert waited.stdout == (
        "ERROR code-mode host has too many pending delegate calls (1024, the limit per connection): "
        f"cell {cell} (through functions cell {declaring} declared) holds 1024\n"
    )


@pytest.mark.parametrize(
    "spin",
    ["setTimeout(() => {name}(), 0);", "Promise.resolve().then(() => {name}());"],
    ids=["timer", "promise-job"],
)
def test_a_function_named_like_another_cells_body_does_not_end_it_when_interrupted(notebook, spin):
    """The issue's case: cell B declares a function named as cell A's body (``__cm_cell$<A>``)
    and loops in it (from a timer, or a promise job); terminating B interrupted the loop, and the
    realm, reading the name in the interrupt's stack, ended A with "interrupted: this cell's
    JavaScript was running when cell B was terminated", although A was only awaiting."""
    kc, _ = notebook
    assert execute(kc, "rig();").errors == []
    waiting = execute(kc, 'yield_control();\nawait gate;\ntext("A goes on");')
    assert waiting.codemode["status"] == "running"
    name = "__cm_cell$" + waiting.codemode["cell_id"]
    spinning = execute(
        kc,
        f"function {name}() {{ while (true) {{}} }}\nyield_control();\n"
        + spin.format(name=name)
        + "\nawait new Promise(() => {});",
    )
    assert spinning.codemode["status"] == "running"
    execute(kc, f"%terminate {spinning.codemode['cell_id']}")
    assert execute(kc, "release();").errors == []
    waited = execute(kc, f"%wait {waiting.codemode['cell_id']}{WAIT}")
    assert (waited.stdout, waited.codemode["status"]) == ("A goes on\n", "completed")
