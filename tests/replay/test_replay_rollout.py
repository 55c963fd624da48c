"""Reading real Codex session files (``tests/replay/sessions/``, see its README) into records,
and reading bad copies of them: a cut last line, a corrupt line, unknown line types, an output
written as one string (older Codex), files that are not sessions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codemode.replay.rollout import (
    CallResult,
    ExecCall,
    LineProblem,
    ModelMessage,
    NestedToolCall,
    NotASessionError,
    Notify,
    Process,
    Reasoning,
    Truncation,
    Turn,
    UserPrompt,
    WaitArguments,
    WaitCall,
    read_session,
)

pytestmark = pytest.mark.unit

SESSIONS = Path(__file__).resolve().parent / "sessions"
S02C = SESSIONS / "s02c_wait_terminate.jsonl"
S04 = SESSIONS / "s04_notify.jsonl"
S07 = SESSIONS / "s07_long_session.jsonl"


def lines_of(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def copy_with(tmp_path: Path, source: Path, lines: list[str], name: str | None = None) -> Path:
    target = tmp_path / (name or source.name)
    target.write_text("".join(lines), encoding="utf-8")
    return target


def kinds(session) -> list[str]:
    return [type(r).__name__ for r in session.records]


def test_meta_calls_results_and_waits_of_a_terminated_cell():
    session = read_session(S02C)
    assert session.meta.session_id == "01a250f8-6f5b-7863-a169-47d8ef72bc3a"
    assert session.meta.codex_version == "0.171.0"
    assert session.meta.cwd == "<tmp>/work"
    assert session.meta.started_at == "2026-12-07T14:46:28.452Z"
    assert session.lines == 34
    assert session.problems == ()
    assert session.skipped == {}
    assert kinds(session) == [
        "Process",
        "Turn",
        "UserPrompt",
        "ExecCall",
        "WaitCall",
        "WaitCall",
        "WaitCall",
        "ModelMessage",
    ]
    exec_call = session.execs[0]
    assert exec_call.call_id == "call_exec_1"
    assert exec_call.source == (
        '// @exec: {"yield_time_ms": 300}\ntext("tick 0");\nfor (let i = 1; ; i++) {\n'
        '  await new Promise(r => setTimeout(r, 200));\n  if (i % 5 === 0) text("tick " + i);\n}\n'
    )
    assert (exec_call.cell_id, exec_call.process, exec_call.time, exec_call.line) == (
        "1",
        1,
        "2026-12-07T14:46:28.554Z",
        14,
    )
    assert exec_call.result == CallResult(
        status="running",
        cell_id="1",
        wall_time_s=0.3,
        items=({"type": "input_text", "text": "tick 0"},),
        truncation=None,
        error=None,
        output=[
            {"type": "input_text", "text": "Script running with cell ID 1\nWall time 0.3 seconds\nOutput:\n"},
            {"type": "input_text", "text": "tick 0"},
        ],
        time="2026-12-07T14:46:28.868Z",
        line=16,
    )
    terminate, closed, unknown = session.waits
    assert terminate.arguments == '{"cell_id": "1", "yield_time_ms": 700, "terminate": true}'
    assert terminate.parsed == WaitArguments("1", 700, None, True)
    assert terminate.target == "call_exec_1"
    assert terminate.result is not None
    assert (terminate.result.status, terminate.result.output) == (
        "terminated",
        "Script terminated\nWall time 0.0 seconds\nOutput:\n",
    )
    assert (closed.target, closed.result and closed.result.error) == ("call_exec_1", "exec cell 1 not found")
    assert unknown.parsed == WaitArguments("no-such-cell", 500, None, False)
    assert unknown.target is None
    assert unknown.result is not None
    assert (unknown.result.status, unknown.result.error, unknown.result.items) == (
        "failed",
        "exec cell no-such-cell not found",
        (),
    )
    prompt = session.records[2]
    assert prompt == UserPrompt(
        "Start an endless script, then stop it.", "01a250f8-6f73-79d3-919a-81c5ffccdb84", "2026-12-07T14:46:28.528Z", 12
    )
    assert session.records[-1] == ModelMessage(
        "Stopped the endless script.", None, "01a250f8-6f73-79d3-919a-81c5ffccdb84", "2026-12-07T14:46:29.034Z", 31
    )


def test_notifies_are_records_of_their_exec_in_file_order():
    session = read_session(S04)
    notes = [(r.call_id, r.text, r.line) for r in session.records if isinstance(r, Notify)]
    assert notes == [
        ("call_exec_1", "progress: 1 of 2", 18),
        ("call_exec_1", '{"step":2,"of":2}', 19),
        ("call_exec_2", "about to sleep", 24),
        ("call_exec_2", "woke up", 29),
    ]
    first = session.execs[0].result
    assert first is not None
    assert first.items == (
        {"type": "input_text", "text": "first text item"},
        {"type": "input_text", "text": "last text item"},
    )
    assert kinds(session)[3:] == [
        "ExecCall",
        "Notify",
        "Notify",
        "ExecCall",
        "Notify",
        "WaitCall",
        "Notify",
        "ModelMessage",
    ]


def test_a_resumed_session_restarts_cell_ids_in_its_second_process():
    session = read_session(S07)
    processes = [r for r in session.records if isinstance(r, Process)]
    assert processes == [Process(1, "2026-12-07T14:46:37.371Z", 1), Process(2, "2026-12-07T14:46:40.691Z", 55)]
    assert session.cells == {
        1: {"1": "call_exec_3", "2": "call_exec_4", "3": "call_exec_5", "4": "call_exec_7", "5": "call_exec_8"},
        2: {"1": "call_exec_10", "2": "call_exec_11", "3": "call_exec_13", "4": "call_exec_15"},
    }
    assert [(w.parsed.cell_id, w.process, w.target) for w in session.waits] == [
        ("3", 1, "call_exec_5"),
        ("2", 2, "call_exec_11"),
        ("3", 2, "call_exec_13"),
    ]
    turns = [r for r in session.records if isinstance(r, Turn)]
    assert [(t.index, t.line) for t in turns] == [(1, 2), (2, 56)]
    reasoning = [r for r in session.records if isinstance(r, Reasoning)]
    assert [r.text for r in reasoning] == ["**Inspecting the folder**\n\nI'll list the tools and the folder first."]
    phases = [r.phase for r in session.records if isinstance(r, ModelMessage)]
    assert phases == ["commentary", "final_answer", "final_answer"]
    failed = session.execs[3].result
    assert failed is not None
    assert (failed.status, failed.error) == (
        "failed",
        "Error: notes/missing.md does not exist\n    at exec_main.mjs:3:30",
    )


def test_nested_tool_calls_keep_order_time_and_the_call_then_pending():
    session = read_session(S07)
    nested = session.nested_tool_calls
    assert [(n.kind, n.pending_call_id, n.line) for n in nested] == [
        ("CommandExecution", "call_exec_3", 20),
        ("FileChange", "call_exec_4", 25),
        ("CommandExecution", "call_exec_4", 26),
        ("McpToolCall", "call_exec_5", 31),
        ("CommandExecution", "call_wait_6", 37),
        ("CommandExecution", "call_wait_6", 38),
        ("CommandExecution", "call_exec_7", 43),
        ("FileChange", "call_exec_10", 62),
        ("CommandExecution", "call_exec_10", 63),
        ("CommandExecution", "call_wait_12", 72),
        ("McpToolCall", "call_exec_15", 85),
    ]
    mcp = nested[3]
    assert (mcp.item["server"], mcp.item["tool"], mcp.item["arguments"]) == ("everything", "get-sum", {"a": 40, "b": 2})
    assert (mcp.time, mcp.turn_id) == ("2026-12-07T14:46:38.641Z", "01a250f8-9205-7ff0-937b-75450a116705")
    assert isinstance(mcp.started_at_ms, int) and mcp.completed_at_ms is not None
    assert mcp.completed_at_ms >= mcp.started_at_ms


def test_the_truncation_warning_is_read_from_exec_and_wait_outputs():
    session = read_session(SESSIONS / "s09_output_truncation.jsonl")
    exec_result = session.execs[0].result
    wait = session.waits[0]
    assert exec_result is not None and wait.result is not None
    assert exec_result.truncation == Truncation(2523, 200)
    assert wait.result.truncation == Truncation(1252, 2)
    assert wait.parsed == WaitArguments("2", 5000, 50, False)


def test_a_cut_last_line_is_named_and_the_rest_reads(tmp_path):
    lines = lines_of(S04)
    cut = lines[:28] + [lines[28][:40]]  # line 29, the notify "woke up", cut inside
    session = read_session(copy_with(tmp_path, S04, cut))
    assert session.problems == (
        LineProblem(29, "the file ends inside this line (cut short, perhaps still being written)"),
    )
    assert [r.text for r in session.records if isinstance(r, Notify)] == [
        "progress: 1 of 2",
        '{"step":2,"of":2}',
        "about to sleep",
    ]
    assert session.waits[0].result is not None


def test_a_corrupt_line_in_the_middle_is_named_and_the_rest_reads(tmp_path):
    lines = lines_of(S04)
    lines[15] = lines[15][:100] + "\n"  # line 16: exec 1's output, cut in the middle of the file
    session = read_session(copy_with(tmp_path, S04, lines))
    assert session.problems == (LineProblem(16, "not valid JSON (it ends too early)"),)
    first, second = session.execs
    assert first.result is None
    assert second.result is not None and second.result.cell_id == "2"
    assert session.waits[0].target == "call_exec_2"
    assert kinds(session)[-1] == "ModelMessage"


def test_a_line_that_is_json_but_not_an_object_is_named(tmp_path):
    lines = lines_of(S04)
    lines.insert(20, "[1, 2]\n")
    session = read_session(copy_with(tmp_path, S04, lines))
    assert session.problems == (LineProblem(21, "a JSON value that is not an object"),)
    assert len(session.execs) == 2


def test_unknown_line_types_are_skipped_and_counted(tmp_path):
    lines = lines_of(S04)
    unknown_line = json.dumps({"timestamp": "2026-12-07T14:46:31.600Z", "type": "future_record", "payload": {}})
    unknown_item = json.dumps(
        {"timestamp": "2026-12-07T14:46:31.601Z", "type": "response_item", "payload": {"type": "hologram"}}
    )
    changed = lines[:12] + [unknown_line + "\n", unknown_item + "\n", unknown_line + "\n"] + lines[12:]
    session = read_session(copy_with(tmp_path, S04, changed))
    original = read_session(S04)
    assert session.skipped == {"future_record": 2, "response_item/hologram": 1}
    assert session.problems == ()
    assert kinds(session) == kinds(original)
    assert [e.source for e in session.execs] == [e.source for e in original.execs]


def test_an_output_written_as_one_string_reads_as_header_and_text(tmp_path):
    """Older Codex versions wrote a tool output as one string (header and texts together), or
    as an object with ``content``; both read as the list form does."""
    lines = lines_of(S04)
    record = json.loads(lines[15])
    record["payload"]["output"] = "Script completed\nWall time 0.3 seconds\nOutput:\nfirst text item\nlast text item"
    lines[15] = json.dumps(record) + "\n"
    record = json.loads(lines[26])
    record["payload"]["output"] = {
        "content": "Script completed\nWall time 0.7 seconds\nOutput:\ndone sleeping",
        "success": True,
    }
    lines[26] = json.dumps(record) + "\n"
    session = read_session(copy_with(tmp_path, S04, lines))
    first = session.execs[0].result
    wait = session.waits[0].result
    assert first is not None and wait is not None
    assert (first.status, first.wall_time_s, first.items) == (
        "completed",
        0.3,
        ({"type": "input_text", "text": "first text item\nlast text item"},),
    )
    assert (wait.status, wait.wall_time_s, wait.items) == (
        "completed",
        0.7,
        ({"type": "input_text", "text": "done sleeping"},),
    )


def test_an_error_text_in_an_output_that_did_not_fail_is_an_item(tmp_path):
    """Codex adds ``Script error:`` only to a failed cell: in s04's first (completed) answer a
    last text starting so is what the program wrote, not an error."""
    lines = lines_of(S04)
    record = json.loads(lines[15])
    record["payload"]["output"].append({"type": "input_text", "text": "Script error:\nwritten by text()"})
    lines[15] = json.dumps(record) + "\n"
    result = read_session(copy_with(tmp_path, S04, lines)).execs[0].result
    assert result is not None
    assert (result.status, result.error, result.items[-1]) == (
        "completed",
        None,
        {"type": "input_text", "text": "Script error:\nwritten by text()"},
    )


def test_codexs_first_layout_without_envelopes_reads_as_the_current_one(tmp_path):
    """Codex first wrote the session's id and timestamp as the first line and each response
    item bare on its own line (with ``record_type: state`` lines between); the same session
    in that layout gives the same calls and results."""
    records = [json.loads(line) for line in lines_of(S04)]
    meta = records[0]["payload"]
    legacy = [{"id": meta["id"], "timestamp": meta["timestamp"], "instructions": None}]
    for record in records[1:]:
        if record["type"] == "response_item":
            legacy.append(record["payload"])
            legacy.append({"record_type": "state"})
    path = copy_with(tmp_path, S04, [json.dumps(r) + "\n" for r in legacy], "legacy.jsonl")
    session = read_session(path)
    original = read_session(S04)
    assert session.meta.session_id == original.meta.session_id
    assert (session.problems, session.skipped) == ((), {})
    assert [(e.call_id, e.source, e.cell_id) for e in session.execs] == [
        (e.call_id, e.source, e.cell_id) for e in original.execs
    ]
    assert [e.result and e.result.items for e in session.execs] == [e.result and e.result.items for e in original.execs]
    assert [(w.target, w.result and w.result.status) for w in session.waits] == [("call_exec_2", "completed")]
    assert [r.text for r in session.records if isinstance(r, Notify)] == [
        "progress: 1 of 2",
        '{"step":2,"of":2}',
        "about to sleep",
        "woke up",
    ]


def test_a_header_codex_does_not_write_reads_as_unknown(tmp_path):
    lines = lines_of(S04)
    record = json.loads(lines[15])
    record["payload"]["output"] = [{"type": "input_text", "text": "Something else\n"}]
    lines[15] = json.dumps(record) + "\n"
    result = read_session(copy_with(tmp_path, S04, lines)).execs[0].result
    assert result is not None
    assert (result.status, result.cell_id, result.wall_time_s, result.items) == (
        "unknown",
        None,
        None,
        ({"type": "input_text", "text": "Something else\n"},),
    )


def test_files_that_are_not_sessions_raise_a_clear_error(tmp_path):
    notebook = tmp_path / "notebook.ipynb"
    notebook.write_text('{\n "cells": [],\n "metadata": {}\n}\n', encoding="utf-8")
    with pytest.raises(NotASessionError) as caught:
        read_session(notebook)
    assert str(caught.value) == (
        f"{notebook} is not a Codex session file: line 1 is not a JSON object "
        "(a session file holds one JSON object a line, a session_meta first)."
    )
    headless = copy_with(tmp_path, S04, lines_of(S04)[1:], "headless.jsonl")
    with pytest.raises(NotASessionError) as caught:
        read_session(headless)
    assert str(caught.value) == (
        f"{headless} is not a Codex session file: its first record is not a session_meta (found type 'event_msg')."
    )
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    with pytest.raises(NotASessionError) as caught:
        read_session(empty)
    assert str(caught.value) == f"{empty} is not a Codex session file: it is empty."
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(NotASessionError, match="line 1 is not a JSON object"):
        read_session(binary)


def test_ids_restart_without_a_process_line_begin_a_new_process(tmp_path):
    """A resume whose process line is missing (a corrupt line there) is still seen: a yield
    header naming an id lower than the process has given starts a new process."""
    lines = lines_of(S07)
    lines[54] = "{corrupt\n"  # line 55: thread_settings_applied of the second process
    session = read_session(copy_with(tmp_path, S07, lines))
    assert session.problems[0].line == 55
    # call_exec_10 completed without showing its id; call_exec_11 yields as "cell ID 2"
    assert session.cells == {
        1: {
            "1": "call_exec_3",
            "2": "call_exec_4",
            "3": "call_exec_5",
            "4": "call_exec_7",
            "5": "call_exec_8",
            "6": "call_exec_10",
        },
        2: {"2": "call_exec_11", "3": "call_exec_13", "4": "call_exec_15"},
    }
    assert [w.target for w in session.waits] == ["call_exec_5", "call_exec_11", "call_exec_13"]


def test_every_record_of_every_session_has_a_line_and_time():
    for path in sorted(SESSIONS.glob("*.jsonl")):
        session = read_session(path)
        assert session.execs, path
        for record in session.records:
            assert record.line >= 1 and record.time.startswith("2026-12-07T"), (path, record)
            if isinstance(record, ExecCall | WaitCall):
                assert record.result is not None, (path, record.call_id)
            if isinstance(record, NestedToolCall):
                assert record.kind in ("CommandExecution", "McpToolCall", "FileChange", "ImageView"), record.kind


def test_the_replay_notebooks_session_is_the_real_one():
    """notebooks/replay.ipynb replays a copy of s05: the same bytes Codex wrote."""
    copy = SESSIONS.parent.parent.parent / "notebooks" / "sessions" / "s05_mcp_store_load.jsonl"
    assert copy.read_bytes() == (SESSIONS / "s05_mcp_store_load.jsonl").read_bytes()
