"""``python -m codemode replay SESSION --run``: every real session runs again in a fresh kernel
against live tools (``server-everything``, which scripts/install-tools.sh installs) and the
report, pinned here, says where the rerun differs from what the model saw and why."""

from __future__ import annotations

import base64
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import nbformat
import pytest

from codemode.replay.command import main
from codemode.replay.needs import cell_needs
from codemode.replay.rollout import Notify, read_session
from tests.dependencies import require
from tests.kernel.kernel_driver import EVERYTHING

SESSIONS = Path(__file__).resolve().parent / "sessions"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A run folder whose codemode.toml starts server-everything, as the sessions' Codex did."""
    require(EVERYTHING.exists(), "server-everything is not installed")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-home"))
    (tmp_path / "codemode.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "node"\nargs = ["{EVERYTHING}", "stdio"]\nstartup_timeout_sec = 30\n',
        encoding="utf-8",
    )
    return tmp_path


def reaches_mcp(session: Path) -> bool:
    """Whether a program of ``session`` may reach an MCP server: it names an MCP tool
    (``mcp__…``, ``list_mcp_resources``…) or reaches the tools in a way static reading cannot
    judge (``ALL_TOOLS``, ``tools[name]``). A session whose programs cannot runs without the
    server, which would only add its start-up time (once per kernel)."""
    needs = [cell_needs(e.call_id, e.line, e.source, ()) for e in read_session(session).execs]
    return any(n.unread or any("mcp" in name for name in n.missing) for n in needs)


def no_server_unless_needed(folder: Path, session: Path) -> None:
    if not reaches_mcp(session):
        (folder / "codemode.toml").unlink()


def run(folder: Path, source: Path, *extra: str) -> tuple[int, dict]:
    report = folder / "report.json"
    status = main([str(source), "--run", "-o", str(folder / "run.ipynb"), "--report", str(report), *extra])
    return status, json.loads(report.read_text(encoding="utf-8"))


def outcomes(report: dict) -> list[tuple[str, str, str | None]]:
    """(call id, status, reason); a wall-time reason reads as WALL, written None or wall_time in
    EXPECTED: whether a rerun's wall time rounds as Codex's did depends on the machine."""
    return [(c["call_id"], c["status"], WALL if c["reason"] in (None, WALL) else c["reason"]) for c in report["cells"]]


SAME, DIFFERS, NOT_RUN = "same", "differs", "not_run"
WALL, PROGRAM, MISSING, DETAIL = "wall_time", "program", "missing_tool", "image_detail"

