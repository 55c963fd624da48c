"""``max_output_tokens`` bounds a cell's error and its ``notify()`` texts, over jupyter_client.

Codex counts a failed cell's error in the budget (it appends ``Script error:\\n<error_text>``
to the content items before truncating); the kernel bounds the error output the same way and
each notification by the cell's budget, with Codex's marker texts (``kernel/budget.py``).
"""

from __future__ import annotations

import time

from kernel_driver import execute


def _notes(run) -> list[str]:
    return [
        d["data"]["text/plain"] for d in run.of_type("display_data") if d["metadata"].get("codemode", {}).get("notify")
    ]


def test_a_huge_error_is_bounded_by_the_pragma_budget(kernel):
    run = execute(kernel.kc, '// @exec: {"max_output_tokens": 50}\nthrow new Error("x".repeat(100000))')
    evalue = "x" * 100 + "\u202624950 tokens truncated\u2026" + "x" * 100
    traceback = ["Error: " + "x" * 93 + "\u202624958 tokens truncated\u2026" + "x" * 75, "    at exec_main.mjs:1:7"]
    assert run.errors == [{"ename": "Error", "evalue": evalue, "traceback": traceback}]
    assert (run.content["status"], run.content["ename"], run.content["evalue"]) == ("error", "Error", evalue)
    assert run.content["traceback"] == traceback
    assert run.codemode["status"] == "failed"


def test_output_and_error_share_the_budget(kernel):
    run = execute(
        kernel.kc, '// @exec: {"max_output_tokens": 50}\ntext("o".repeat(1000)); throw new Error("e".repeat(1000))'
    )
    assert run.stdout == (
        "Warning: truncated output (original token count: 250)\nTotal output lines: 1\n\n"
        + "o" * 50
        + "\u2026225 tokens truncated\u2026"
        + "o" * 50
        + "\n"
    )
    assert run.errors == [
        {
            "ename": "Error",
            "evalue": "e" * 50 + "\u2026225 tokens truncated\u2026" + "e" * 50,
            "traceback": [
                "Error: " + "e" * 43 + "\u2026234 tokens truncated\u2026" + "e" * 24,
                "    at exec_main.mjs:1:31",
            ],
        }
    ]


def test_an_error_that_fits_with_the_output_is_whole(kernel):
    run = execute(kernel.kc, '// @exec: {"max_output_tokens": 100}\ntext("short"); throw new TypeError("bad value")')
    assert run.stdout == "short\n"
    assert run.errors == [
        {
            "ename": "TypeError",
            "evalue": "bad value",
            "traceback": ["TypeError: bad value", "    at exec_main.mjs:1:22"],
        }
    ]


def test_a_long_notification_is_bounded_by_the_budget(kernel):
    run = execute(kernel.kc, '// @exec: {"max_output_tokens": 10}\nnotify("n".repeat(100)); notify("short")')
    bounded = (
        "Warning: truncated output (original token count: 25)\nTotal output lines: 1\n\n"
        + "n" * 20
        + "\u202615 tokens truncated\u2026"
        + "n" * 20
    )
    assert _notes(run) == [bounded, "short"]


def test_a_background_cells_long_notification_is_bounded_in_its_status_display(kernel):
    run = execute(
        kernel.kc,
        '// @exec: {"yield_time_ms": 100, "max_output_tokens": 10}\n'
        'await tools.sleep({ms: 300}); notify("m".repeat(100)); await tools.sleep({ms: 60000})',
    )
    assert run.codemode["status"] == "running"
    parent_id = run.reply["parent_header"]["msg_id"]
    bounded = (
        "notify: Warning: truncated output (original token count: 25)\nTotal output lines: 1\n\n"
        + "m" * 20
        + "\u202615 tokens truncated\u2026"
        + "m" * 20
    )
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, "the notification never reached the status display"
        msg = kernel.kc.get_iopub_msg(timeout=30)
        if msg["parent_header"].get("msg_id") == parent_id and msg["msg_type"] == "update_display_data":
            text = msg["content"]["data"]["text/plain"]
            if "notify:" in text:
                assert text.endswith("\n" + bounded)
                break
    assert execute(kernel.kc, f"%terminate {run.codemode['cell_id']}").codemode["status"] == "terminated"
