"""A real codemode kernel driven with jupyter_client."""

from __future__ import annotations

import re
import time

import psutil
from kernel_driver import collect, display_update, execute, send_execute, shell_reply, wait_for_iopub


def test_kernel_info_is_javascript_without_subshells(kernel):
    kernel.kc.kernel_info()
    reply = kernel.kc.get_shell_msg(timeout=30)
    info = reply["content"]
    lang = info["language_info"]
    assert (lang["name"], lang["mimetype"], lang["file_extension"]) == ("javascript", "text/javascript", ".js")
    assert lang["codemirror_mode"] == "javascript" and lang["pygments_lexer"] == "javascript"
    assert "kernel subshells" not in info.get("supported_features", [])
    assert info["implementation"] == "codemode"


def test_text_is_one_stdout_line_and_reply_ok(kernel):
    run = execute(kernel.kc, 'text("hi")')
    assert run.content["status"] == "ok"
    assert run.stdout == "hi\n"
    assert run.codemode["status"] == "completed"
    following = execute(kernel.kc, 'text("again")')
    assert int(following.codemode["cell_id"]) == int(run.codemode["cell_id"]) + 1


def test_user_expressions_each_get_an_error_entry_after_a_cell_that_succeeded(kernel):
    """The messaging spec's execute_reply gives each user expression a result or an error;
    codemode evaluates none, and says so for each instead of leaving them out."""
    entry = {
        "status": "error",
        "ename": "NotImplemented",
        "evalue": "codemode does not evaluate user_expressions; run the expression in a cell",
        "traceback": [],
    }
    run = execute(kernel.kc, 'text("x")', user_expressions={"a": "1 + 1", "b": "load('k')"})
    assert (run.content["status"], run.content["user_expressions"]) == ("ok", {"a": entry, "b": entry})
    failed = execute(kernel.kc, 'throw new Error("no")', user_expressions={"a": "1 + 1"})
    assert failed.content["status"] == "error" and not failed.content.get("user_expressions")


def test_wall_time_is_the_time_the_request_took(kernel):
    before = time.monotonic()
    run = execute(kernel.kc, "await tools.sleep({ms: 300})")
    elapsed_ms = (time.monotonic() - before) * 1000
    assert run.codemode["status"] == "completed"
    assert isinstance(run.codemode["wall_time_ms"], int)
    assert 300 <= run.codemode["wall_time_ms"] <= elapsed_ms
    quick_before = time.monotonic()
    quick = execute(kernel.kc, "%cells")
    assert 0 <= quick.codemode["wall_time_ms"] <= (time.monotonic() - quick_before) * 1000


def test_text_items_are_lines_coalesced_into_one_stream_message(kernel):
    run = execute(kernel.kc, 'text("a"); text({b: 1}); text(2)')
    assert run.of_type("stream") == [{"name": "stdout", "text": 'a\n{"b":1}\n2\n'}]


def test_thrown_error_is_one_error_output_and_next_cell_works(kernel):
    run = execute(kernel.kc, 'text("before"); throw new Error("boom")')
    assert run.content["status"] == "error"
    assert (run.content["ename"], run.content["evalue"]) == ("Error", "boom")
    assert len(run.errors) == 1
    assert (run.errors[0]["ename"], run.errors[0]["evalue"]) == ("Error", "boom")
    assert run.errors[0]["traceback"][0] == "Error: boom"
    assert run.stdout == "before\n"
    assert run.codemode["status"] == "failed"
    assert execute(kernel.kc, 'text("next")').stdout == "next\n"


def test_type_error_name_is_kept(kernel):
    run = execute(kernel.kc, "null.x")
    assert run.content["ename"] == "TypeError"


def test_thrown_string_is_an_error_with_that_text(kernel):
    run = execute(kernel.kc, 'throw "plain words"')
    assert (run.content["ename"], run.content["evalue"]) == ("Error", "plain words")


