"""The model's view of a cell's answer (codemode.model_view) against real Codex session files.

Every ``exec`` and ``wait`` output in ``tests/replay/sessions/`` (written by Codex CLI 0.171.0,
see the README there) is rebuilt from the runtime answer it stands for and rendered again; the
rendering must equal what Codex recorded, byte for byte. The truncated outputs of s09 are
rendered from the items the program produced (its loop, re-made here) with the budget the
call set, so Codex's truncation is pinned by Codex's own text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codemode.model_view import (
    Header,
    ModelView,
    ParsedOutput,
    Truncation,
    estimate_tokens,
    format_wall_time,
    parse,
    parse_header,
    render,
)
from codemode.responses import RuntimeResponse

pytestmark = pytest.mark.unit

SESSIONS = Path(__file__).resolve().parent / "sessions"


def answers(name: str) -> list[dict[str, Any]]:
    """The exec and wait outputs of a session file, in file order (notify outputs, which
    carry ``name: "exec"``, left out)."""
    found = []
    for line in (SESSIONS / name).read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        payload = record.get("payload", {})
        if record.get("type") != "response_item":
            continue
        if payload.get("type") in ("custom_tool_call_output", "function_call_output") and "name" not in payload:
            found.append(payload)
    return found


def as_items(output: Any) -> list[dict[str, Any]]:
    return [{"type": "input_text", "text": output}] if isinstance(output, str) else output


def runtime_answer(output: Any) -> tuple[RuntimeResponse, float]:
    """The runtime answer a recorded output stands for, and its wall time in seconds."""
    parsed = parse(output)
    assert parsed is not None, output
    return parsed.response(), float(parsed.header.wall_time)


ALL_SESSIONS = sorted(path.name for path in SESSIONS.glob("*.jsonl"))


@pytest.mark.parametrize("name", ALL_SESSIONS)
def test_every_recorded_answer_renders_as_codex_wrote_it(name):
    recorded = answers(name)
    assert recorded
    for payload in recorded:
        response, wall = runtime_answer(payload["output"])
        assert render(response, wall).output == payload["output"], payload["call_id"]


def test_the_sessions_hold_every_form():
    """The files cover each status, the plain string, the error item, images, truncation."""
    outputs = [payload["output"] for name in ALL_SESSIONS for payload in answers(name)]
    heads = {parse_header(as_items(o)[0]["text"]).status for o in outputs}  # type: ignore[union-attr]
    assert heads == {"Script running", "Script completed", "Script failed", "Script terminated"}
    assert any(isinstance(o, str) for o in outputs)
    kinds = {item["type"] for o in outputs if not isinstance(o, str) for item in o}
    assert kinds == {"input_text", "input_image"}
    texts = [item.get("text", "") for o in outputs if not isinstance(o, str) for item in o]
    assert any(t.startswith("Script error:\n") for t in texts)
    assert sum(t.startswith("Warning: truncated output") for t in texts) == 2


def recorded_output(name: str, call_id: str) -> Any:
    return next(p["output"] for p in answers(name) if p["call_id"] == call_id)


def test_exec_truncation_from_the_programs_items():
    """s09 cell 1: ``for (i < 200) text("line " + i + ": " + "x".repeat(40))`` with the pragma's
    ``max_output_tokens: 100``: one merged item, Codex's warning, head and tail."""
    items = [{"type": "input_text", "text": f"line {i}: " + "x" * 40} for i in range(200)]
    view = render(RuntimeResponse("Result", "1", items), 0.0, max_output_tokens=100)
    assert view.output == recorded_output("s09_output_truncation.jsonl", "call_exec_1")
    assert view.output[1]["text"].startswith(  # type: ignore[index]
        "Warning: truncated output (original token count: 2523)\nTotal output lines: 200\n\n"
    )


def test_wait_truncation_from_the_programs_items():
    """s09 cell 2, answered by ``wait {max_tokens: 50}``: ``"y".repeat(5000)`` and ``"the end"``."""
    items = [{"type": "input_text", "text": "y" * 5000}, {"type": "input_text", "text": "the end"}]
    view = render(RuntimeResponse("Result", "2", items), 0.3, max_output_tokens=50)
    assert view.output == recorded_output("s09_output_truncation.jsonl", "call_wait_3")


def test_a_header_alone_is_a_plain_string():
    view = render(RuntimeResponse("Yielded", "2", []), 0.2)
    assert view == ModelView("Script running with cell ID 2\nWall time 0.2 seconds\nOutput:\n", 15)
    assert render(RuntimeResponse("Terminated", "3", []), 0.0).output == (
        "Script terminated\nWall time 0.0 seconds\nOutput:\n"
    )


