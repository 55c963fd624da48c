"""Comparing a rerun's model view with the recorded one: noise normalised and named, real
divergence (``program``) diffed; the plan of cells not run; seeding a recording; the report's
JSON and JUnit forms. Recorded views come from the real sessions in ``sessions/``."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from codemode.replay.compare import combine, compare, compare_notifications, view_text
from codemode.replay.convert import session_notebook
from codemode.replay.recording import read_recording
from codemode.replay.rollout import read_session
from codemode.replay.run import (
    CellReport,
    RunReport,
    kernel_environment,
    mark_after_not_run,
    plan,
    recorded_notifications,
    replay_meta,
    replayed_notifications,
    report_json,
    report_junit,
    report_text,
)
from codemode.replay.seed import seed_calls, seed_recording

pytestmark = pytest.mark.unit

SESSIONS = Path(__file__).resolve().parent / "sessions"


def notebook_of(name: str) -> dict:
    return session_notebook(read_session(SESSIONS / f"{name}.jsonl"))


def recorded_views(name: str) -> list:
    return [
        c["metadata"]["codemode"]["replay"]["result"]["model_view"]
        for c in notebook_of(name)["cells"]
        if c["cell_type"] == "code" and c["metadata"]["codemode"]["replay"]["result"] is not None
    ]


def test_a_verbatim_answer_is_same_without_a_reason():
    view = recorded_views("s04_notify")[0]
    assert compare(view, json.loads(json.dumps(view)), "<tmp>", "/run") == compare(view, view, "", "")
    assert compare(view, view, "<tmp>", "/run").status == "same"
    assert compare(view, view, "<tmp>", "/run").reason is None


def test_wall_time_and_ids_are_noise_named_by_reason():
    recorded = "Script running with cell ID 2\nWall time 0.2 seconds\nOutput:\n"
    slower = "Script running with cell ID 2\nWall time 1.4 seconds\nOutput:\n"
    renumbered = "Script running with cell ID 7\nWall time 1.4 seconds\nOutput:\n"
    assert (compare(recorded, slower, "", "").status, compare(recorded, slower, "", "").reason) == ("same", "wall_time")
    both = compare(recorded, renumbered, "", "")
    assert (both.status, both.reason, both.normalised) == ("same", "ids", ("wall_time", "ids"))
    not_found = compare(
        [
            {"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
            {"type": "input_text", "text": "Script error:\nexec cell 9 not found"},
        ],
        [
            {"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
            {"type": "input_text", "text": "Script error:\nexec cell 3 not found"},
        ],
        "",
        "",
    )
    assert (not_found.status, not_found.reason) == ("same", "ids")


def test_exec_command_timing_and_chunk_ids_are_noise():
    recorded = [{"type": "input_text", "text": '{"chunk_id":"a1b2c3","wall_time_seconds":0.0123,"exit_code":0}'}]
    rerun = [{"type": "input_text", "text": '{"chunk_id":"ffee00","wall_time_seconds":1.5,"exit_code":0}'}]
    outcome = compare(recorded, rerun, "", "")
    assert (outcome.status, outcome.normalised) == ("same", ("wall_time", "ids"))


def test_the_working_folders_are_paths_noise():
    recorded = [
        {"type": "input_text", "text": "Script completed\nWall time 0.0 seconds\nOutput:\n"},
        {"type": "input_text", "text": "/home/u/proj/a.txt"},
    ]
    rerun = [
        {"type": "input_text", "text": "Script completed\nWall time 0.0 seconds\nOutput:\n"},
        {"type": "input_text", "text": "/tmp/x/a.txt"},
    ]
    outcome = compare(recorded, rerun, "/home/u/proj", "/tmp/x")
    assert (outcome.status, outcome.reason) == ("same", "paths")
    assert compare(recorded, rerun, "/elsewhere", "/tmp/x").reason == "program"


def test_another_answer_differs_for_program_with_a_diff_of_the_normalised_views():
    recorded = [
        {"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
        {"type": "input_text", "text": "sum 5"},
    ]
    rerun = "Script failed\nWall time 0.3 seconds\nOutput:\n"
    outcome = compare(recorded, rerun, "", "")
    assert (outcome.status, outcome.reason) == ("differs", "program")
    assert outcome.diff == (
        "--- recorded\n+++ replayed\n@@ -1,6 +1,4 @@\n --- item 1 (input_text)\n-Script completed\n"
        "+Script failed\n Wall time <t> seconds\n Output:\n---- item 2 (input_text)\n-sum 5\n"
    )
    assert compare(recorded, None, "", "").reason == "program"  # no answer at all


def test_an_image_reads_as_its_size_and_digest_not_its_data():
    image = [
        view
        for view in recorded_views("s06_image")
        if isinstance(view, list) and any(i["type"] == "input_image" for i in view)
    ][0]
    text = view_text(image)
    assert text == (
        "--- item 1 (input_text)\nScript completed\nWall time 0.0 seconds\nOutput:\n"
        "--- item 2 (input_text)\nan 8x8 checkerboard follows\n"
        "--- item 3 (input_image)\n[image, detail original, 134 characters, sha256 5bbd98596cdacc22]\n"
        "--- item 4 (input_image)\n[image, detail original, 134 characters, sha256 5bbd98596cdacc22]\n"
        "--- item 5 (input_text)\nafter the images\n"
    )


def test_cells_naming_a_missing_tool_are_planned_not_run_with_their_waits():
    skipped = plan(notebook_of("s12_other_nested_tools"), {"exec_command"})
    assert {i: (r.kind, r.status, r.reason, r.missing_tools) for i, r in skipped.items()} == {
        2: ("exec", "not_run", "missing_tool", ("write_stdin", "clock__curr_time", "get_goal")),
        3: (
            "exec",
            "not_run",
            "missing_tool",
            ("list_mcp_resources", "mcp__everything__get_sum", "write_stdin", "view_image"),
        ),
    }
    assert plan(notebook_of("s04_notify"), {"exec_command"}) == {}


def test_the_sessions_mcp_calls_seed_a_recording(tmp_path):
    nested = notebook_of("s05_mcp_store_load")["metadata"]["codemode"]["replay"]["nested_tool_calls"]
    assert seed_calls(nested) == [
        (
            "mcp__everything__get-sum",
            {"a": 2, "b": 3},
            {"content": [{"type": "text", "text": "The sum of 2 and 3 is 5."}]},
        ),
        (
            "mcp__everything__echo",
            {"message": "previous: The sum of 2 and 3 is 5."},
            {"content": [{"type": "text", "text": "Echo: previous: The sum of 2 and 3 is 5."}]},
        ),
        seed_calls(nested)[2],
    ]
    assert seed_calls(nested)[2][:2] == ("mcp__everything__get-structured-content", {"location": "Chicago"})
    resources = seed_calls(notebook_of("s12_other_nested_tools")["metadata"]["codemode"]["replay"]["nested_tool_calls"])
    assert [(tool, args) for tool, args, _ in resources] == [
        ("list_mcp_resources", {"server": "everything"}),
        ("mcp__everything__get-sum", {"a": "not a number"}),
    ]
    path = tmp_path / "seeded.recording.jsonl"
    assert seed_recording(path, nested) == 3
    calls = read_recording(path).calls
    assert [(c.tool, c.arguments, c.outcome, c.result) for c in calls] == [
        (t, a, "completed", r) for t, a, r in seed_calls(nested)
    ]


def _report() -> RunReport:
    return RunReport(
        "s.jsonl",
        [
            CellReport(1, "call_exec_1", "exec", "same", None),
            CellReport(2, "call_exec_2", "exec", "same", "wall_time", normalised=("wall_time",)),
            CellReport(3, "call_exec_3", "exec", "differs", "program", diff="--- recorded\n+++ replayed\n"),
            CellReport(4, "call_exec_4", "exec", "not_run", "missing_tool", missing_tools=("write_stdin",)),
        ],
    )


def test_the_report_counts_cells_and_exits_1_only_for_program():
    report = _report()
    assert report_json(report)["summary"] == {"cells": 4, "same": 2, "differs": 1, "not_run": 1}
    assert report_json(report)["cells"][3] == {
        "index": 4,
        "call_id": "call_exec_4",
        "kind": "exec",
        "status": "not_run",
        "reason": "missing_tool",
        "normalised": [],
        "diff": "",
        "missing_tools": ["write_stdin"],
        "unread": [],
        "after_not_run": None,
    }
    assert report.exit_status() == 1
    report.cells[2] = CellReport(3, "call_exec_3", "exec", "differs", "no_recorded_result")
    assert report.exit_status() == 0


def test_the_junit_xml_fails_program_cells_and_skips_cells_not_run():
    suite = ET.fromstring(report_junit(_report()))[0]
    assert suite.attrib == {"name": "s.jsonl", "tests": "4", "failures": "1", "skipped": "1", "errors": "0"}
    cases = {case.attrib["name"]: [(child.tag, child.attrib) for child in case] for case in suite}
    assert cases == {
        "cell 1 exec call_exec_1": [],
        "cell 2 exec call_exec_2": [],
        "cell 3 exec call_exec_3": [("failure", {"message": "the replayed answer differs (program)"})],
        "cell 4 exec call_exec_4": [("skipped", {"message": "not run: missing_tool write_stdin"})],
    }


def test_run_usage_errors_exit_2_before_any_kernel_starts(tmp_path, capsys):
    from codemode.replay.command import main

    s04 = str(SESSIONS / "s04_notify.jsonl")
    prefix = "python -m codemode replay: error: "
    seeded = str(tmp_path / "seeded.jsonl")
    assert main([s04, str(SESSIONS / "s03_error.jsonl"), "--run", "--record-from-session", seeded]) == 2
    assert capsys.readouterr().err == prefix + "--record-from-session takes one session file or notebook.\n"
    assert main([s04, "--run", "-o", str(tmp_path / "out")]) == 2
    assert (
        capsys.readouterr().err
        == prefix + f"-o with --run names the run notebook (OUT.ipynb), not {tmp_path / 'out'}.\n"
    )
    assert main([s04, "--report", str(tmp_path / "r.json")]) == 2
    assert capsys.readouterr().err.endswith(prefix + "--report and --junit need --run.\n")
    plain = tmp_path / "plain.ipynb"
    plain.write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}', encoding="utf-8")
    assert main([str(plain), "--run"]) == 2
    assert capsys.readouterr().err == (
        prefix + "plain.ipynb has no exec, wait or terminate cell made by `python -m codemode replay`.\n"
    )
    not_a_session = tmp_path / "notes.jsonl"
    not_a_session.write_text("hello\n", encoding="utf-8")
    assert main([str(not_a_session), "--run"]) == 2
    assert capsys.readouterr().err.startswith(prefix + f"{not_a_session} is not a Codex session file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.jsonl", "plain.ipynb"]


def test_record_from_session_alone_writes_only_the_recording(tmp_path, capsys):
    from codemode.replay.command import main

    path = tmp_path / "s05.recording.jsonl"
    assert main([str(SESSIONS / "s05_mcp_store_load.jsonl"), "--record-from-session", str(path)]) == 0
    assert capsys.readouterr().out == f"wrote {path} (3 MCP calls)\n"
    assert [c.tool for c in read_recording(path).calls] == [
        "mcp__everything__get-sum",
        "mcp__everything__echo",
        "mcp__everything__get-structured-content",
    ]


def test_an_images_detail_is_noise_but_its_data_is_not():
    recorded = [
        {"type": "input_text", "text": "Script completed\nWall time 0.0 seconds\nOutput:\n"},
        {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "original"},
    ]
    rerun = [recorded[0], {**recorded[1], "detail": "high"}]
    assert (compare(recorded, rerun, "", "").status, compare(recorded, rerun, "", "").reason) == (
        "same",
        "image_detail",
    )
    other = [recorded[0], {**recorded[1], "image_url": "data:image/png;base64,BBBB"}]
    assert compare(recorded, other, "", "").reason == "program"


def test_notifications_are_gathered_by_exec_on_both_sides():
    """Codex's are in the metadata by the exec's call id; the rerun's are the kernel's notify
    outputs by (process, cell id). The converted notebook shows the recorded ones as the kernel
    does, so reading its outputs as a rerun's gives the same texts."""
    notebook = notebook_of("s04_notify")
    assert recorded_notifications(notebook) == {
        "call_exec_1": ["progress: 1 of 2", '{"step":2,"of":2}'],
        "call_exec_2": ["about to sleep", "woke up"],
    }
    assert replayed_notifications(notebook) == {
        (1, "1"): ["progress: 1 of 2", '{"step":2,"of":2}'],
        (1, "2"): ["about to sleep", "woke up"],  # the exec cell's and the %wait's
    }
    assert recorded_notifications(notebook_of("s07_long_session")) == {
        "call_exec_5": ["checking notes, this takes a moment"]
    }
    wait = next(c for c in notebook["cells"] if replay_meta(c).get("call_id") == "call_wait_3")
    wait["outputs"].append(
        {
            "output_type": "display_data",
            "data": {"text/plain": "Cell 2 sent 4 more..."},
            "metadata": {"codemode": {"notify": "2", "more": 4}},
        }
    )
    assert replayed_notifications(notebook)[(1, "2")][-1] == "(4 more notifications)"


