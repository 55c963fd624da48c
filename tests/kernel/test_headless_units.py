"""Which requests run headless and which yields a cell asked for (:mod:`codemode.kernel.headless`)."""

from __future__ import annotations

import pytest

from codemode.kernel.headless import FULL_WINDOW_CHARS, asked_to_yield, follow_wait_ms, is_headless
from codemode.responses import RuntimeResponse

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("setting", "allow_stdin", "headless"),
    [
        ("auto", False, True),  # nbclient, papermill, nbconvert, nbval
        ("auto", True, False),  # JupyterLab, jupyter console
        ("always", True, True),
        ("never", False, False),  # replay --run
    ],
)
def test_which_requests_are_headless(setting, allow_stdin, headless):
    assert is_headless(setting, allow_stdin) is headless


def _yielded(text: str = "x") -> RuntimeResponse:
    return RuntimeResponse("Yielded", "1", [{"type": "input_text", "text": text}])


def test_a_yield_before_the_timer_was_asked_for_and_one_at_the_timer_was_not():
    assert asked_to_yield(_yielded(), 0.2, 600_000)
    assert asked_to_yield(_yielded(), 0.949, 1000)
    assert not asked_to_yield(_yielded(), 0.95, 1000)
    assert not asked_to_yield(_yielded(), 1.2, 1000)
    assert not asked_to_yield(RuntimeResponse("Result", "1", []), 0.1, 1000)


def test_an_early_yield_with_a_full_output_window_was_not_asked_for():
    assert asked_to_yield(_yielded("x" * (FULL_WINDOW_CHARS - 100)), 0.2, 600_000)
    assert not asked_to_yield(_yielded("x" * FULL_WINDOW_CHARS), 0.2, 600_000)


def test_the_follow_waits_are_the_default_yield_within_bounds():
    assert follow_wait_ms(10_000, 600_000) == 10_000
    assert follow_wait_ms(300, 600_000) == 1000
    assert follow_wait_ms(None, 600_000) == 1000
    assert follow_wait_ms(10_000, 400) == 400
