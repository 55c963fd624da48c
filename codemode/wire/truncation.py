"""Token estimates and output truncation of a cell's content items.

Follows Codex core's ``truncate_code_mode_result``, which Codex's runtime host also applies when
a session is opened with ``outputTruncation: "server"`` (in ``"client"`` mode, its default, the
host never truncates and the kernel calls :func:`truncate_content_items` itself). Budgets are in tokens; one token is 4 UTF-8 bytes.
"""

from __future__ import annotations

import json
import math
from typing import Any

ContentItem = dict[str, Any]
BYTES_PER_TOKEN = 4
DEFAULT_MAX_OUTPUT_TOKENS = 10_000
"""Budget of an exec or wait that sets none (Codex's ``DEFAULT_MAX_OUTPUT_TOKENS_PER_EXEC_CALL``)."""


def approx_token_count(text: str) -> int:
    """Codex's estimate: ``ceil(utf8_bytes / 4)``."""
    return math.ceil(len(text.encode("utf-8", "surrogatepass")) / BYTES_PER_TOKEN)


def _head(data: bytes, limit: int) -> bytes:
    """The longest prefix of ``data`` of at most ``limit`` bytes ending on a character boundary."""
    end = min(limit, len(data))
    while end > 0 and end < len(data) and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


def _tail(data: bytes, limit: int) -> bytes:
    """The longest suffix of at most ``limit`` bytes starting on a character boundary."""
    start = max(0, len(data) - limit)
    while start < len(data) and (data[start] & 0xC0) == 0x80:
        start += 1
    return data[start:]


def truncate_middle(text: str, max_tokens: int) -> str:
    """Keep the first and last ``max_tokens * 2`` bytes of ``text`` with a marker between.

    Returns ``text`` unchanged when it fits. The marker is ``…<N> tokens truncated…`` with
    ``N = ceil((total_bytes - budget_bytes) / 4)``, as in Codex's ``truncate_code_mode_result``.
    """
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max(0, max_tokens) * BYTES_PER_TOKEN:
        return text
    return _middle(data, data, len(data), max_tokens)