def test_console_fails_as_in_codex_and_the_error_suggests_text(kernel):
    run = execute(kernel.kc, 'text("before");\nconsole.log(1)')
    assert run.stdout == "before\n"
    assert (run.content["ename"], run.content["evalue"]) == ("ReferenceError", "console is not defined")
    (error,) = run.errors
    assert error["traceback"] == [
        "ReferenceError: console is not defined",
        "    at exec_main.mjs:2:1",
        "Hint: cells have no console, as in Codex's code mode; print with text(...), e.g. text(value).",
    ]
    assert run.content["traceback"] == error["traceback"]
    other = execute(kernel.kc, "consol.log(1)")
    assert other.errors[0]["traceback"] == ["ReferenceError: consol is not defined", "    at exec_main.mjs:1:1"]


def test_bad_pragma_shows_codex_text(kernel):
    run = execute(kernel.kc, '// @exec: {"bogus": 1}\ntext(1)')
    assert run.content["status"] == "error"
    assert run.errors[0]["ename"] == "PragmaError"
    assert run.errors[0]["evalue"] == "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `bogus`"


def test_image_becomes_display_data(kernel):
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    run = execute(kernel.kc, f'image("data:image/png;base64,{png}")')
    assert run.content["status"] == "ok"
    (display,) = run.of_type("display_data")
    assert display["data"] == {"image/png": png, "text/plain": "<image image/png, 70 bytes>"}


def test_store_persists_across_cells(kernel):
    assert execute(kernel.kc, 'store("k", {n: 41})').content["status"] == "ok"
    assert execute(kernel.kc, 'text(load("k").n + 1)').stdout == "42\n"


def test_notify_is_shown_while_the_cell_runs(kernel):
    run = execute(kernel.kc, 'notify("heads up"); text("done")')
    notes = [d for d in run.of_type("display_data") if d["metadata"].get("codemode", {}).get("notify")]
    assert [n["data"]["text/plain"] for n in notes] == ["heads up"]
    assert run.stdout == "done\n"


def test_yielded_cell_replies_running_then_wait_shows_done(kernel):
    run = execute(kernel.kc, '// @exec: {"yield_time_ms": 200}\nawait tools.sleep({ms: 2000});\ntext("done")')
    assert run.content["status"] == "ok"
    assert run.codemode["status"] == "running"  # the reply came while the sleep still ran
    cell_id = run.codemode["cell_id"]
    (status,) = run.of_type("display_data")
    assert re.fullmatch(f"codemode-{cell_id}-[0-9a-f]{{12}}", status["transient"]["display_id"])
    plain = status["data"]["text/plain"]
    assert re.fullmatch(
        rf"Cell {cell_id} is running \(\d+\.\d s\)\.\n"
        rf"Tool calls in flight: sleep \(tool-\d+\)\.\n"
        rf"Run %wait {cell_id} to see its output, or interrupt the kernel / run %terminate {cell_id} to stop it\.",
        plain,
    ), plain
    assert status["data"]["text/html"].startswith(f'<div class="codemode-status"><b>Cell {cell_id} is running (')

    waited = execute(kernel.kc, "%wait")
    assert waited.content["status"] == "ok"
    assert waited.stdout == "done\n"
    assert waited.codemode == {**waited.codemode, "cell_id": cell_id, "status": "completed"}
    again = execute(kernel.kc, f"%wait {cell_id}")
    assert again.content["status"] == "error"
    assert f"exec cell {cell_id} not found" in again.errors[0]["evalue"]


def test_a_cell_yields_at_its_yield_time_before_an_event_half_as_late_again(kernel):
    """The initial response comes ``yield_time_ms`` after the execute (Codex's exec yield):
    ordered by events, not timed. The cell's own timer prints at 1.5 x ``yield_time_ms``; a
    yield timer firing later than that (twice as late, say) would answer with the cell
    already completed and both lines. The margin, half a yield time, is 500 ms."""
    run = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 1000}\n'
        'text("before the yield");\n'
        'await new Promise((resolve) => setTimeout(() => { text("at 1.5 yield times"); resolve(); }, 1500));',
    )
    assert (run.codemode["status"], run.stdout) == ("running", "before the yield\n")
    waited = execute(kernel.kc, f"%wait {run.codemode['cell_id']}")
    assert (waited.codemode["status"], waited.stdout) == ("completed", "at 1.5 yield times\n")


