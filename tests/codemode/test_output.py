"""Output truncation: the texts of Codex's ``truncate_code_mode_result``."""

import pytest

from codemode.wire.truncation import approx_token_count, truncate_content_items, truncate_middle

pytestmark = pytest.mark.unit


def t(text):
    return {"type": "input_text", "text": text}


def test_token_estimate_rounds_up_bytes_over_four():
    assert approx_token_count("") == 0
    assert approx_token_count("abcde") == 2
    assert approx_token_count("é") == 1


def test_pinned_forty_digits_five_tokens():
    digits = "0123456789" * 4
    assert truncate_content_items([t(digits)], 5) == [
        t(
            "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n"
            "0123456789\u20265 tokens truncated\u20260123456789"
        )
    ]


def test_fitting_text_passes_unchanged():
    items = [t("a"), t("b")]
    assert truncate_content_items(items, 1) == items


def test_several_texts_collapse_into_one_with_line_count():
    out = truncate_content_items([t("x" * 30), t("y" * 30)], 5)
    assert out == [
        t(
            "Warning: truncated output (original token count: 16)\nTotal output lines: 2\n\n"
            "xxxxxxxxxx\u202611 tokens truncated\u2026yyyyyyyyyy"
        )
    ]


def test_middle_truncation_respects_character_boundaries():
    text = "é" * 20  # 40 bytes
    assert truncate_middle(text, 3) == "ééé\u20267 tokens truncated\u2026ééé"  # 12 bytes budget


def test_zero_budget_leaves_only_marker():
    assert truncate_middle("abcdefgh", 0) == "\u20262 tokens truncated\u2026"


def test_images_are_kept_and_later_texts_counted():
    image = {"type": "input_image", "image_url": "data:image/png;base64,AAA", "detail": "high"}
    out = truncate_content_items([t("abcd"), image, t("x" * 40), t("more")], 3)
    assert out[0] == t("abcd")
    assert out[1] == image
    assert out[2] == t("xxxx\u20268 tokens truncated\u2026xxxx")
    assert out[3] == t("[omitted 1 text items ...]")


def test_audio_over_budget_alone():
    audio = {"type": "input_audio", "audio_url": "data:audio/wav;base64," + "A" * 100}
    assert truncate_content_items([audio], 5) == [t("[omitted 1 audio items ...]")]


def test_lines_are_counted_as_codex_counts_them():
    # Rust `str::lines().count()`: `\n` ends a line, a lone `\r` does not.
    from codemode.wire.truncation import text_line_count

    assert [text_line_count(s) for s in ["", "a", "a\n", "a\n\nb", "\n", "a\r\nb", "a\rb"]] == [0, 1, 1, 3, 1, 2, 1]
    out = truncate_content_items([t("a\rb" + "x" * 40)], 2)
    assert out == [
        t(
            "Warning: truncated output (original token count: 11)\nTotal output lines: 1\n\na\rbx\u20269 tokens truncated\u2026xxxx"
        )
    ]


def test_truncated_text_from_the_ends_matches_the_whole_text():
    from codemode.wire.truncation import head_bytes_needed, tail_bytes_needed, truncated_text

    data = ("é" * 30 + "\n" + "z" * 30).encode()
    head, tail = data[: head_bytes_needed(7)], data[-tail_bytes_needed(7) :]
    assert truncated_text(head, tail, len(data), 2, 7) == truncate_content_items([t(data.decode())], 7)[0]["text"]
    assert truncated_text(b"short", b"short", 5, 1, 7) == "short"
