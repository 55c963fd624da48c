"""``python -m codemode replay``, in process: what it writes, prints and returns, for one
session, several, a folder, a glob, bad sessions, and the MCP servers of a Codex config."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import nbformat
import pytest

from codemode.__main__ import main
from codemode.config import load_config

pytestmark = pytest.mark.unit

SESSIONS = Path(__file__).resolve().parent / "sessions"
S02C = SESSIONS / "s02c_wait_terminate.jsonl"
S04 = SESSIONS / "s04_notify.jsonl"
NAMES = sorted(p.stem for p in SESSIONS.glob("*.jsonl"))

CODEX_CONFIG = """\
model = "gpt-6-sol"

[mcp_servers.everything]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-everything"]
startup_timeout_ms = 20000
env_vars = ["HOME"]

[mcp_servers.everything.env]
LOG_LEVEL = "debug"

[mcp_servers."remote tools"]
url = "http://127.0.0.1:8000/mcp"
bearer_token_env_var = "REMOTE_TOKEN"
tool_timeout_sec = 30.5
enabled = false
"""


@pytest.fixture(autouse=True)
def no_codex_home(tmp_path, monkeypatch):
    """A CODEX_HOME with no config.toml, so no test reads the user's own."""
    home = tmp_path / "codex_home"
    home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_one_session_to_a_named_notebook(tmp_path, capsys):
    out = tmp_path / "out" / "terminate.ipynb"
    assert main(["replay", str(S02C), "-o", str(out)]) == 0
    assert capsys.readouterr() == (f"wrote {out}\n", "")
    notebook = nbformat.read(out, 4)
    nbformat.validate(notebook)
    assert [c.source for c in notebook.cells if c.cell_type == "code"][1:] == [
        "%terminate 1",
        "%wait 1 --yield-time-ms 500",
        "%wait no-such-cell --yield-time-ms 500",
    ]
    assert files_in(out.parent) == ["terminate.ipynb"]  # no temporary file left, no codemode.toml
    first = out.read_bytes()
    assert main(["replay", str(S02C), "-o", str(out)]) == 0
    assert out.read_bytes() == first  # converting again gives the same file


def test_without_output_the_notebook_goes_beside_the_session(tmp_path, capsys):
    session = tmp_path / "rollout-1.jsonl"
    shutil.copy(S04, session)
    assert main(["replay", str(session)]) == 0
    assert capsys.readouterr().out == f"wrote {tmp_path / 'rollout-1.ipynb'}\n"
    assert files_in(tmp_path) == ["codex_home", "rollout-1.ipynb", "rollout-1.jsonl"]


def test_a_folder_converts_every_session_into_the_output_folder(tmp_path, capsys):
    out = tmp_path / "notebooks"
    assert main(["replay", str(SESSIONS), "-o", str(out)]) == 0
    assert capsys.readouterr().out == "".join(f"wrote {out / name}.ipynb\n" for name in NAMES)
    assert files_in(out) == [f"{name}.ipynb" for name in NAMES]


def test_a_glob_converts_its_matches_and_one_match_still_needs_a_folder(tmp_path, capsys):
    out = tmp_path / "notebooks"
    assert main(["replay", str(SESSIONS / "s0[24][c_][!y]*.jsonl"), "-o", str(out)]) == 0
    assert files_in(out) == ["s02c_wait_terminate.ipynb", "s04_notify.ipynb"]
    capsys.readouterr()
    assert main(["replay", str(SESSIONS / "s0[24][c_][!y]*.jsonl"), "-o", str(tmp_path / "x.ipynb")]) == 2
    assert capsys.readouterr().err.endswith(
        f"error: 2 sessions need a folder for -o, not the notebook {tmp_path / 'x.ipynb'}.\n"
    )


