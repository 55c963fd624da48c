"""``metadata.codemode.model_view``: the answer a request showed, as Codex returns it to the model.

The programs are those of real Codex session files (tests/replay/sessions/, written by Codex
CLI 0.171.0); each reply's ``model_view.output`` must equal what Codex recorded for the same
call, with the wall time and the cell id normalised (they depend on the machine and on the
cells run before).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from dependencies import require
from kernel_driver import EVERYTHING, execute, start_kernel, stop_kernel

from codemode.model_view import estimate_tokens

pytestmark = pytest.mark.timeout(120)

SESSIONS = Path(__file__).resolve().parents[1] / "replay" / "sessions"


def recorded(name: str, call_id: str) -> tuple[str, Any]:
    """The program (or wait arguments) of ``call_id`` in a session file, and Codex's output."""
    call, output = None, None
    for line in (SESSIONS / name).read_text(encoding="utf-8").splitlines():
        payload = json.loads(line).get("payload", {})
        if payload.get("call_id") != call_id or "name" in payload and payload.get("type", "").endswith("output"):
            continue
        if payload.get("type") in ("custom_tool_call", "function_call"):
            call = payload.get("input", payload.get("arguments"))
        elif payload.get("type") in ("custom_tool_call_output", "function_call_output"):
            output = payload["output"]
    assert call is not None and output is not None
    return call, output


def normalised(output: Any) -> Any:
    """``output`` with its header's wall time and cell id replaced by placeholders."""

    def header(text: str) -> str:
        text = re.sub(r"\AScript running with cell ID \S+", "Script running with cell ID N", text)
        return re.sub(r"\nWall time \d+\.\d seconds\n", "\nWall time T seconds\n", text)

    if isinstance(output, str):
        return header(output)
    return [{**output[0], "text": header(output[0]["text"])}, *output[1:]]


def model_view(run) -> dict[str, Any]:
    view = run.codemode["model_view"]
    assert view["tokens"] == estimate_tokens(view["output"])
    return view


def test_a_failed_cell(kernel):
    """s03: ``Script failed``, the text before the throw, the ``Script error:`` item."""
    program, output = recorded("s03_error.jsonl", "call_exec_1")
    run = execute(kernel.kc, program)
    assert normalised(model_view(run)["output"]) == normalised(output)


def test_truncation_of_an_exec_and_of_a_wait(kernel):
    """s09: the pragma's ``max_output_tokens: 100``; a yield with no items (a plain string),
    then ``%wait --max-tokens 50`` (the wait's ``max_tokens``)."""
    program, output = recorded("s09_output_truncation.jsonl", "call_exec_1")
    assert normalised(model_view(execute(kernel.kc, program))["output"]) == normalised(output)

    program, output = recorded("s09_output_truncation.jsonl", "call_exec_2")
    started = execute(kernel.kc, program)
    assert normalised(model_view(started)["output"]) == normalised(output)
    cell_id = started.codemode["cell_id"]
    _, waited = recorded("s09_output_truncation.jsonl", "call_wait_3")
    run = execute(kernel.kc, f"%wait {cell_id} --yield-time-ms 5000 --max-tokens 50")
    assert normalised(model_view(run)["output"]) == normalised(waited)


def test_terminate_and_a_wait_on_a_missing_cell(kernel):
    """s02c: a yield with output, ``Script terminated`` as a plain string, then a wait on the
    terminated cell and on an id that never existed: ``Script failed`` + ``exec cell ... not found``."""
    program, output = recorded("s02c_wait_terminate.jsonl", "call_exec_1")
    started = execute(kernel.kc, program)
    assert normalised(model_view(started)["output"]) == normalised(output)
    cell_id = started.codemode["cell_id"]
    _, terminated = recorded("s02c_wait_terminate.jsonl", "call_wait_2")
    assert normalised(model_view(execute(kernel.kc, f"%terminate {cell_id}"))["output"]) == normalised(terminated)
    _, gone = recorded("s02c_wait_terminate.jsonl", "call_wait_3")
    again = model_view(execute(kernel.kc, f"%wait {cell_id}"))["output"]
    # Codex's cell was "1"; this kernel's has the id it got.
    error = {**gone[1], "text": gone[1]["text"].replace("exec cell 1 ", f"exec cell {cell_id} ")}
    assert normalised(again) == normalised([gone[0], error])
    _, never = recorded("s02c_wait_terminate.jsonl", "call_wait_4")
    assert normalised(model_view(execute(kernel.kc, "%wait no-such-cell"))["output"]) == normalised(never)


def test_a_bad_pragma_is_the_message_alone(kernel):
    """Codex answers a refused pragma with its message as a plain string, no header."""
    text = "exec pragma only supports `yield_time_ms` and `max_output_tokens`; got `bogus`"
    run = execute(kernel.kc, '// @exec: {"bogus": 1}\ntext(1)')
    assert run.codemode["model_view"] == {"output": text, "tokens": 20}


def test_a_magic_that_shows_no_answer_has_none(kernel):
    assert "model_view" not in execute(kernel.kc, "%cells").codemode


def test_mcp_results_as_codex_delivered_them(codemode_kernelspec, tmp_path):
    """s05 with the same MCP server (``server-everything``): the results the cells ``text()``
    are those Codex recorded, so an MCP result reaches a cell in Codex's shape (no ``isError``
    the server did not send). The first item of cell 1 lists the server's tools, which change
    with its version: it is left out."""
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")
    (tmp_path / "codemode.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "node"\nargs = ["{EVERYTHING}", "stdio"]\nstartup_timeout_sec = 30\n'
    )
    kernel = start_kernel(tmp_path)
    try:
        for call_id in ("call_exec_1", "call_exec_2"):
            program, output = recorded("s05_mcp_store_load.jsonl", call_id)
            view = normalised(model_view(execute(kernel.kc, program, timeout=60))["output"])
            expected = normalised(output)
            if call_id == "call_exec_1":
                view, expected = view[:1] + view[2:], expected[:1] + expected[2:]
            assert view == expected
    finally:
        stop_kernel(kernel)