def test_wait_that_times_out_delivers_new_output_and_keeps_running(kernel):
    # Ordered by events: the cell yields with yield_control(), prints "b" once the test opens
    # a gate, and says so with a notification; only then does the test wait (and time out).
    gate = kernel.cwd / "gate-wait-times-out"
    run = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 60000}\ntext("a"); yield_control(); '
        f'await tools.exec_command({{cmd: "while [ ! -e {gate} ]; do sleep 0.02; done"}}); '
        'text("b"); notify("b printed"); await tools.sleep({ms: 60000}); text("c")',
    )
    assert run.stdout == "a\n"
    cell_id = run.codemode["cell_id"]
    gate.write_text("open")
    display_update(kernel.kc, run.reply["parent_header"]["msg_id"], "notify: b printed")
    first = execute(kernel.kc, f"%wait {cell_id} --yield-time-ms 200")
    assert first.codemode["status"] == "running"
    assert first.stdout == "b\n"
    cells = execute(kernel.kc, "%cells")
    assert cell_id in cells.stdout
    stopped = execute(kernel.kc, f"%terminate {cell_id}")
    assert stopped.codemode["status"] == "terminated"
    assert "c\n" not in stopped.stdout


def test_interrupt_terminates_the_cell_and_kernel_survives(kernel):
    assert execute(kernel.kc, 'store("before", "kept")').content["status"] == "ok"
    msg_id = send_execute(
        kernel.kc,
        'text("started"); const nap = tools.sleep({ms: 60000}); notify("napping"); await nap; text("never")',
    )
    # The notification leaves the host after the sleep's delegate request: once it is shown,
    # the kernel has the sleep call in hand.
    napping = wait_for_iopub(
        kernel.kc,
        msg_id,
        lambda m: m["msg_type"] == "display_data" and m["content"]["data"].get("text/plain") == "napping",
    )
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, timeout=30, earlier=napping)
    assert run.content["status"] == "error"
    assert run.content["ename"] == "CellTerminated"
    assert run.stdout == "started\n"
    assert run.codemode["status"] == "terminated"
    (sleep,) = [c for c in run.codemode["tool_calls"] if c["tool"] == "sleep"]
    assert sleep["outcome"] == "aborted"  # the dispatcher cancelled the sleep
    assert sleep["handler_ms"] < 60000
    assert kernel.km.is_alive()
    assert execute(kernel.kc, 'text(load("before"))').stdout == "kept\n"