EXPECTED = {
    "s01_simple_exec": (0, [("call_exec_1", SAME, "ids")]),  # exec_command's chunk_id is random
    "s02_yield_wait": (0, [("call_exec_1", SAME, WALL), ("call_wait_2", SAME, WALL)]),
    "s02b_wait_yields_again": (
        0,
        [("call_exec_1", SAME, WALL), ("call_wait_2", SAME, None), ("call_wait_3", SAME, WALL)],
    ),
    "s02c_wait_terminate": (
        0,
        [
            ("call_exec_1", SAME, WALL),
            ("call_wait_2", SAME, None),
            ("call_wait_3", SAME, None),
            ("call_wait_4", SAME, None),
        ],
    ),
    # call_exec_3 calls tools.no_such_tool, which Codex lacked too (it answered "tools.no_such_tool
    # is not a function"): the replay does not run a cell that needs a tool codemode lacks.
    "s03_error": (
        0,
        [
            ("call_exec_1", SAME, WALL),
            ("call_exec_2", SAME, None),
            ("call_exec_3", NOT_RUN, MISSING),
            ("call_exec_4", SAME, None),
        ],
    ),
    "s04_notify": (0, [("call_exec_1", SAME, WALL), ("call_exec_2", SAME, None), ("call_wait_3", SAME, WALL)]),
    # codemode's MCP client declares elicitation as Codex's did, so ALL_TOOLS lists the same tools.
    "s05_mcp_store_load": (0, [("call_exec_1", SAME, WALL), ("call_exec_2", SAME, None)]),
    # view_image reads checker.png, which Codex's working folder held before the session began
    # (the session file does not say so, nor hold the file), and the replay's folder does not.
    "s06_image": (1, [("call_exec_1", SAME, DETAIL), ("call_exec_2", DIFFERS, PROGRAM), ("call_exec_3", SAME, None)]),
    # The cells run in a new empty folder, as Codex's did, but call_exec_3's `ls -la` counts 4
    # lines, not 3: the sandbox shows a read-only empty codemode.toml in a folder that has none,
    # so that no command creates one for the next kernel start (docs/sandbox.md). The second
    # turn runs in a new kernel, as Codex resumed in a new process: "stored from turn 1:
    # undefined".
    "s07_long_session": (
        1,
        [
            ("call_exec_3", DIFFERS, PROGRAM),
            ("call_exec_4", SAME, WALL),
            ("call_exec_5", SAME, None),
            ("call_wait_6", SAME, WALL),
            ("call_exec_7", SAME, WALL),
            ("call_exec_8", SAME, None),
            ("call_exec_10", SAME, WALL),
            ("call_exec_11", SAME, None),
            ("call_wait_12", SAME, WALL),
            ("call_exec_13", SAME, None),
            ("call_wait_14", SAME, None),
            ("call_exec_15", SAME, DETAIL),
        ],
    ),
    "s09_output_truncation": (
        0,
        [("call_exec_1", SAME, WALL), ("call_exec_2", SAME, None), ("call_wait_3", SAME, WALL)],
    ),
    # Both cells still call tools codemode lacks: Codex's clock__curr_time, get_goal and
    # list_mcp_resources (write_stdin and view_image are built-ins now).
    # call_exec_1 needs Codex's clock__curr_time and get_goal. In call_exec_2 codemode checks
    # get_sum's arguments against its input schema and throws; Codex sent them to the server,
    # which answered isError (docs/codex-differences.md).
    "s12_other_nested_tools": (1, [("call_exec_1", NOT_RUN, MISSING), ("call_exec_2", DIFFERS, PROGRAM)]),
}
AFTER_NOT_RUN = {"s12_other_nested_tools": {"call_exec_2": "call_exec_1"}}
"""The cells that differ after a cell not run, with the call id of that cell, by session."""


def check_report(stem: str, status: int, report: dict) -> None:
    """The report of session ``stem`` is the one EXPECTED pins."""
    expected_status, expected = EXPECTED[stem]
    noise = [(call, status_, WALL if reason is None else reason) for call, status_, reason in expected]
    assert (status, outcomes(report)) == (expected_status, noise)
    counts = {kind: sum(1 for _, s, _ in expected if s == kind) for kind in (SAME, DIFFERS, NOT_RUN)}
    assert report["summary"] == {"cells": len(expected), **counts}
    assert all(c["diff"] == "" for c in report["cells"] if c["status"] != DIFFERS)
    after = {c["call_id"]: c["after_not_run"] for c in report["cells"] if c["after_not_run"]}
    assert after == AFTER_NOT_RUN.get(stem, {})


# s06 and s03 run in the next two tests, which check their reports too: two runs fewer.
@pytest.mark.parametrize(
    "path",
    [p for p in sorted(SESSIONS.glob("*.jsonl")) if p.stem not in ("s03_error", "s06_image")],
    ids=lambda p: p.stem,
)
def test_every_real_session_runs_and_its_report_names_each_difference(folder, path):
    no_server_unless_needed(folder, path)
    status, report = run(folder, path)
    check_report(path.stem, status, report)
    # Every exec that ran showed the notify() texts Codex recorded for it (s04, s07), in order.
    sent: dict[str, list[str]] = {}
    for record in read_session(path).records:
        if isinstance(record, Notify):
            sent.setdefault(record.call_id, []).append(record.text)
    cells = [c.metadata["codemode"]["replay"] for c in nbformat.read(folder / "run.ipynb", 4).cells]
    shown = {m["call_id"]: m["run"]["notifications"] for m in cells if "notifications" in m.get("run", {})}
    assert {call: texts for call, texts in shown.items() if texts} == sent