def test_notify_texts_that_differ_give_reason_notify_with_a_diff():
    sent = recorded_notifications(notebook_of("s04_notify"))["call_exec_2"]
    assert compare_notifications(sent, list(sent), "", "") == compare("", "", "", "")
    lost = compare_notifications(sent, sent[:1], "", "")
    assert (lost.status, lost.reason) == ("differs", "notify")
    assert (
        lost.diff
        == "--- recorded\n+++ replayed\n@@ -1,4 +1,2 @@\n --- notify 1\n about to sleep\n---- notify 2\n-woke up\n"
    )
    moved = compare_notifications(["wrote /home/u/proj/a.txt"], ["wrote /tmp/x/a.txt"], "/home/u/proj", "/tmp/x")
    assert (moved.status, moved.reason, moved.normalised) == ("same", "paths", ("paths",))


def test_a_cell_differs_when_its_answer_or_its_notifications_do():
    view = recorded_views("s04_notify")[0]
    slower = json.loads(json.dumps(view).replace("Wall time 0.3", "Wall time 0.9"))
    answer_same, answer_differs = compare(view, slower, "", ""), compare(view, view[:2], "", "")
    notes_same, notes_differ = compare_notifications(["a"], ["a"], "", ""), compare_notifications(["a"], [], "", "")
    assert combine(answer_same, notes_same) == answer_same
    assert combine(answer_same, notes_differ) == (
        type(answer_same)("differs", "notify", ("wall_time",), notes_differ.diff)
    )
    both = combine(answer_differs, notes_differ)
    assert (both.status, both.reason, both.diff) == ("differs", "program", answer_differs.diff + notes_differ.diff)
    report = _report()
    report.cells[2] = CellReport(3, "call_exec_3", "exec", "differs", "notify", diff=notes_differ.diff)
    assert report.exit_status() == 1
    assert [case[0].attrib for case in ET.fromstring(report_junit(report))[0] if len(case)][0] == {
        "message": "the replayed answer differs (notify)"
    }


