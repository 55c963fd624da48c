"""A saved notebook shows how its yielded cells ended, not a stale "running" status display.

Notebook runners (nbclient, which papermill and ``jupyter nbconvert --execute`` use) read only
the IOPub messages of the cell they are running; the kernel sends a status display's updates
after its cell ended under that request too, or under the next request when the cell ended
between two."""

from __future__ import annotations

from typing import Any

import nbformat
from kernel_driver import collect, display_update, execute, send_execute
from nbclient import NotebookClient

YIELDING = '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 400}); text("late")'


def _status_texts(cell: Any) -> list[str]:
    return [o["data"]["text/plain"] for o in cell["outputs"] if o["output_type"] == "display_data"]


def test_a_notebook_run_by_nbclient_saves_the_end_of_a_yielded_cell(codemode_kernelspec, tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(YIELDING), nbformat.v4.new_code_cell("%wait")]
    NotebookClient(nb, kernel_name="codemode", timeout=60, resources={"metadata": {"path": str(tmp_path)}}).execute()
    (status,) = _status_texts(nb.cells[0])
    assert status.startswith("Cell 1 completed after "), status
    assert status.endswith(" s; its output was shown."), status
    assert [o["text"] for o in nb.cells[1]["outputs"] if o["output_type"] == "stream"] == ["late\n"]


def test_a_cell_that_ended_between_requests_shows_its_end_under_the_next_one(kernel):
    first = execute(kernel.kc, YIELDING)
    assert first.codemode["status"] == "running"
    cell_id = first.codemode["cell_id"]
    parent_id = first.reply["parent_header"]["msg_id"]
    # The end reaches the display's own request while the kernel is idle...
    display_update(kernel.kc, parent_id, f"Cell {cell_id} finished (completed)")
    # ...and the next request (any cell) carries it too, for a runner that reads only that one.
    msg_id = send_execute(kernel.kc, 'text("next")')
    run = collect(kernel.kc, msg_id)
    updates = [m for m in run.messages if m["msg_type"] == "update_display_data"]
    assert [u["content"]["data"]["text/plain"].split(" after ")[0] for u in updates] == [
        f"Cell {cell_id} finished (completed)"
    ]
    assert run.stdout == "next\n"
    assert execute(kernel.kc, f"%wait {cell_id}").stdout == "late\n"
