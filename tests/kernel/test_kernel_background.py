"""Background cells (status display updates, notify) and configuration problems."""

from __future__ import annotations

import re
import time

from kernel_driver import display_update, execute, start_kernel, stop_kernel


def test_status_display_follows_a_background_cell(kernel):
    # Ordered by events: the cell yields with yield_control() and goes on once the test opens a
    # gate, so the notification always comes after the reply, into the status display.
    gate = kernel.cwd / "gate-status-display"
    run = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 60000}\nyield_control();\n'
        f'await tools.exec_command({{cmd: "while [ ! -e {gate} ]; do sleep 0.02; done"}});\n'
        'notify("halfway"); await tools.sleep({ms: 300}); text("end")',
    )
    assert run.codemode["status"] == "running"
    cell_id = run.codemode["cell_id"]
    display_id = run.of_type("display_data")[0]["transient"]["display_id"]
    parent_id = run.reply["parent_header"]["msg_id"]
    gate.write_text("open")
    updates = display_update(kernel.kc, parent_id, "notify: halfway")
    running = updates[-1]["data"]["text/plain"]
    assert re.fullmatch(
        rf"Cell {cell_id} is running \(\d+\.\d s\)\.\n(Tool calls in flight: sleep \(tool-\d+\)\.\n)?"
        rf"Run %wait {cell_id} to see its output, or interrupt the kernel / run %terminate {cell_id} to stop it\.\n"
        r"notify: halfway",
        running,
    ), running
    updates += display_update(kernel.kc, parent_id, "finished (completed)")
    assert all(u["transient"]["display_id"] == display_id for u in updates)
    finished = updates[-1]["data"]["text/plain"]
    assert re.fullmatch(
        rf"Cell {cell_id} finished \(completed\) after \d+\.\d s - run %wait {cell_id} to see its output\.\n"
        r"notify: halfway",
        finished,
    ), finished
    waited = execute(kernel.kc, "%wait")
    assert waited.stdout == "end\n"
    assert waited.codemode["status"] == "completed"


def test_status_display_ids_are_unique_per_cell_and_run(kernel):
    ids = set()
    for _ in range(2):
        run = execute(kernel.kc, '// @exec: {"yield_time_ms": 0}\nawait tools.sleep({ms: 200})')
        ids.add(run.of_type("display_data")[0]["transient"]["display_id"])
        assert execute(kernel.kc, "%wait").content["status"] == "ok"
    assert len(ids) == 2


def test_failed_background_cell_reports_error_at_wait(kernel):
    run = execute(
        kernel.kc, '// @exec: {"yield_time_ms": 0}\nawait tools.sleep({ms: 100}); throw new TypeError("late")'
    )
    assert run.codemode["status"] == "running"
    waited = execute(kernel.kc, f"%wait {run.codemode['cell_id']}")
    assert waited.content["status"] == "error"
    assert (waited.content["ename"], waited.content["evalue"]) == ("TypeError", "late")
    assert waited.codemode["status"] == "failed"


def test_config_problems_are_shown_once(codemode_kernelspec, tmp_path):
    (tmp_path / "codemode.toml").write_text('[session]\nyield_time_ms = "soon"\n')
    kernel = start_kernel(tmp_path)
    try:
        first = execute(kernel.kc, 'text("one")')
        problems = "".join(c["text"] for c in first.of_type("stream") if c["name"] == "stderr")
        assert problems == (
            f"codemode configuration problem: {tmp_path / 'codemode.toml'}: session.yield_time_ms: "
            "must be a non-negative integer, not a string ('soon'); the default is used.\n"
        )  # shown once, not once per source
        assert first.stdout == "one\n"
        second = execute(kernel.kc, 'text("two")')
        assert [c for c in second.of_type("stream") if c["name"] == "stderr"] == []
        assert "yield_time_ms" in execute(kernel.kc, "%tools").stdout
    finally:
        stop_kernel(kernel)


