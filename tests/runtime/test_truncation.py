"""Server-side output truncation with Codex's exact texts (recorded cases output_truncation_server*)."""

from __future__ import annotations

import pytest

from codemode.wire.truncation import (
    DEFAULT_MAX_OUTPUT_TOKENS,
    approx_token_count,
    truncate_content_items,
    truncate_middle,
)

pytestmark = pytest.mark.unit


def truncate_items(items: list, max_output_tokens: int | None) -> list:
    """The host's call: ``None`` is the default budget."""
    budget = DEFAULT_MAX_OUTPUT_TOKENS if max_output_tokens is None else max_output_tokens
    return truncate_content_items(items, budget)


def _text(value: str) -> dict:
    return {"type": "input_text", "text": value}


IMAGE = {"type": "input_image", "image_url": "data:image/png;base64,AA", "detail": "high"}


def test_pinned_example_forty_digits_five_tokens():
    """40 digits with max_output_tokens 5 (Codex's marker and header, recorded)."""
    digits = "0123456789" * 4
    assert truncate_items([_text(digits)], 5) == [
        _text(
            "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n"
            "0123456789\u20265 tokens truncated\u20260123456789"
        )
    ]


def test_within_budget_items_pass_unchanged():
    items = [_text("a"), _text("b")]
    assert truncate_items(items, 1) == items


def test_all_text_joined_with_newlines_and_lines_counted():
    items = [_text("x" * 30), _text("y" * 30)]
    (only,) = truncate_items(items, 5)
    assert only["text"].startswith("Warning: truncated output (original token count: 16)\nTotal output lines: 2\n\n")
    assert "\u202611 tokens truncated\u2026" in only["text"]


def test_budget_zero_leaves_only_the_marker():
    (only,) = truncate_items([_text("abcdefgh")], 0)
    assert only["text"] == (
        "Warning: truncated output (original token count: 2)\nTotal output lines: 1\n\n\u20262 tokens truncated\u2026"
    )


def test_default_budget_is_ten_thousand_tokens():
    big = "word " * 20000
    (only,) = truncate_items([_text(big), _text("tail item")], None)
    assert only["text"].startswith("Warning: truncated output (original token count: 25003)\n")


def test_mixed_with_images_truncates_texts_one_by_one():
    """The recorded output_truncation_server cell 1."""
    first = "A" * 50 + " " + "0123456789 " * 30 + "END"
    items = [_text(first), _text("second item " + "b" * 100), IMAGE, _text("third item after image")]
    assert truncate_items(items, 20) == [
        _text("A" * 40 + "\u202676 tokens truncated\u2026" + "789 0123456789 0123456789 0123456789 END"),
        IMAGE,
        _text("[omitted 2 text items ...]"),
    ]


def test_audio_over_budget_is_omitted():
    audio = {"type": "input_audio", "audio_url": "data:audio/wav;base64," + "A" * 400}
    assert truncate_items([audio, IMAGE], 10) == [IMAGE, _text("[omitted 1 audio items ...]")]


def test_utf8_safe_cuts_and_estimate():
    assert approx_token_count("é") == 1 and approx_token_count("abcde") == 2
    cut = truncate_middle("é" * 10, 1)  # 4 bytes: 2 from each end, whole characters only
    assert cut.startswith("é") and cut.endswith("é") and "tokens truncated" in cut