def _reports_of(name: str, available: set[str], differs: set[str]) -> list[CellReport]:
    """The report of a session's notebook where the cells ``plan`` leaves out are not run, the
    cells in ``differs`` differ for ``program`` and the others are the same."""
    notebook = notebook_of(name)
    skipped = plan(notebook, available)
    cells = []
    for index, cell in enumerate(notebook["cells"]):
        meta = replay_meta(cell)
        if meta.get("kind") not in ("exec", "wait", "terminate"):
            continue
        call = meta["call_id"]
        status, reason = ("differs", "program") if call in differs else ("same", None)
        cells.append(skipped.get(index) or CellReport(index, call, meta["kind"], status, reason))
    return cells


def test_a_cell_that_differs_after_one_not_run_names_it():
    """s03: call_exec_3 calls tools.no_such_tool; call_exec_4, after it, differs."""
    cells = _reports_of("s03_error", {"exec_command"}, {"call_exec_4"})
    mark_after_not_run(cells)
    assert [(c.call_id, c.status, c.after_not_run) for c in cells] == [
        ("call_exec_1", "same", None),
        ("call_exec_2", "same", None),
        ("call_exec_3", "not_run", None),
        ("call_exec_4", "differs", "call_exec_3"),
    ]
    assert report_json(RunReport("s03", cells))["cells"][3]["after_not_run"] == "call_exec_3"
    assert "cell 5 exec call_exec_4: differs, program (after call_exec_3, not run)\n" in report_text(
        RunReport("s03", cells)
    )