def _middle(head: bytes, tail: bytes, total_bytes: int, max_tokens: int) -> str:
    """The middle-truncated text of an over-budget text known by its ends (see
    :func:`truncated_text` for what ``head`` and ``tail`` must hold)."""
    budget = max(0, max_tokens) * BYTES_PER_TOKEN
    removed = math.ceil((total_bytes - budget) / BYTES_PER_TOKEN)
    kept_head = _head(head, budget // 2)
    kept_tail = _tail(tail, budget - budget // 2)
    return (
        kept_head.decode("utf-8", "surrogatepass")
        + f"\u2026{removed} tokens truncated\u2026"
        + kept_tail.decode("utf-8", "surrogatepass")
    )


def line_count(newlines: int, total_bytes: int, ends_with_newline: bool) -> int:
    """Lines of a text as Codex counts them (Rust ``str::lines().count()``): every ``\\n``
    ends a line, and a last line without ``\\n`` counts too; an empty text has 0 lines.
    ``newlines`` is the number of ``\\n`` characters, ``total_bytes`` the text's size."""
    if total_bytes == 0:
        return 0
    return newlines + (0 if ends_with_newline else 1)


def text_line_count(text: str) -> int:
    """:func:`line_count` of a whole string."""
    return line_count(text.count("\n"), len(text), text.endswith("\n"))


def head_bytes_needed(max_tokens: int) -> int:
    """How many leading bytes :func:`truncated_text` needs: the budget plus one (the byte
    after the kept head decides where a character boundary is; an over-budget text is at
    least that long, and a text that fits is kept whole)."""
    return max(0, max_tokens) * BYTES_PER_TOKEN + 1


def tail_bytes_needed(max_tokens: int) -> int:
    """How many trailing bytes :func:`truncated_text` needs: the tail's half of the budget."""
    budget = max(0, max_tokens) * BYTES_PER_TOKEN
    return budget - budget // 2


def truncated_text(head: bytes, tail: bytes, total_bytes: int, total_lines: int, max_tokens: int) -> str:
    """Codex's all-text truncation of a text that is known only by its ends and its counts.

    For output captured with bounded memory (``exec_command``): ``head`` is the text's first
    ``min(total_bytes, head_bytes_needed(max_tokens))`` UTF-8 bytes, ``tail`` its last
    ``tail_bytes_needed(max_tokens)`` bytes or more (or the whole text), ``total_bytes`` its
    size and ``total_lines`` its :func:`line_count`. Returns the text itself when it fits the
    budget of ``max_tokens * 4`` bytes (then ``head`` holds all of it), otherwise
    ``Warning: truncated output (original token count: N)\\nTotal output lines: L\\n\\n
    <head>…<K> tokens truncated…<tail>`` - the same text :func:`truncate_content_items` gives
    for the whole text as one item.
    """
    if total_bytes <= max(0, max_tokens) * BYTES_PER_TOKEN:
        return head[:total_bytes].decode("utf-8", "surrogatepass")
    original = math.ceil(total_bytes / BYTES_PER_TOKEN)
    return (
        f"Warning: truncated output (original token count: {original})\n"
        f"Total output lines: {total_lines}\n\n{_middle(head, tail, total_bytes, max_tokens)}"
    )


def _audio_tokens(item: ContentItem) -> int:
    return approx_token_count(str(item.get("audio_url", "")))


BUNDLE_KINDS = ("display_data", "execute_result")
"""The notebook profile's content items that carry a MIME bundle (``data``)."""


def plain_text(item: ContentItem) -> str:
    """The ``text/plain`` of a bundle item (:data:`BUNDLE_KINDS`), ``""`` when it has none."""
    data = item.get("data")
    text = data.get("text/plain", "") if isinstance(data, dict) else ""
    return text if isinstance(text, str) else json.dumps(text, ensure_ascii=False)


def bundle_tokens(item: ContentItem) -> int:
    """What a bundle item costs: the tokens of its largest representation other than a binary
    image (``image/*`` but SVG, which is text): the ``text/plain``, or the ``text/html`` or
    ``application/json`` of a large table, which ``text/plain`` abbreviates. JSON values count
    as their JSON text."""
    data = item.get("data")
    if not isinstance(data, dict):
        return 0
    sizes = [
        approx_token_count(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        for mime, value in data.items()
        if not (str(mime).startswith("image/") and mime != "image/svg+xml")
    ]
    return max(sizes, default=0)


def text_tokens(item: ContentItem) -> int:
    """What a text-like item costs against the budget: an ``input_text``'s or a ``stream``'s
    text, a bundle's :func:`bundle_tokens`; 0 for images and audio (counted apart)."""
    kind = item.get("type")
    if kind in BUNDLE_KINDS:
        return bundle_tokens(item)
    if kind in ("input_image", "input_audio"):
        return 0
    return approx_token_count(str(item.get("text", "")))


def _plain_only(item: ContentItem, max_tokens: int) -> ContentItem:
    """A bundle item reduced to its ``text/plain``, middle-truncated to ``max_tokens``."""
    return {
        "type": item.get("type"),
        "data": {"text/plain": truncate_middle(plain_text(item), max_tokens)},
        "metadata": {},
    }


TEXT_KINDS = ("input_text", "stream")
"""Items that are text alone: Codex's ``input_text`` and the notebook profile's ``stream``."""


def _text_lines(items: list[ContentItem]) -> list[str] | None:
    """The lines the all-text budget joins: each item's text (a ``stream``'s without the newline
    it ends with, which the join adds back); None when an item is not text (:data:`TEXT_KINDS`).
    One loop without a call per item: a cell may print 100 000 lines."""
    lines: list[str] = []
    for item in items:
        kind = item.get("type")
        if kind == "input_text":
            lines.append(str(item.get("text", "")))
        elif kind == "stream":
            lines.append(str(item.get("text", "")).removesuffix("\n"))
        else:
            return None
    return lines


def truncate_content_items(items: list[ContentItem], max_output_tokens: int) -> list[ContentItem]:
    """Apply Codex's output budget to one observation's items.

    ``items`` are wire content items (``input_text`` / ``input_image`` / ``input_audio``, and
    the notebook profile's ``stream`` / ``display_data`` / ``execute_result``);
    ``max_output_tokens`` is the call's budget. All-text output (``stream`` items count as
    text: ``console.log`` floods are cut as ``text()`` floods are) that does not fit collapses into
    one item ``Warning: truncated output (original token count: N)\nTotal output lines: L\n\n
    <middle-truncated text>`` (:func:`truncated_text`; lines counted as Codex does, see
    :func:`line_count`). With images or audio, texts are charged in order, the first
    overflowing text is middle-truncated, later texts and unaffordable audio are dropped and
    counted in ``[omitted <n> text items ...]`` / ``[omitted <n> audio items ...]``; images are
    always kept. Returns a new list; the input is not modified.

    The notebook profile's items (never in Codex's output) are charged in order with the same
    rules: a ``stream`` like a text (truncated, it keeps its ``name``); a bundle
    (``display_data``, ``execute_result``) by :func:`bundle_tokens`: kept whole when that fits,
    else reduced to its ``text/plain`` alone, middle-truncated to what is left, and counted in
    ``[showed only the text/plain of <n> display items ...]``; once the budget is spent a
    ``display_data`` is dropped (``[omitted <n> display items ...]``) while the cell's value
    (``execute_result``) keeps a ``text/plain`` of the truncation marker alone.
    """
    budget_tokens = max(0, max_output_tokens)
    lines = _text_lines(items)
    if lines is not None:
        if not lines:
            return []
        joined = "\n".join(lines)
        data = joined.encode("utf-8", "surrogatepass")
        if len(data) <= budget_tokens * BYTES_PER_TOKEN:
            return list(items)
        text = truncated_text(data, data, len(data), text_line_count(joined), budget_tokens)
        return [{"type": "input_text", "text": text}]

    remaining = budget_tokens
    out: list[ContentItem] = []
    omitted = {"text": 0, "audio": 0, "display": 0}
    reduced = 0
    for item in items:
        kind = item.get("type")
        if kind == "input_image":
            out.append(item)
        elif kind == "input_audio":
            cost = _audio_tokens(item)
            if cost <= remaining:
                remaining -= cost
                out.append(item)
            else:
                omitted["audio"] += 1
        elif kind in BUNDLE_KINDS:
            cost = bundle_tokens(item)
            if cost <= remaining:
                remaining -= cost
                out.append(item)
            elif remaining <= 0 and kind == "display_data":
                omitted["display"] += 1
            else:
                reduced += 1
                out.append(_plain_only(item, remaining))
                remaining -= min(remaining, approx_token_count(plain_text(item)))
        else:
            text = str(item.get("text", ""))
            cost = approx_token_count(text)
            if remaining <= 0 and cost > 0:
                omitted["text"] += 1
            elif cost <= remaining:
                remaining -= cost
                out.append(item)
            else:
                kept = item if kind == "stream" else {"type": "input_text"}
                out.append({**kept, "text": truncate_middle(text, remaining)})
                remaining = 0
    for what, count in omitted.items():
        if count:
            out.append({"type": "input_text", "text": f"[omitted {count} {what} items ...]"})
    if reduced:
        out.append({"type": "input_text", "text": f"[showed only the text/plain of {reduced} display items ...]"})
    return out