def test_problems_found_at_start_up_show_with_the_first_cell_that_follows(codemode_kernelspec, tmp_path):
    # One problem is known at once (an import), the other only when the server fails to start;
    # a cell that uses no MCP tool does not wait for that, so a later cell shows it.
    (tmp_path / "codemode.toml").write_text(
        '[python_tools]\nmodules = ["no_such_tools_module"]\n'
        '[mcp_servers.broken]\ncommand = "sh"\nargs = ["-c", "sleep 1; exit 3"]\nstartup_timeout_sec = 5\n'
    )
    kernel = start_kernel(tmp_path)
    try:
        others: list = []
        first = execute(kernel.kc, 'text("one")', others=others)
        problems = "".join(first.stderr_messages)
        assert "no_such_tools_module" in problems
        assert first.stdout == "one\n"
        assert "`broken`" in execute(kernel.kc, "%tools", others=others).stdout  # waits for the server
        second = execute(kernel.kc, 'text("two")', others=others)
        assert "`broken`" in "".join(second.stderr_messages) + problems
        assert "no_such_tools_module" not in "".join(second.stderr_messages)
        # The library's log records go to the kernel's log, not to IOPub outside any cell.
        assert [m["content"] for m in others if m["msg_type"] == "stream" and not m["parent_header"]] == []
    finally:
        stop_kernel(kernel)


def test_config_magic_changes_the_default_yield(kernel):
    assert execute(kernel.kc, "%config yield_time_ms=100").content["status"] == "ok"
    try:
        run = execute(kernel.kc, "await tools.sleep({ms: 1500})")
        assert run.codemode["status"] == "running"
        # %wait's default yield is the configured one too, so ask for longer explicitly.
        assert execute(kernel.kc, "%wait --yield-time-ms 5000").codemode["status"] == "completed"
    finally:
        execute(kernel.kc, "%config yield_time_ms=10000")
    refused = execute(kernel.kc, "%config max_heap_size_bytes=1")
    assert refused.content["ename"] == "UsageError"
    too_big = execute(kernel.kc, "%config yield_time_ms=99999999999999999999")
    assert too_big.content["ename"] == "UsageError"
    assert "yield_time_ms = 10000" in execute(kernel.kc, "%config").stdout  # left as it was


def test_status_display_updates_are_rate_bounded(kernel):
    # 300 tool calls after the yield: 600 start/finish events, each a change of the display.
    calls = 300
    run = execute(
        kernel.kc,
        f'// @exec: {{"yield_time_ms": 60000}}\nyield_control();\nfor (let i = 0; i < {calls}; i++) await tools.echo({{i}});',
    )
    started = time.monotonic()
    updates = display_update(kernel.kc, run.reply["parent_header"]["msg_id"], "finished (completed)")
    elapsed_s = time.monotonic() - started
    # At most one refresh per MIN_UPDATE_INTERVAL_S (0.25 s) and the cell's end; the running
    # time's tick (1 s) falls within those.
    assert len(updates) <= elapsed_s / 0.25 + 2, (len(updates), elapsed_s)
    waited = execute(kernel.kc, "%wait")
    assert waited.codemode["status"] == "completed"
    assert len(waited.codemode["tool_calls"]) == calls


def test_yield_control_ends_a_wait_at_once(kernel):
    # The cell yields every 200 ms; a %wait asking for 120 s returns at the next
    # yield_control() (Codex's semantics for a wait), long before the client's 60 s timeout.
    run = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 0}\nfor (let i = 0; ; i++) { await tools.sleep({ms: 200}); text(`tick ${i}`); yield_control(); }',
    )
    cell_id = run.codemode["cell_id"]
    assert run.codemode["status"] == "running"
    for _ in range(2):
        waited = execute(kernel.kc, f"%wait {cell_id} --yield-time-ms 120000")
        assert waited.codemode["status"] == "running"
        ticks = waited.stdout.splitlines()
        assert ticks and all(re.fullmatch(r"tick \d+", t) for t in ticks), ticks
        numbers = [int(t.split()[1]) for t in ticks]
        assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))  # in order, none lost
    assert execute(kernel.kc, f"%terminate {cell_id}").codemode["status"] == "terminated"
