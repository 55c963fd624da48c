"""How ``replay --run`` ends when it cannot run: a kernel that gives no tool list within the
``--timeout`` the user gave, and a run that passes that limit, are a :class:`ReplayError`
(exit status 2) naming the limit, and nothing is written."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pytest

from codemode.replay import run_command
from codemode.replay.command import main
from codemode.replay.run import ReplayError, kernel_tools, timed_out_message
from codemode.replay.run_command import shared_recording

pytestmark = pytest.mark.unit

SESSION = Path(__file__).resolve().parent / "sessions" / "s01_simple_exec.jsonl"


class SilentKernel:
    """A kernel client whose shell channel never answers: ``get_shell_msg`` raises
    ``queue.Empty`` when its timeout passes, as jupyter_client's does."""

    def __init__(self) -> None:
        self.timeouts: list[float] = []

    def execute(self, code: str, **options: Any) -> str:
        return "msg-1"

    async def get_shell_msg(self, timeout: float) -> Any:
        self.timeouts.append(timeout)
        raise queue.Empty


class Client:
    def __init__(self) -> None:
        self.kc = SilentKernel()


@pytest.mark.parametrize(("left", "limit", "named"), [(1, 1.0, "1"), (3, 600.0, "600"), (1, 2.5, "2.5")])
def test_a_kernel_that_lists_no_tools_in_time_is_a_replay_error_naming_the_limit(left, limit, named):
    client = Client()
    with pytest.raises(ReplayError) as caught:
        kernel_tools(client, left, limit)
    assert str(caught.value) == (
        f"the kernel did not list its tools within the --timeout of {named} s"
        " (its MCP servers start first); give a longer --timeout."
    )
    assert client.kc.timeouts == [left]


def test_a_run_past_its_limit_names_the_limit_not_the_time_left():
    assert timed_out_message(1.0) == (
        "the replay did not finish within the --timeout of 1 s; the cell running then was stopped."
    )


def test_a_replay_that_could_not_run_exits_2_and_writes_no_report(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-home"))

    def fails(*args: Any, **kwargs: Any) -> Any:
        kernel_tools(Client(), 1, 1.0)

    monkeypatch.setattr(run_command, "run_notebook", fails)
    out = tmp_path / "out"
    status = main(
        [
            str(SESSION),
            "--run",
            "--timeout",
            "1",
            "-o",
            str(out / "run.ipynb"),
            "--report",
            str(out / "report.json"),
            "--junit",
            str(out / "report.xml"),
        ]
    )
    assert status == 2
    assert capsys.readouterr().err == (
        "python -m codemode replay: error: the kernel did not list its tools within the --timeout of 1 s"
        " (its MCP servers start first); give a longer --timeout.\n"
    )
    assert sorted(p.name for p in out.iterdir()) == []


@pytest.mark.parametrize("mode", ["record", "replay"])
def test_several_sessions_with_one_recording_path_are_a_usage_error(tmp_path, capsys, monkeypatch, mode):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "no-codex-home"))
    monkeypatch.setenv("CODEMODE_RECORDING", mode)
    monkeypatch.setenv("CODEMODE_RECORDING_PATH", "all.jsonl")
    sessions = [str(SESSION), str(SESSION.with_name("s03_error.jsonl"))]
    status = main([*sessions, "--run", "-o", str(tmp_path / "runs"), "--jobs", "2"])
    assert status == 2
    assert capsys.readouterr().err == (
        f"python -m codemode replay: error: CODEMODE_RECORDING={mode} with CODEMODE_RECORDING_PATH=all.jsonl"
        " would have 2 sessions share one recording (each kernel recording overwrites the others' calls);"
        " leave CODEMODE_RECORDING_PATH unset: each session then records to, and replays from,"
        " <session>.recording.jsonl beside its run notebook.\n"
    )
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("env", "sessions"),
    [
        ({"CODEMODE_RECORDING": "record", "CODEMODE_RECORDING_PATH": "all.jsonl"}, 1),
        ({"CODEMODE_RECORDING": "record"}, 3),
        ({"CODEMODE_RECORDING": "off", "CODEMODE_RECORDING_PATH": "all.jsonl"}, 3),
        ({"CODEMODE_RECORDING_PATH": "all.jsonl"}, 3),
    ],
)
def test_one_session_or_no_shared_path_may_record(env, sessions):
    assert shared_recording(env, sessions) is None


class ListingKernel:
    """A kernel client whose ``%tools`` reply is ``metadata.codemode`` = ``codemode``."""

    def __init__(self, codemode: dict[str, Any]) -> None:
        self.codemode = codemode

    def execute(self, code: str, **options: Any) -> str:
        return "msg-1"

    async def get_shell_msg(self, timeout: float) -> Any:
        return {
            "parent_header": {"msg_id": "msg-1"},
            "content": {"status": "ok"},
            "metadata": {"codemode": self.codemode},
        }


BROKEN = "MCP server `broken` failed to start: Connection closed."


@pytest.mark.parametrize(
    ("codemode", "problems"),
    [
        ({"tool_names": ["exec_command"], "problems": [BROKEN]}, [BROKEN]),
        ({"tool_names": ["exec_command"], "problems": []}, []),
        ({"tool_names": ["exec_command"]}, []),
    ],
)
def test_the_tools_reply_carries_the_servers_that_failed_to_start(codemode, problems):
    client = Client()
    client.kc = ListingKernel(codemode)  # type: ignore[assignment]
    tools = kernel_tools(client, 5, 5.0)
    assert tools.names == {"exec_command"}
    assert tools.problems == problems