def test_the_last_cell_not_run_before_a_difference_is_named():
    """s07 without apply_patch: call_exec_4 and call_exec_10 are not run; a cell the same, or
    one that differs only for want of a recorded result, is not marked."""
    cells = _reports_of(
        "s07_long_session",
        {"exec_command", "mcp__everything__get_sum", "mcp__everything__get_tiny_image"},
        {"call_exec_3", "call_wait_6", "call_wait_12"},
    )
    cells[-1].reason = "no_recorded_result"
    cells[-1].status = "differs"
    mark_after_not_run(cells)
    assert [(c.call_id, c.after_not_run) for c in cells if c.after_not_run or c.status != "same"] == [
        ("call_exec_3", None),
        ("call_exec_4", None),
        ("call_wait_6", "call_exec_4"),
        ("call_exec_10", None),
        ("call_wait_12", "call_exec_10"),
        ("call_exec_15", None),
    ]


def test_a_wait_not_run_for_want_of_its_exec_names_the_exec():
    """s07 without get_sum: call_exec_5 and the wait on it (call_wait_6) are not run; a cell
    that differs after them names the exec, the program that did not run."""
    cells = _reports_of(
        "s07_long_session", {"exec_command", "apply_patch", "mcp__everything__get_tiny_image"}, {"call_exec_7"}
    )
    mark_after_not_run(cells)
    assert [(c.call_id, c.status, c.after_not_run) for c in cells if c.status != "same"] == [
        ("call_exec_5", "not_run", None),
        ("call_wait_6", "not_run", None),
        ("call_exec_7", "differs", "call_exec_5"),
    ]


