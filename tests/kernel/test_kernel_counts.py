"""Execution counts numbered as ipykernel numbers them, and empty cells, through a real kernel."""

from __future__ import annotations

from typing import Any

import pytest
from kernel_driver import collect, send_execute, start_kernel, stop_kernel, wait_for_iopub


@pytest.fixture
def fresh_kernel(codemode_kernelspec, tmp_path):
    """A kernel of its own, so its counts start at 1."""
    kernel = start_kernel(tmp_path)
    yield kernel
    stop_kernel(kernel)


def _counts(kc: Any, code: str, **kwargs: Any) -> tuple[int | None, int, str]:
    """``(execute_input's count or None, execute_reply's count, reply status)`` of one request."""
    msg_id = send_execute(kc, code, **kwargs)
    announced, seen = None, []
    if not kwargs.get("silent"):
        seen = wait_for_iopub(kc, msg_id, lambda m: m["msg_type"] == "execute_input")
        announced = seen[-1]["content"]["execution_count"]
    run = collect(kc, msg_id, earlier=seen)
    return announced, run.content["execution_count"], run.content["status"]


def test_counts_match_ipykernel_for_store_history_false_and_silent(fresh_kernel):
    # ipykernel 7 with IPython 9 answers this sequence with replies 1, 1, 1, 2 and execute_input
    # 1, 2, (none), 2: only a request that stores history advances the count, and execute_input
    # carries the number the next stored cell gets.
    kc = fresh_kernel.kc
    assert _counts(kc, 'text("a")') == (1, 1, "ok")
    assert _counts(kc, 'text("b")', store_history=False) == (2, 1, "ok")
    assert _counts(kc, 'text("c")', silent=True) == (None, 1, "ok")
    assert _counts(kc, 'text("d")') == (2, 2, "ok")
    # A failing cell counts like any other; one that does not store history does not.
    assert _counts(kc, 'throw new Error("x")') == (3, 3, "error")
    assert _counts(kc, 'throw new Error("y")', store_history=False) == (4, 3, "error")
    assert _counts(kc, "%cells") == (4, 4, "ok")


def test_empty_cells_reply_ok_without_output_and_are_not_counted(fresh_kernel):
    kc = fresh_kernel.kc
    assert _counts(kc, 'text("first")') == (1, 1, "ok")
    for code in ("", "  \n\t\n"):
        msg_id = send_execute(kc, code)
        run = collect(kc, msg_id)
        assert run.content["status"] == "ok", run.content
        assert run.messages == []
        assert run.content["execution_count"] == 1
        assert run.codemode["cell_id"] is None
    assert _counts(kc, 'text("next")') == (2, 2, "ok")


def test_an_empty_cell_does_not_stop_the_cells_queued_after_it(fresh_kernel):
    # A notebook's "run all" sends every cell at once with stop_on_error: a failure aborts the
    # cells queued after it, so an empty cell must not fail.
    kc = fresh_kernel.kc
    empty = send_execute(kc, "   ")
    after = send_execute(kc, 'text("ran after the empty cell")')
    assert collect(kc, empty).content["status"] == "ok"
    run = collect(kc, after)
    assert run.content["status"] == "ok", run.content
    assert run.stdout == "ran after the empty cell\n"


def test_a_cell_of_only_a_comment_runs_as_javascript(fresh_kernel):
    # As in Codex, whose exec refuses only blank input: a comment is a valid program.
    msg_id = send_execute(fresh_kernel.kc, "// nothing to do yet")
    run = collect(fresh_kernel.kc, msg_id)
    assert run.content["status"] == "ok"
    assert run.messages == []
    assert run.codemode["status"] == "completed"
    assert run.codemode["cell_id"] is not None
    assert run.content["execution_count"] == 1
