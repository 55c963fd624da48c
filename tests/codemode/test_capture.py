"""``exec_command``'s bounded output capture (``codemode.tools.capture``): the same text as
Codex's truncation of the whole output (``codemode.wire.truncation.truncate_content_items``), with
memory bounded by the budget whatever the command prints."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codemode.tools.capture import OutputCapture
from codemode.wire.truncation import head_bytes_needed, tail_bytes_needed, truncate_content_items

# Bytes that exercise the decoder: ASCII, newlines, multi-byte characters, stray continuation
# bytes and truncated sequences.
PIECES = st.sampled_from(
    [b"a", b"\n", b"xyz", "é".encode(), "€".encode(), "😀".encode(), b"\x80", b"\xe2\x82", b"\xff", b"\r\n"]
)
STREAMS = st.lists(st.lists(PIECES, max_size=12).map(b"".join), max_size=12)


def whole_text_truncation(chunks: list[bytes], max_tokens: int, suffix: str = "") -> str:
    text = b"".join(chunks).decode("utf-8", "replace") + suffix
    return truncate_content_items([{"type": "input_text", "text": text}], max_tokens)[0]["text"]


def bound(max_tokens: int) -> int:
    return head_bytes_needed(max_tokens) + 2 * tail_bytes_needed(max_tokens)


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(STREAMS, st.integers(min_value=0, max_value=12), st.sampled_from(["", "\ncommand timed out"]))
def test_capture_renders_what_truncating_the_whole_output_gives(chunks, max_tokens, suffix):
    capture = OutputCapture(max_tokens)
    for chunk in chunks:
        capture.feed(chunk)
        assert capture.buffered_bytes <= bound(max_tokens)
    capture.finish()
    if suffix:
        capture.feed_text(suffix)
    assert capture.render() == whole_text_truncation(chunks, max_tokens, suffix)
    whole = (b"".join(chunks).decode("utf-8", "replace") + suffix).encode()
    assert capture.truncated == (len(whole) > max_tokens * 4)
    assert capture.original_token_count == (len(whole) + 3) // 4


@pytest.mark.unit
def test_pinned_forty_digits():
    capture = OutputCapture(5)
    for digit in b"0123456789" * 4:
        capture.feed(bytes([digit]))
    capture.finish()
    assert capture.render() == (
        "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n"
        "0123456789\u20265 tokens truncated\u20260123456789"
    )
    assert capture.original_token_count == 10


@pytest.mark.unit
def test_memory_stays_bounded_over_a_quarter_gibibyte():
    # 256 MiB in 64 KiB chunks, as a runaway command would print: the buffers never hold more
    # than the budget needs (head + twice the tail), and the counts cover everything.
    chunk = b"y\n" * 32768
    capture = OutputCapture(10_000)
    for _ in range(4096):
        capture.feed(chunk)
        assert capture.buffered_bytes <= bound(10_000)
    capture.finish()
    assert capture.total_bytes == 256 * 2**20 and capture.line_count == 128 * 2**20
    assert capture.render() == (
        f"Warning: truncated output (original token count: {64 * 2**20})\nTotal output lines: {128 * 2**20}\n\n"
        + "y\n" * 10_000
        + f"\u2026{64 * 2**20 - 10_000} tokens truncated\u2026"
        + "y\n" * 10_000
    )
