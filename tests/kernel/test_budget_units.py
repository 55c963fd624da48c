"""``kernel/budget.py`` on its own: how output and error share one delivery's budget."""

from __future__ import annotations

import pytest

from codemode.kernel import budget
from codemode.kernel.budget import bound_delivery
from codemode.kernel.render import ErrorParts

pytestmark = pytest.mark.unit

IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,AAAA"}


def _text(text: str) -> dict[str, str]:
    return {"type": "input_text", "text": text}


def test_no_budget_and_fitting_output_are_unchanged():
    items = [_text("a"), IMAGE]
    assert bound_delivery(items, None, None).items == items
    fitted = bound_delivery(items, "Error: boom", 100)
    assert fitted.items == items
    assert fitted.error == ErrorParts("Error", "boom", ["Error: boom"])


def test_the_error_keeps_half_the_budget_when_the_output_takes_it_all():
    bounded = bound_delivery([_text("o" * 400), IMAGE, _text("after")], "Error: " + "e" * 400, 20)
    # 20 tokens: the error keeps 10 (40 bytes), the output the other 10 (Codex's rules with an image).
    assert bounded.items == [
        _text("o" * 20 + "\u2026" + "90 tokens truncated" + "\u2026" + "o" * 20),
        IMAGE,
        _text("[omitted 1 text items ...]"),
    ]
    assert bounded.error == ErrorParts(
        "Error",
        "e" * 20 + "\u202690 tokens truncated\u2026" + "e" * 20,
        ["Error: " + "e" * 13 + "\u202692 tokens truncated\u2026" + "e" * 20],
    )


def test_the_error_takes_what_the_output_leaves():
    bounded = bound_delivery([_text("short")], "Error: " + "e" * 400, 50)
    assert bounded.items == [_text("short")]
    # The output costs 2 tokens, so the error may use 48 (192 bytes).
    assert bounded.error is not None
    assert bounded.error.evalue == "e" * 96 + "\u202652 tokens truncated\u2026" + "e" * 96


def test_tool_output_is_cut_at_a_character_boundary_within_the_budget():
    # 2 tokens are 8 bytes; "é" is 2 bytes and "😀" 4, so the cut falls before the emoji.
    assert budget.tool_output_part("ééé😀x", 0, 2) == ("ééé", 6, True)
    assert budget.tool_output_part("abcd", 4, 2) == ("abcd", 8, False)  # exactly fills it
    assert budget.tool_output_part("a", 8, 2) == ("", 8, True)
    assert budget.tool_output_part("x" * 10**6, 0, None) == ("x" * 10**6, 0, False)