def test_a_failure_without_items_is_a_list_of_two():
    """The error item makes it two items, so a list (s02c: a wait on a missing cell)."""
    view = render(RuntimeResponse("Result", "no-such-cell", [], "exec cell no-such-cell not found"), 0.0)
    assert view.output == [
        {"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
        {"type": "input_text", "text": "Script error:\nexec cell no-such-cell not found"},
    ]


def test_the_error_item_counts_against_the_budget():
    """Codex appends ``Script error:`` before it truncates: the error is merged with the text
    (100 + 1 + 25 bytes = 32 tokens; 40 bytes kept, 20 at each end)."""
    items = [{"type": "input_text", "text": "a" * 100}]
    view = render(RuntimeResponse("Result", "1", items, "Error: boom"), 1.0, max_output_tokens=10)
    assert view.output == [
        {"type": "input_text", "text": "Script failed\nWall time 1.0 seconds\nOutput:\n"},
        {
            "type": "input_text",
            "text": "Warning: truncated output (original token count: 32)\nTotal output lines: 3\n\n"
            + "a" * 20
            + "…22 tokens truncated…"
            + "t error:\nError: boom",
        },
    ]


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(0.0, "0.0"), (0.04, "0.0"), (0.05, "0.1"), (0.25, "0.3"), (1.149, "1.1"), (12.96, "13.0"), (-1.0, "0.0")],
)
def test_wall_time_rounds_half_away_from_zero(seconds, text):
    assert format_wall_time(seconds) == text


def test_parse_header():
    assert parse_header("Script running with cell ID 12\nWall time 0.3 seconds\nOutput:\n") == Header(
        "Script running", "12", "0.3"
    )
    assert parse_header("Script failed\nWall time 10.0 seconds\nOutput:\n") == Header("Script failed", None, "10.0")
    assert parse_header("Script completed\nWall time 1 seconds\nOutput:\n") is None
    assert parse_header("Script completed\nWall time 1.0 seconds\nOutput:\nmore") is None


def test_token_estimate():
    """Bytes / 4 rounded up; an image is 7373 bytes (Codex's estimate)."""
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("é") == 1
    header = {"type": "input_text", "text": "Script completed\nWall time 0.0 seconds\nOutput:\n"}
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAAA", "detail": "original"}
    assert estimate_tokens([header, image]) == (47 + 7373 + 3) // 4
    assert render(RuntimeResponse("Result", "1", [image]), 0.0).tokens == (47 + 7373 + 3) // 4
    # The notebook profile's items (never in Codex's output): a stream as its text, a display
    # as its largest text representation.
    stream = {"type": "stream", "name": "stdout", "text": "abcd\n"}
    display = {"type": "display_data", "data": {"text/plain": "x" * 8, "text/html": "y" * 40}, "metadata": {}}
    assert estimate_tokens([header, stream, display]) == (47 + 5 + 40 + 3) // 4


def test_parse_reads_a_failure_and_refuses_what_is_no_output():
    output = [
        {"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
        {"type": "input_text", "text": "before the error"},
        {"type": "input_text", "text": "Script error:\nError: boom"},
    ]
    assert parse(output) == ParsedOutput(
        Header("Script failed", None, "0.0"), [{"type": "input_text", "text": "before the error"}], "Error: boom"
    )
    assert parse("progress: 1 of 2") is None  # a notify output
    assert parse([{"type": "input_image", "image_url": "data:,"}]) is None
    assert parse([]) is None


def test_parse_reads_codexs_truncation_warning():
    """s09: the exec's budget cut 200 lines (2523 tokens), the wait's two items (1252 tokens)."""
    parsed = [parse(recorded_output("s09_output_truncation.jsonl", call)) for call in ("call_exec_1", "call_wait_3")]
    assert [p.truncation if p else None for p in parsed] == [Truncation(2523, 200), Truncation(1252, 2)]
    assert parse(recorded_output("s04_notify.jsonl", "call_exec_1")).truncation is None  # type: ignore[union-attr]


def test_parse_reads_an_output_written_as_one_string():
    """Older Codex versions wrote the header and the texts as one string: the text after the
    header is the first item (s04's first answer, written that way)."""
    parsed = parse("Script completed\nWall time 0.3 seconds\nOutput:\nfirst text item\nlast text item")
    assert parsed == ParsedOutput(
        Header("Script completed", None, "0.3"),
        [{"type": "input_text", "text": "first text item\nlast text item"}],
        None,
    )
    failed = parse("Script failed\nWall time 0.0 seconds\nOutput:\nScript error:\nexec cell 9 not found")
    assert failed == ParsedOutput(Header("Script failed", None, "0.0"), [], "exec cell 9 not found")


def test_only_a_failed_output_has_an_error_item():
    """Codex appends ``Script error:`` only to a failed ``Result``; a completed program that
    wrote such a text keeps it as an item."""
    header, *items = recorded_output("s04_notify.jsonl", "call_exec_1")
    written = [header, *items, {"type": "input_text", "text": "Script error:\nnot an error"}]
    parsed = parse(written)
    assert parsed is not None
    assert (parsed.header.name, parsed.error_text, parsed.items[-1]) == (
        "completed",
        None,
        {"type": "input_text", "text": "Script error:\nnot an error"},
    )
    assert render(parsed.response(), 0.3).output == written
