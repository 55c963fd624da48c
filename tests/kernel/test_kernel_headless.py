"""Headless requests (``allow_stdin`` false): a cell that did not ask to yield runs to its end.

The kernel's ``codemode.toml`` makes the default yield short (300 ms) and clamps every
observation at 400 ms, so a cell sleeping 1.2 s outlives its first answer and the kernel's
waits after it (:mod:`codemode.kernel.headless`). The same cell sent with ``allow_stdin``
true (JupyterLab, ``jupyter console``) yields as before.
"""

from __future__ import annotations

import pytest
from kernel_driver import collect, execute, send_execute, start_kernel, stop_kernel, wait_for_iopub

pytestmark = pytest.mark.timeout(120)

SLOW = 'text("start");\nawait tools.sleep({ms: 1200});\nstore("answer", 42);\ntext("done");'


def wait_to_end(kc, cell_id: str) -> str:
    """Interactive ``%wait`` on ``cell_id`` (each clamped at 400 ms) until it ends; what they
    printed."""
    printed = ""
    for _ in range(50):
        waited = execute(kc, f"%wait {cell_id}", allow_stdin=True)
        printed += waited.stdout
        if waited.codemode["status"] != "running":
            return printed
    raise AssertionError(f"cell {cell_id} still runs after 50 waits")


@pytest.fixture(scope="module")
def short_yield_kernel(codemode_kernelspec, tmp_path_factory):
    folder = tmp_path_factory.mktemp("headless")
    (folder / "codemode.toml").write_text("[session]\nyield_time_ms = 300\nmax_yield_time_ms = 400\n")
    kernel = start_kernel(folder)
    yield kernel
    stop_kernel(kernel)


def test_a_headless_cell_runs_to_its_end_past_every_yield(short_yield_kernel):
    kc = short_yield_kernel.kc
    done = execute(kc, SLOW, allow_stdin=False)
    assert done.content["status"] == "ok", done.content
    assert done.codemode["status"] == "completed"
    assert done.stdout == "start\ndone\n"
    assert "still_running" not in done.codemode
    assert not done.of_type("display_data")  # no status display: the cell never yielded
    loaded = execute(kc, 'text(load("answer"))', allow_stdin=False)
    assert loaded.stdout == "42\n"


def test_an_interactive_cell_still_yields(short_yield_kernel):
    kc = short_yield_kernel.kc
    yielded = execute(kc, SLOW.replace("42", "43"), allow_stdin=True)
    assert yielded.codemode["status"] == "running"
    assert yielded.stdout == "start\n"
    assert "still_running" not in yielded.codemode  # only headless replies list them
    assert wait_to_end(kc, yielded.codemode["cell_id"]) == "done\n"


@pytest.mark.parametrize(
    "how",
    [
        '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 1200});',
        "yield_control();\nawait tools.sleep({ms: 1200});",
    ],
    ids=["pragma", "yield_control"],
)
def test_a_headless_cell_that_asks_to_yield_yields_and_is_named_until_it_ends(short_yield_kernel, how):
    kc = short_yield_kernel.kc
    yielded = execute(kc, how + '\ntext("late");', allow_stdin=False)
    assert yielded.codemode["status"] == "running"
    cell_id, count = yielded.codemode["cell_id"], yielded.reply["content"]["execution_count"]
    first = how.splitlines()[1 if how.startswith("//") else 0]
    entry = {"cell_id": cell_id, "execution_count": count, "first_line": first}
    assert yielded.codemode["still_running"] == [entry]

    check = execute(kc, "%finished", allow_stdin=False)
    assert check.content["status"] == "error"
    assert check.content["ename"] == "CellsStillRunning"
    assert check.content["evalue"] == (
        f"cell {cell_id} (In [{count}]: `{first}`) yielded and was still running when the notebook's last "
        f"cell had run. Wait for it in a later cell (%wait {cell_id}), or let the cell run to its end: no "
        "yield_time_ms in its pragma, no yield_control()."
    )
    assert check.codemode["still_running"] == [entry]

    # A headless %wait that names no time waits for the end, past every clamped observation.
    waited = execute(kc, f"%wait {cell_id}", allow_stdin=False)
    assert waited.codemode["status"] == "completed"
    assert waited.stdout == "late\n"
    assert "still_running" not in waited.codemode
    assert execute(kc, "%finished", allow_stdin=False).content["status"] == "ok"


def test_an_interrupt_terminates_a_headless_cell_past_its_first_answer(short_yield_kernel):
    """The output of the clamped first answer is shown under the request; the interrupt that
    comes while the kernel waits for more terminates the cell (``CellTerminated``)."""
    kernel = short_yield_kernel
    msg_id = send_execute(
        kernel.kc, 'text("start");\nawait tools.sleep({ms: 60000});\ntext("never");', allow_stdin=False
    )
    earlier = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "stream")
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, earlier=earlier)
    assert run.content["ename"] == "CellTerminated"
    assert run.codemode["status"] == "terminated"
    assert run.stdout == "start\n"
    assert "still_running" not in run.codemode


SHUTDOWN_LOG = "shut down while yielded cells still ran"


@pytest.mark.parametrize(
    ("code", "logged"),
    [
        ('text("start");\nawait tools.sleep({ms: 60000});', ""),
        (
            '// @exec: {"yield_time_ms": 100}\ntext("start");\nawait tools.sleep({ms: 60000});',
            ' (In [1]: `text("start");`)',
        ),
    ],
    ids=["running-to-its-end", "yielded"],
)
def test_a_shutdown_logs_only_the_cells_that_yielded(codemode_kernelspec, tmp_path, code, logged):
    """A kernel shut down while a headless cell runs to its end (a runner stopped by Ctrl-C or
    its time limit) does not call that cell yielded in its log; one that yielded is named."""
    (tmp_path / "codemode.toml").write_text("[session]\nyield_time_ms = 300\nmax_yield_time_ms = 400\n")
    log = tmp_path / "kernel.log"
    with log.open("wb") as stderr:
        kernel = start_kernel(tmp_path, stderr=stderr)
        msg_id = send_execute(kernel.kc, code, allow_stdin=False)
        wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "stream")
        if logged:
            assert collect(kernel.kc, msg_id).codemode["status"] == "running"
        stop_kernel(kernel)
    lines = [line for line in log.read_text().splitlines() if SHUTDOWN_LOG in line]
    if logged:
        assert len(lines) == 1 and lines[0].endswith(f"{SHUTDOWN_LOG}: cell 1{logged}"), lines
    else:
        assert lines == []
