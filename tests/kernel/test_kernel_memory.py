"""A closed cell keeps a small summary only: the kernel does not grow with the output it showed."""

from __future__ import annotations

import psutil
import pytest
from kernel_driver import execute

from codemode.kernel.cells import MAX_CLOSED_RECORDS, CellRecord, StatusDisplay
from codemode.kernel.state import KernelState
from codemode.responses import RuntimeResponse

pytestmark = pytest.mark.timeout(300)

CELL_MB = 5
"""Output of each cell (megabytes of text); the default budget shows about 40 KB of it."""


def test_ten_large_outputs_do_not_stay_in_the_kernel(kernel):
    code = f'const line = "x".repeat(999); for (let i = 0; i < {CELL_MB * 1000}; i++) text(line);'
    kernel_process = psutil.Process(kernel.km.provisioner.pid)
    first = execute(kernel.kc, code, timeout=120)  # the first one also warms the kernel up
    assert first.stdout.startswith("Warning: truncated output (original token count: 1250000)\n")
    before = kernel_process.memory_info().rss
    for _ in range(10):
        assert execute(kernel.kc, code, timeout=120).content["status"] == "ok"
    grown_mb = (kernel_process.memory_info().rss - before) / 1e6
    # Keeping even one copy of the ten outputs costs 10 * CELL_MB = 50 MB (measured: 72 MB when
    # records kept their output). Half of that leaves room for the allocator keeping one
    # cell's transient peak; a kernel that forgets the output grows by about 5 MB.
    assert grown_mb < 10 * CELL_MB / 2, grown_mb


@pytest.mark.unit
def test_a_closed_record_keeps_no_output():
    parent = {"header": {"msg_id": "m1", "msg_type": "execute_request"}, "content": {"code": "x" * 10_000}}
    record = CellRecord("7", parent, 3, max_output_tokens=100)
    record.displays.append(StatusDisplay("codemode-7-abc", parent))
    record.buffer.append({"type": "input_text", "text": "y" * 10_000})
    record.notify("z" * 1000)
    record.finish(
        RuntimeResponse("Result", "7", [{"type": "input_text", "text": "w" * 10_000}], "Error: " + "e" * 10_000)
    )
    assert record.final is not None and record.final.content_items == []
    record.close()
    assert record.state == "closed" and not record.live
    assert record.outcome() == "failed"
    assert (record.buffer, record.notifications, record.in_flight) == ([], [], {})
    assert record.final is not None
    assert (record.final.kind, record.final.content_items, record.final.error_text) == ("Result", [], "")
    assert record.parent == {}
    header = {"header": {"msg_id": "m1", "msg_type": "execute_request"}}
    assert [(d.display_id, d.parent) for d in record.displays] == [("codemode-7-abc", header)]


@pytest.mark.unit
def test_only_the_latest_closed_records_are_kept():
    state = KernelState()
    running = CellRecord("running", {"header": {}}, 1)
    state.cells["running"] = running
    for n in range(MAX_CLOSED_RECORDS + 5):
        record = CellRecord(str(n), {"header": {}}, n)
        state.cells[record.cell_id] = record
        record.finish(RuntimeResponse("Result", record.cell_id, []))
        state.close(record)
    closed = [r.cell_id for r in state.cells.values() if not r.live]
    assert closed == [str(n) for n in range(5, MAX_CLOSED_RECORDS + 5)]
    assert state.cells["running"] is running


@pytest.mark.unit
def test_the_records_closed_longest_ago_are_forgotten_first():
    """A cell that ran long is closed after cells started later: it is kept over them."""
    state = KernelState()
    long_running = CellRecord("long", {"header": {}}, 0)
    state.cells["long"] = long_running
    for n in range(MAX_CLOSED_RECORDS):
        record = CellRecord(str(n), {"header": {}}, n + 1)
        state.cells[record.cell_id] = record
        record.finish(RuntimeResponse("Result", record.cell_id, []))
        state.close(record)
    long_running.finish(RuntimeResponse("Result", "long", []))
    state.close(long_running)
    assert "long" in state.cells and "0" not in state.cells
    assert len([r for r in state.cells.values() if not r.live]) == MAX_CLOSED_RECORDS
