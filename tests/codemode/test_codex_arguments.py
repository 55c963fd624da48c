"""Codex's tools read their arguments as Rust structs (serde): ``exec_command``, ``write_stdin`` and
``view_image`` refuse bad ones with serde's texts, as Codex CLI 0.171.0 did in
``tests/replay/sessions/s03_error.jsonl`` (``failed to parse function arguments: missing field
`cmd` at line 1 column 2``); ``view_image``'s own answers are Codex's (s06, s12)."""

from __future__ import annotations

import base64
import json
import os

import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config, SandboxSettings
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

pytestmark = pytest.mark.unit

CHECKER = (
    "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAG0lEQVR42mP478AARwwJ/xGIihLIHBRF1JMAALmoU8HSfm8+AAAAAElFTkSuQmCC"
)
"""s06's 8x8 checkerboard PNG."""


@pytest.fixture
async def dispatcher(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    registry = await ToolRegistry.create(Config(sandbox=SandboxSettings(exclude_slash_tmp=True)))
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def refusal(dispatcher, name, args):
    result = await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": name, "namespace": None}, "function", args, CancellationToken()
    )
    assert result.outcome == "failed"
    return result.error


@pytest.mark.parametrize(
    ("name", "args", "error"),
    [
        # s03's call, then variants of each serde error kind.
        ("exec_command", {}, "missing field `cmd` at line 1 column 2"),
        ("exec_command", None, "missing field `cmd` at line 1 column 2"),
        ("exec_command", {"tty": True}, "missing field `cmd` at line 1 column 12"),
        ("exec_command", {"cmd": 5}, "invalid type: integer `5`, expected a string at line 1 column 8"),
        ("exec_command", {"cmd": None}, "invalid type: null, expected a string at line 1 column 11"),
        ("exec_command", {"cmd": ["ls"]}, "invalid type: sequence, expected a string at line 1 column 7"),
        (
            "exec_command",
            {"cmd": "ls", "tty": "yes"},
            'invalid type: string "yes", expected a boolean at line 1 column 23',
        ),
        (
            "exec_command",
            {"cmd": "ls", "yield_time_ms": -1},
            "invalid value: integer `-1`, expected u64 at line 1 column 30",
        ),
        (
            "exec_command",
            {"cmd": "ls", "yield_time_ms": 1.5},
            "invalid type: floating point `1.5`, expected u64 at line 1 column 31",
        ),
        (
            "exec_command",
            {"cmd": "ls", "sandbox_permissions": "root"},
            "unknown variant `root`, expected `use_default` or `require_escalated` at line 1 column 40",
        ),
        ("exec_command", {"cmd": "ls", "sandbox_permissions": 1}, "expected value at line 1 column 35"),
        (
            "exec_command",
            {"cmd": "ls", "prefix_rule": ["a", 2]},
            "invalid type: integer `2`, expected a string at line 1 column 32",
        ),
        # Keys are read in sorted order: the first bad one, in that order, is the error.
        (
            "exec_command",
            {"yield_time_ms": "x", "cmd": 1},
            "invalid type: integer `1`, expected a string at line 1 column 8",
        ),
        ("write_stdin", {}, "missing field `session_id` at line 1 column 2"),
        ("write_stdin", {"session_id": "7"}, 'invalid type: string "7", expected i32 at line 1 column 17'),
        ("write_stdin", {"session_id": 2**31}, "invalid value: integer `2147483648`, expected i32 at line 1 column 24"),
        ("write_stdin", {"session_id": 1, "chars": None}, "invalid type: null, expected a string at line 1 column 13"),
        ("view_image", {}, "missing field `path` at line 1 column 2"),
        ("view_image", {"path": True}, "invalid type: boolean `true`, expected a string at line 1 column 12"),
        ("view_image", {"path": "é", "x": 1}, None),
    ],
)
async def test_argument_errors_are_codexs(dispatcher, name, args, error):
    if error is None:  # unknown keys are ignored, as serde ignores them: the call itself fails on the file
        message = await refusal(dispatcher, name, args)
        assert message == f"unable to locate image at `{os.getcwd()}/é`: No such file or directory (os error 2)"
        return
    assert await refusal(dispatcher, name, args) == f"failed to parse function arguments: {error}"


def test_columns_count_the_compact_json_codex_parses():
    """``{"cmd":5}``: the ``5`` is the 8th byte; ``{"cmd":"ls","tty":"yes"}``: the closing quote the 23rd."""
    assert json.dumps({"cmd": 5}, separators=(",", ":")).index("5") + 1 == 8
    assert len(json.dumps({"cmd": "ls", "tty": "yes"}, separators=(",", ":"))) - 1 == 23


async def test_view_image_answers_with_a_data_url(dispatcher, tmp_path):
    (tmp_path / "checker.png").write_bytes(base64.b64decode(CHECKER))
    result = await dispatcher.handle_tool_call(
        "1",
        "tool-1",
        {"name": "view_image", "namespace": None},
        "function",
        {"path": "checker.png"},
        CancellationToken(),
    )
    # s06: Object.keys(v) is "image_url", and the URL is the file's bytes.
    assert result.value == {"image_url": f"data:image/png;base64,{CHECKER}"}
    (tmp_path / "folder").mkdir()
    assert (
        await refusal(dispatcher, "view_image", {"path": "folder"}) == f"image path `{tmp_path}/folder` is not a file"
    )
    # s12's text: the path joined to the working directory.
    assert await refusal(dispatcher, "view_image", {"path": "does-not-exist.png"}) == (
        f"unable to locate image at `{tmp_path}/does-not-exist.png`: No such file or directory (os error 2)"
    )