def test_replay_kernels_read_the_run_folders_config_and_name_its_recording(tmp_path, monkeypatch):
    # The cells run in another folder: the environment carries what the run folder decides.
    (tmp_path / "codemode.toml").write_text("", encoding="utf-8")
    for name in ("CODEMODE_CONFIG", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CODEMODE_RECORDING_PATH", "ci.recording.jsonl")
    monkeypatch.chdir(tmp_path)
    env = kernel_environment(tmp_path / "run", "s05_mcp_store_load.jsonl")
    assert "CODEMODE_CONFIG" not in env  # the run folder has no codemode.toml
    env = kernel_environment(tmp_path, "s05_mcp_store_load.jsonl")
    assert (
        env["CODEMODE_CONFIG"],
        env["JPY_SESSION_NAME"],
        env["CODEMODE_RECORDING_PATH"],
        env["CODEMODE_HEADLESS"],
    ) == (
        str(tmp_path / "codemode.toml"),
        str(tmp_path / "s05_mcp_store_load.ipynb"),
        str(tmp_path / "ci.recording.jsonl"),
        "never",
    )
    monkeypatch.setenv("CODEMODE_CONFIG", "/elsewhere/codemode.toml")  # the user's choice wins
    assert kernel_environment(tmp_path, "s.jsonl")["CODEMODE_CONFIG"] == "/elsewhere/codemode.toml"