def test_the_run_notebook_keeps_both_outputs_and_runs_again_with_junit(folder):
    no_server_unless_needed(folder, SESSIONS / "s06_image.jsonl")
    # s06's view_image reads checker.png, which Codex's folder held and the replay's does not.
    status, first = run(folder, SESSIONS / "s06_image.jsonl")
    check_report("s06_image", status, first)
    nb = nbformat.read(folder / "run.ipynb", 4)
    by_call = {c.metadata["codemode"]["replay"].get("call_id"): c for c in nb.cells if c.cell_type == "code"}
    failed = by_call["call_exec_2"]
    meta = failed.metadata["codemode"]["replay"]
    assert meta["recorded_outputs"][-1]["output_type"] == "display_data"
    assert failed.outputs[-1]["output_type"] == "error"
    assert failed.outputs[-1]["evalue"].startswith("unable to locate image at `")
    assert meta["run"]["status"] == "differs" and meta["run"]["diff"] == first["cells"][1]["diff"]
    after = nb.cells[nb.cells.index(failed) + 1]
    assert after.cell_type == "markdown" and after.metadata["codemode"]["replay"]["kind"] == "replay_diff"
    assert after.source.startswith(
        "**Replay differs** (reason `program`): recorded, then replayed.\n\n```diff\n--- recorded"
    )
    # The run notebook runs again: same report, no second diff cell, the recorded outputs kept.
    again = folder / "again"
    again.mkdir()
    for config in folder.glob("codemode.toml"):  # the same tools as the first run
        (again / config.name).write_text(config.read_text(encoding="utf-8"), encoding="utf-8")
    status, second = run(again, folder / "run.ipynb", "--junit", str(again / "report.xml"))
    assert (status, outcomes(second)) == (1, outcomes(first))
    rerun = nbformat.read(again / "run.ipynb", 4)
    assert (
        sum(1 for c in rerun.cells if c.metadata.get("codemode", {}).get("replay", {}).get("kind") == "replay_diff")
        == 1
    )
    assert [c.metadata["codemode"]["replay"].get("recorded_outputs") for c in rerun.cells if c.cell_type == "code"] == [
        c.metadata["codemode"]["replay"].get("recorded_outputs") for c in nb.cells if c.cell_type == "code"
    ]
    suite = ET.parse(again / "report.xml").getroot()[0]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "0")


def test_a_cell_that_needs_a_missing_tool_is_kept_unrun(folder):
    no_server_unless_needed(folder, SESSIONS / "s03_error.jsonl")
    status, report = run(folder, SESSIONS / "s03_error.jsonl", "--junit", str(folder / "report.xml"))
    check_report("s03_error", status, report)
    nb = nbformat.read(folder / "run.ipynb", 4)
    by_call = {c.metadata["codemode"]["replay"].get("call_id"): c for c in nb.cells if c.cell_type == "code"}
    skipped = by_call["call_exec_3"]
    assert (skipped.outputs, skipped.metadata["codemode"]["replay"]["run"]) == (
        [],
        {"status": "not_run", "reason": "missing_tool", "missing_tools": ["no_such_tool"]},
    )
    # s03's exec_command without cmd now fails as Codex's did.
    assert by_call["call_exec_4"].outputs[-1]["evalue"] == (
        "failed to parse function arguments: missing field `cmd` at line 1 column 2"
    )
    suite = ET.parse(folder / "report.xml").getroot()[0]
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("4", "0", "1")


def test_a_recording_seeded_from_the_session_answers_its_mcp_calls_with_no_server(tmp_path, monkeypatch):
    # No codemode.toml: no MCP server starts; the session's own McpToolCall results answer.
    recording = tmp_path / "s05.recording.jsonl"
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-home"))
    monkeypatch.setenv("CODEMODE_RECORDING", "replay")
    monkeypatch.setenv("CODEMODE_RECORDING_PATH", str(recording))
    status, report = run(tmp_path, SESSIONS / "s05_mcp_store_load.jsonl", "--record-from-session", str(recording))
    # ALL_TOOLS lists only the recorded tools; the MCP answers are the recorded ones.
    assert (status, outcomes(report)) == (1, [("call_exec_1", DIFFERS, PROGRAM), ("call_exec_2", SAME, WALL)])
    assert report["cells"][0]["diff"].splitlines()[-3] == (
        '+["mcp__everything__echo","mcp__everything__get_structured_content","mcp__everything__get_sum"]'
    )