def test_a_quoted_glob_with_a_tilde_reaches_the_home_folder(tmp_path, capsys, monkeypatch):
    home = tmp_path / "home"
    (home / "sessions" / "07").mkdir(parents=True)
    shutil.copy(S04, home / "sessions" / "07" / "rollout-a.jsonl")
    monkeypatch.setenv("HOME", str(home))
    out = tmp_path / "out"
    assert main(["replay", "~/sessions/**/*.jsonl", "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"wrote {out / 'rollout-a.ipynb'}\n"


def test_usage_errors_exit_2_and_write_nothing(tmp_path, capsys):
    missing = tmp_path / "missing.jsonl"
    assert main(["replay", str(missing), "-o", str(tmp_path / "out.ipynb")]) == 2
    assert capsys.readouterr().err.endswith(f"python -m codemode replay: error: {missing} does not exist.\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["replay", str(empty)]) == 2
    assert capsys.readouterr().err.endswith(f"error: The folder {empty} holds no session file (*.jsonl).\n")
    assert main(["replay", str(tmp_path / "*.nothing")]) == 2
    assert capsys.readouterr().err.endswith(f"error: No file matches {tmp_path / '*.nothing'}.\n")
    twice = tmp_path / "a"
    twice.mkdir()
    shutil.copy(S04, twice / S04.name)
    assert main(["replay", str(S04), str(twice / S04.name), "-o", str(tmp_path / "o")]) == 2
    assert capsys.readouterr().err.endswith(
        f"error: {S04} and {twice / S04.name} would both be written to {tmp_path / 'o' / 's04_notify.ipynb'}.\n"
    )
    assert files_in(tmp_path) == ["a", "codex_home", "empty"]


def test_bad_sessions_fail_alone_the_others_are_written(tmp_path, capsys):
    folder = tmp_path / "sessions"
    folder.mkdir()
    shutil.copy(S04, folder / "good.jsonl")
    (folder / "notes.jsonl").write_text('{"type": "response_item", "payload": {}}\n', encoding="utf-8")
    lines = S04.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [
        line
        for line in lines
        if json.loads(line)["payload"].get("type")
        not in ("custom_tool_call", "custom_tool_call_output", "function_call", "function_call_output")
    ]
    (folder / "chat.jsonl").write_text("".join(kept), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["replay", str(folder), "-o", str(out)]) == 1
    stdout, stderr = capsys.readouterr()
    assert stdout == f"wrote {out / 'good.ipynb'}\n"
    assert stderr == (
        f"error: {folder / 'chat.jsonl'} has no code-mode call (no exec or wait): nothing to replay. Codex uses "
        "code mode with models whose tool mode is code_mode_only, or with [features] code_mode = true.\n"
        f"error: {folder / 'notes.jsonl'} is not a Codex session file: its first record is not a session_meta "
        "(found type 'response_item').\n"
        "2 of 3 sessions could not be converted.\n"
    )
    assert files_in(out) == ["good.ipynb"]


def test_a_damaged_session_converts_with_warnings_naming_the_lines(tmp_path, capsys):
    lines = S04.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[15] = "{not json\n"
    lines.insert(20, json.dumps({"timestamp": "t", "type": "future_record", "payload": {}}) + "\n")
    session = tmp_path / "damaged.jsonl"
    session.write_text("".join(lines)[:-30], encoding="utf-8")  # and the last line cut
    out = tmp_path / "damaged.ipynb"
    assert main(["replay", str(session), "-o", str(out)]) == 0
    stdout, stderr = capsys.readouterr()
    assert stdout == f"wrote {out}\n"
    assert stderr == (
        f"warning: {session}: line 16 was skipped: not valid JSON (at character 2).\n"
        f"warning: {session}: line 35 was skipped: the file ends inside this line (cut short, perhaps still being written).\n"
        f"warning: {session}: skipped lines of a type replay does not know: 1 of type future_record.\n"
    )
    notebook = nbformat.read(out, 4)
    assert notebook.cells[0].source.splitlines()[-2:] == [
        "- Line 16 could not be read: not valid JSON (at character 2).",
        "- Line 35 could not be read: the file ends inside this line (cut short, perhaps still being written).",
    ]
    assert notebook.metadata["codemode"]["replay"]["skipped"] == {"future_record": 1}


def test_a_failed_write_leaves_the_old_notebook_and_no_temporary_file(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.ipynb"
    out.write_text("old", encoding="utf-8")

    def broken_replace(source, target):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("codemode.replay.command.os.replace", broken_replace)
    with pytest.raises(OSError, match="No space left on device"):
        main(["replay", str(S04), "-o", str(out)])
    assert out.read_text(encoding="utf-8") == "old"
    assert files_in(tmp_path) == ["codex_home", "out.ipynb"]


def test_the_codex_configs_mcp_servers_go_to_codemode_toml(tmp_path, capsys, no_codex_home):
    config = no_codex_home / "config.toml"
    config.write_text(CODEX_CONFIG, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["replay", str(S02C), str(S04), "-o", str(out)]) == 0
    assert capsys.readouterr() == (
        f"wrote {out / 's02c_wait_terminate.ipynb'}\nwrote {out / 's04_notify.ipynb'}\n"
        f"wrote {out / 'codemode.toml'} (2 MCP servers from {config})\n",
        "",
    )
    assert (out / "codemode.toml").read_text(encoding="utf-8") == (
        f"# MCP servers copied by `python -m codemode replay` from {config}.\n"
        "\n"
        "[mcp_servers.everything]\n"
        "# not carried over (codemode does not take them): env_vars\n"
        'command = "npx"\n'
        'args = ["-y", "@modelcontextprotocol/server-everything"]\n'
        'env = {LOG_LEVEL = "debug"}\n'
        "startup_timeout_sec = 20.0\n"
        "\n"
        '[mcp_servers."remote tools"]\n'
        'url = "http://127.0.0.1:8000/mcp"\n'
        'bearer_token_env_var = "REMOTE_TOKEN"\n'
        "tool_timeout_sec = 30.5\n"
        "enabled = false\n"
    )
    loaded = load_config(out / "codemode.toml")
    assert loaded.errors == []
    everything = loaded.mcp_servers["everything"]
    assert (everything.command, everything.args, everything.env, everything.startup_timeout_sec) == (
        "npx",
        ["-y", "@modelcontextprotocol/server-everything"],
        {"LOG_LEVEL": "debug"},
        20.0,
    )
    remote = loaded.mcp_servers["remote tools"]
    assert (remote.url, remote.bearer_token_env_var, remote.tool_timeout_sec, remote.enabled) == (
        "http://127.0.0.1:8000/mcp",
        "REMOTE_TOKEN",
        30.5,
        False,
    )
    # a second conversion leaves the codemode.toml there (it may have been edited)
    assert main(["replay", str(S04), "-o", str(out)]) == 0
    assert capsys.readouterr().err == (
        f"warning: {out / 'codemode.toml'} exists and was left unchanged (its MCP servers may differ from {config}'s).\n"
    )


def test_codex_config_problems(tmp_path, capsys):
    out = tmp_path / "out.ipynb"
    missing = tmp_path / "nowhere.toml"
    assert main(["replay", str(S04), "-o", str(out), "--codex-config", str(missing)]) == 1
    assert capsys.readouterr() == ("", f"error: The Codex configuration {missing} does not exist.\n")
    broken = tmp_path / "broken.toml"
    broken.write_text("[mcp_servers.x\n", encoding="utf-8")
    assert main(["replay", str(S04), "-o", str(out), "--codex-config", str(broken)]) == 1
    assert capsys.readouterr().err.startswith(f"error: The Codex configuration {broken} is not valid TOML: ")
    assert not out.exists()
    plain = tmp_path / "plain.toml"
    plain.write_text('model = "gpt-6-sol"\n', encoding="utf-8")
    assert main(["replay", str(S04), "-o", str(out), "--codex-config", str(plain)]) == 0
    assert capsys.readouterr().out == f"wrote {out}\n{plain} defines no MCP server; no codemode.toml was written.\n"
    assert files_in(tmp_path) == ["broken.toml", "codex_home", "out.ipynb", "plain.toml"]


@pytest.mark.parametrize("option", [["--gateway-url", "http://127.0.0.1:9"], ["--gateway-token", "t"]])
@pytest.mark.parametrize("run", [["--run"], []])
def test_replay_refuses_a_gateway_with_a_usage_error(tmp_path, capsys, option, run):
    """A replay's kernel needs its own folder and environment, which a gateway cannot give it:
    ``--gateway-url`` is a usage error (exit 2) before anything runs or is written."""
    from codemode.replay.command import GATEWAY_REFUSED

    assert main(["replay", str(S04), "-o", str(tmp_path / "out" / "out.ipynb"), *run, *option]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: python -m codemode replay")
    assert err.endswith(f"python -m codemode replay: error: {GATEWAY_REFUSED}\n")
    assert "error: --gateway-url runs notebooks (python -m codemode run), not replays. A replay" in err
    assert not (tmp_path / "out").exists()


def test_a_replay_notebook_of_another_kernel_is_refused(tmp_path, capsys):
    converted = tmp_path / "s02c.ipynb"
    assert main(["replay", str(S02C), "-o", str(converted)]) == 0
    nb = nbformat.read(converted, 4)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, converted)
    capsys.readouterr()
    assert main(["replay", str(converted), "--run"]) == 2
    assert capsys.readouterr().err == (
        "python -m codemode replay: error: The notebook's kernelspec is 'python3', not a codemode kernel "
        "(codemode, codemode-v8, codemode-notebook): run it with its own kernel (jupyter execute), or set its "
        "kernelspec to codemode.\n"
    )
