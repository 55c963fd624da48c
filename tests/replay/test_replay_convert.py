"""A real Codex session becomes a notebook that reads as the session: Markdown for prompts and
messages, the exec sources exactly, ``%wait`` / ``%terminate`` naming the cell the kernel will
give the exec, the model's view kept as outputs and metadata."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest

from codemode.kernel.magics import parse_magic
from codemode.replay.convert import NoCodeModeError, notebook_text, session_notebook
from codemode.replay.rollout import read_session

pytestmark = pytest.mark.unit

SESSIONS = Path(__file__).resolve().parent / "sessions"


def notebook_of(name: str):
    return nbformat.from_dict(session_notebook(read_session(SESSIONS / f"{name}.jsonl")))


def replay_meta(cell):
    return cell.metadata["codemode"]["replay"]


def code_sources(notebook) -> list[str]:
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


@pytest.mark.parametrize("path", sorted(SESSIONS.glob("*.jsonl")), ids=lambda p: p.stem)
def test_every_real_session_converts_to_a_valid_notebook_with_each_exec_source_exact(path):
    session = read_session(path)
    notebook = nbformat.from_dict(session_notebook(session))
    nbformat.validate(notebook)
    assert notebook.metadata["kernelspec"]["name"] == "codemode"
    execs = [c for c in notebook.cells if c.cell_type == "code" and replay_meta(c)["kind"] == "exec"]
    assert [c.source for c in execs] == [e.source for e in session.execs]
    counts: dict[int, int] = {}
    expected = []
    for meta in (replay_meta(c) for c in execs):
        counts[meta["process"]] = counts.get(meta["process"], 0) + 1
        expected.append(str(counts[meta["process"]]))
    assert [replay_meta(c)["notebook_cell_id"] for c in execs] == expected  # ids restart per process
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.source.startswith("%"):
            parse_magic(cell.source)  # the kernel's parser takes every magic written
    assert nbformat.reads(notebook_text(notebook), 4) == notebook


def test_waits_name_the_cell_the_kernel_gives_their_exec_after_a_resume():
    # The kernel is restarted at a resume (as --run does), so its ids restart at 1 as Codex's did.
    notebook = notebook_of("s07_long_session")
    assert [c.source for c in notebook.cells if c.cell_type == "code" and c.source.startswith("%")] == [
        "%wait 3 --yield-time-ms 10000",
        "%wait 2 --yield-time-ms 5000",
        "%terminate 3",
    ]
    waits = [replay_meta(c) for c in notebook.cells if c.source.startswith("%")]
    assert [(m["cell_id"], m["process"], m["target_call_id"], m["notebook_cell_id"]) for m in waits] == [
        ("3", 1, "call_exec_5", "3"),
        ("2", 2, "call_exec_11", "2"),
        ("3", 2, "call_exec_13", "3"),
    ]
    resumed = [c for c in notebook.cells if replay_meta(c)["kind"] == "process"]
    assert [c.source for c in resumed] == [
        "*Codex resumed the session in a new process here: its cell ids restart at 1, "
        "and values kept with `store()` are gone. Restart the kernel here to run on as Codex "
        "did (`--run` does).*"
    ]
    execs = [replay_meta(c) for c in notebook.cells if replay_meta(c)["kind"] == "exec"]
    assert [(m["call_id"], m["cell_id"], m["process"], m["turn"]) for m in execs] == [
        ("call_exec_3", "1", 1, 1),
        ("call_exec_4", "2", 1, 1),
        ("call_exec_5", "3", 1, 1),
        ("call_exec_7", "4", 1, 1),
        ("call_exec_8", "5", 1, 1),
        ("call_exec_10", "1", 2, 2),
        ("call_exec_11", "2", 2, 2),
        ("call_exec_13", "3", 2, 2),
        ("call_exec_15", "4", 2, 2),
    ]


def test_markdown_cells_hold_prompts_messages_and_reasoning_in_order():
    notebook = notebook_of("s07_long_session")
    markdown = [(replay_meta(c)["kind"], c.source) for c in notebook.cells if c.cell_type == "markdown"]
    assert markdown[1:5] == [
        ("prompt", "**User**\n\nSet up a small notes project in this folder, check it, and report."),
        (
            "reasoning",
            "**Codex (reasoning summary)**\n\n**Inspecting the folder**\n\nI'll list the tools and the folder first.",
        ),
        ("message", "**Codex (commentary)**\n\nI'll look at the available tools and the folder first."),
        (
            "message",
            "**Codex (final answer)**\n\nCreated notes/first.md (2 lines, one `hello`); checks passed, "
            "and the missing file is reported as an error.",
        ),
    ]
    assert markdown[0][1].splitlines()[:3] == [
        "# Codex session `01a250f8-91f0-7981-8711-5bcb51da93d4`",
        "",
        "Recorded by Codex 0.171.0 in `<tmp>/work`, started 2026-12-07T14:46:37.299Z.",
    ]


def test_a_wait_on_an_id_that_never_existed_keeps_it_and_shows_codexs_error():
    notebook = notebook_of("s02c_wait_terminate")
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert [c.source for c in code[1:]] == [
        "%terminate 1",
        "%wait 1 --yield-time-ms 500",
        "%wait no-such-cell --yield-time-ms 500",
    ]
    last = code[-1]
    assert last.outputs == [
        nbformat.v4.new_output(
            "error",
            ename="CellNotFound",
            evalue="exec cell no-such-cell not found",
            traceback=["CellNotFound: exec cell no-such-cell not found"],
        )
    ]
    meta = replay_meta(last)
    assert meta["arguments"] == '{"cell_id": "no-such-cell", "yield_time_ms": 500}'
    assert meta["wait"] == {"cell_id": "no-such-cell", "yield_time_ms": 500, "max_tokens": None, "terminate": False}
    assert (meta["target_call_id"], meta["notebook_cell_id"]) == (None, None)
    assert code[1].outputs[0].ename == "CellTerminated"


def test_outputs_and_metadata_keep_the_model_view():
    notebook = notebook_of("s02c_wait_terminate")
    exec_cell = next(c for c in notebook.cells if c.cell_type == "code")
    assert exec_cell.execution_count is None
    assert exec_cell.outputs == [nbformat.v4.new_output("stream", name="stdout", text="tick 0\n")]
    assert replay_meta(exec_cell) == {
        "kind": "exec",
        "time": "2026-12-07T14:46:28.554Z",
        "turn": 1,
        "turn_id": "01a250f8-6f73-79d3-919a-81c5ffccdb84",
        "process": 1,
        "line": 14,
        "call_id": "call_exec_1",
        "codex_version": "0.171.0",
        "cell_id": "1",
        "notebook_cell_id": "1",
        "result": {
            "status": "running",
            "wall_time_s": 0.3,
            "cell_id": "1",
            "time": "2026-12-07T14:46:28.868Z",
            "line": 16,
            "error": None,
            "truncation": None,
            "model_view": [
                {"type": "input_text", "text": "Script running with cell ID 1\nWall time 0.3 seconds\nOutput:\n"},
                {"type": "input_text", "text": "tick 0"},
            ],
        },
        "notifications": [],
    }
    assert notebook.metadata["codemode"]["replay"] == {
        "format": 1,
        "session_id": "01a250f8-6f5b-7863-a169-47d8ef72bc3a",
        "codex_version": "0.171.0",
        "cwd": "<tmp>/work",
        "started_at": "2026-12-07T14:46:28.452Z",
        "originator": "codex_exec",
        "source": "s02c_wait_terminate.jsonl",
        "lines": 34,
        "problems": [],
        "skipped": {},
        "nested_tool_calls": [],
    }


def test_notifies_show_under_the_cell_whose_result_they_followed():
    notebook = notebook_of("s04_notify")
    exec_1, exec_2, wait = [c for c in notebook.cells if c.cell_type == "code"]

    def notify(text, cell):
        return nbformat.v4.new_output(
            "display_data", data={"text/plain": text}, metadata={"codemode": {"notify": cell}}
        )

    assert exec_1.outputs == [
        nbformat.v4.new_output("stream", name="stdout", text="first text item\nlast text item\n"),
        notify("progress: 1 of 2", "1"),
        notify('{"step":2,"of":2}', "1"),
    ]
    assert exec_2.outputs == [notify("about to sleep", "2")]
    assert wait.source == "%wait 2 --yield-time-ms 5000"
    assert wait.outputs == [
        nbformat.v4.new_output("stream", name="stdout", text="done sleeping\n"),
        notify("woke up", "2"),
    ]
    assert replay_meta(wait)["notifications"] == [
        {"call_id": "call_exec_2", "text": "woke up", "time": "2026-12-07T14:46:33.004Z", "line": 29}
    ]


def test_errors_images_and_truncation_show_as_the_kernel_shows_them():
    errors = [c for c in notebook_of("s03_error").cells if c.cell_type == "code"]
    thrown = errors[0].outputs[-1]
    assert (thrown.output_type, thrown.ename, thrown.evalue) == ("error", "Error", "boom: something went wrong")
    assert errors[1].outputs == [
        nbformat.v4.new_output(
            "error",
            ename="SyntaxError",
            evalue="missing ) after argument list",
            traceback=["SyntaxError: missing ) after argument list"],
        )
    ]
    s07 = [c for c in notebook_of("s07_long_session").cells if c.cell_type == "code"]
    pictures = s07[-1]
    assert [o.output_type for o in pictures.outputs] == ["display_data", "display_data", "stream"]
    assert pictures.outputs[0].data["text/plain"] == "<image image/png, 84 bytes>"
    truncated = [c for c in notebook_of("s09_output_truncation").cells if c.cell_type == "code"]
    assert (
        truncated[0]
        .outputs[0]
        .text.startswith("Warning: truncated output (original token count: 2523)\nTotal output lines: 200\n\nline 0: ")
    )
    assert replay_meta(truncated[0])["result"]["truncation"] == {
        "original_token_count": 2523,
        "total_output_lines": 200,
    }
    assert truncated[2].source == "%wait 2 --yield-time-ms 5000 --max-tokens 50"


def test_nested_tool_calls_go_to_the_notebook_metadata_in_order():
    calls = notebook_of("s07_long_session").metadata["codemode"]["replay"]["nested_tool_calls"]
    assert [(c["kind"], c["pending_call_id"], c["line"]) for c in calls][:4] == [
        ("CommandExecution", "call_exec_3", 20),
        ("FileChange", "call_exec_4", 25),
        ("CommandExecution", "call_exec_4", 26),
        ("McpToolCall", "call_exec_5", 31),
    ]
    assert calls[1]["item"]["changes"] == {
        "<tmp>/work/notes/first.md": {"type": "add", "content": "# First note\nhello from code mode\n"}
    }


def test_a_session_without_code_mode_calls_says_so(tmp_path):
    lines = (SESSIONS / "s04_notify.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    calls = ("custom_tool_call", "custom_tool_call_output", "function_call", "function_call_output")
    kept = [line for line in lines if json.loads(line)["payload"].get("type") not in calls]
    assert len(kept) == len(lines) - 10  # 2 execs, 1 wait, 3 results, 4 notifies
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(kept), encoding="utf-8")
    with pytest.raises(NoCodeModeError) as caught:
        session_notebook(read_session(path))
    assert str(caught.value) == (
        f"{path} has no code-mode call (no exec or wait): nothing to replay. Codex uses code mode with "
        "models whose tool mode is code_mode_only, or with [features] code_mode = true."
    )