@pytest.mark.unit
def test_the_sessions_that_reach_mcp_run_with_the_server():
    reaching = [p.stem for p in sorted(SESSIONS.glob("*.jsonl")) if reaches_mcp(p)]
    assert reaching == ["s05_mcp_store_load", "s06_image", "s07_long_session", "s12_other_nested_tools"]


def test_several_sessions_run_at_once_each_with_its_report(folder, capsys):
    """A batch (two sessions, ``--jobs 2``): a summary row per session, the run notebooks in
    ``-o``'s folder, one JUnit case and one report per session, the reports as one run gives."""
    sessions = [SESSIONS / "s01_simple_exec.jsonl", SESSIONS / "s06_image.jsonl"]
    report, junit = folder / "batch.json", folder / "batch.xml"
    argv = [*map(str, sessions), "--run", "-o", str(folder), "--jobs", "2", "--report", str(report)]
    status = main([*argv, "--junit", str(junit)])
    stdout = capsys.readouterr().out
    assert status == 1, stdout
    rows = re.findall(r"^\s+\S+/(\S+\.jsonl)\s+(\w[\w ]*?)\s+\d+\.\d\s*$", stdout, re.M)
    assert rows == [("s01_simple_exec.jsonl", "passed"), ("s06_image.jsonl", "diverged")], stdout
    assert f"── {sessions[1]}: diverged\n3 cells: 2 same, 1 differ, 0 not run\n" in stdout
    assert stdout.endswith("2 sessions: 1 passed, 0 failed, 1 diverged, 0 timed out\n"), stdout
    entries = json.loads(report.read_text(encoding="utf-8"))["sessions"]
    assert [(e["session"], e["status"]) for e in entries] == [
        (str(sessions[0]), "passed"),
        (str(sessions[1]), "diverged"),
    ]
    for entry, session in zip(entries, sessions, strict=True):
        expected = EXPECTED[session.stem][1]
        noise = [(call, status_, WALL if reason is None else reason) for call, status_, reason in expected]
        assert outcomes(entry["report"]) == noise
    ran = nbformat.read(folder / "s06_image.ipynb", 4)
    assert any(c.metadata.get("codemode", {}).get("replay", {}).get("kind") == "replay_diff" for c in ran.cells)
    suite = ET.parse(junit).getroot()[0]
    assert [(case.get("name"), [child.tag for child in case]) for case in suite] == [
        (str(sessions[0]), []),
        (str(sessions[1]), ["failure"]),
    ]


def test_a_workdir_holding_the_sessions_files_makes_s06_replay_as_codex_ran_it(folder):
    """s06's view_image read checker.png, which Codex's folder held before the session began:
    ``--workdir`` with that file (its bytes are in the recorded answer) replays every cell
    ``same``, and the folder is kept with what the programs left there."""
    workdir = folder / "work"
    workdir.mkdir()
    shown = [
        item["image_url"]
        for record in read_session(SESSIONS / "s06_image.jsonl").records
        if getattr(record, "call_id", None) == "call_exec_2" and getattr(record, "result", None)
        for item in record.result.items
        if item.get("type") == "input_image"
    ]
    (workdir / "checker.png").write_bytes(base64.b64decode(shown[-1].split(",", 1)[1]))
    status, report = run(folder, SESSIONS / "s06_image.jsonl", "--workdir", str(workdir))
    assert (status, outcomes(report)) == (
        0,
        [("call_exec_1", SAME, DETAIL), ("call_exec_2", SAME, DETAIL), ("call_exec_3", SAME, WALL)],
    )
    assert sorted(p.name for p in workdir.iterdir()) == ["checker.png"]


def test_a_server_that_fails_to_start_is_named_in_a_warning_before_the_cells_run(tmp_path, monkeypatch, capsys):
    # A live replay whose MCP server cannot start would mark its cells missing_tool and pass:
    # the kernel's %tools reply carries the failure and the replay warns of it.
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-home"))
    (tmp_path / "codemode.toml").write_text(
        '[mcp_servers.everything]\ncommand = "/bin/false"\nstartup_timeout_sec = 30\n', encoding="utf-8"
    )
    status, report = run(tmp_path, SESSIONS / "s01_simple_exec.jsonl")
    assert (status, [c["status"] for c in report["cells"]]) == (0, ["same"])
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("warning: ")]
    assert warnings == ["warning: MCP server `everything` failed to start: Connection closed."]