def _wait_for_child(kernel, cmdline: str, timeout: float = 30) -> None:
    """Return once a process of the kernel runs ``cmdline`` (found with psutil)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for proc in psutil.Process(kernel.km.provisioner.pid).children(recursive=True):
            try:
                if " ".join(proc.cmdline()) == cmdline:
                    return
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.05)
    raise AssertionError(f"no child process runs {cmdline!r}")


def test_interrupted_exec_command_is_listed_with_outcome_aborted(kernel):
    msg_id = send_execute(kernel.kc, 'await tools.exec_command({cmd: "sleep 60"}); text("never")')
    _wait_for_child(kernel, "sleep 60")
    kernel.km.interrupt_kernel()
    run = collect(kernel.kc, msg_id, timeout=30)
    assert run.content["ename"] == "CellTerminated"
    assert run.codemode["status"] == "terminated"
    (call,) = run.codemode["tool_calls"]
    assert (call["tool"], call["outcome"], call["success"]) == ("exec_command", "aborted", None)
    assert call["execution_started"] is True


def test_interrupt_during_wait_terminates_the_waited_cell(kernel):
    run = execute(kernel.kc, '// @exec: {"yield_time_ms": 100}\ntext("x"); await tools.sleep({ms: 60000})')
    cell_id = run.codemode["cell_id"]
    msg_id = send_execute(kernel.kc, f"%wait {cell_id} --yield-time-ms 30000")
    # ipykernel publishes execute_input inside the handler, after the kernel's SIGINT handler
    # is in place; an interrupt from then on reaches the %wait even before its work started.
    started = wait_for_iopub(kernel.kc, msg_id, lambda m: m["msg_type"] == "execute_input")
    kernel.km.interrupt_kernel()
    waited = collect(kernel.kc, msg_id, timeout=30, earlier=started)
    assert waited.content["ename"] == "CellTerminated"
    assert waited.codemode["cell_id"] == cell_id
    assert execute(kernel.kc, 'text("alive")').stdout == "alive\n"


def test_magics_errors_and_listings(kernel):
    unknown = execute(kernel.kc, "%frobnicate")
    assert unknown.content["status"] == "error"
    assert unknown.content["ename"] == "UsageError"
    assert (
        unknown.content["evalue"]
        == "Unknown magic %frobnicate; the magics are: %wait, %terminate, %cells, %tools, %config, %recording, %finished."
    )
    tools = execute(kernel.kc, "%tools sleep")
    assert "sleep" in tools.stdout and "declare const tools" in tools.stdout
    config = execute(kernel.kc, "%config")
    assert "yield_time_ms = " in config.stdout
    nothing = execute(kernel.kc, "%terminate 99999")
    assert (nothing.content["status"], nothing.content["ename"]) == ("error", "CellNotFound")
    assert nothing.content["evalue"] == "exec cell 99999 not found"


def test_completion_inspect_and_is_complete(kernel):
    kc = kernel.kc
    # shell_reply, not the next shell message: run first in its module, the kernel_info_reply
    # of the kernel's start is still waiting there.
    code = "await tools.sl"
    reply = shell_reply(kc, kc.complete(code, len(code)), timeout=30)["content"]
    assert "sleep" in reply["matches"]
    reply = shell_reply(kc, kc.inspect("tools.sleep", 8), timeout=30)["content"]
    assert reply["found"] and "declare const tools" in reply["data"]["text/plain"]
    assert shell_reply(kc, kc.is_complete("foo({"), timeout=30)["content"]["status"] == "incomplete"


def test_interrupt_sent_right_after_the_execute_reaches_it(kernel):
    # A harness that interrupts at once: the SIGINT can arrive before ipykernel starts the
    # request's handler (when it would otherwise be ignored); it must still stop this cell.
    for _ in range(3):
        msg_id = send_execute(kernel.kc, 'await tools.sleep({ms: 20000}); text("done")')
        kernel.km.interrupt_kernel()
        run = collect(kernel.kc, msg_id, timeout=30)
        assert run.content["status"] == "error"
        assert run.content["ename"] == "CellTerminated"
        assert "done" not in run.stdout
    assert execute(kernel.kc, 'text("alive")').stdout == "alive\n"


def _notes(run) -> list[str]:
    return [
        d["data"]["text/plain"] for d in run.of_type("display_data") if d["metadata"].get("codemode", {}).get("notify")
    ]


def test_a_cell_whose_only_output_is_notify_always_shows_it(kernel):
    # The notification can reach the kernel before execute returns the new cell's id.
    for i in range(30):
        run = execute(kernel.kc, f'notify("only {i}")')
        assert run.content["status"] == "ok"
        assert _notes(run) == [f"only {i}"], i


def test_several_notifications_of_a_short_cell_all_show_in_order(kernel):
    for i in range(10):
        run = execute(kernel.kc, f'notify("a{i}"); notify("b{i}"); text("t{i}")')
        assert _notes(run) == [f"a{i}", f"b{i}"], i
        assert run.stdout == f"t{i}\n"
