"""Token estimates and output truncation of a cell's content items.

Follows ``spec/codex-code-mode.md`` §2.4 (Codex core ``truncate_code_mode_result``) and the
server-mode behaviour recorded in ``oracle/README.md`` ("output truncation"). The host truncates
when a session is opened with ``outputTruncation: "server"``; in ``"client"`` mode the kernel
calls :func:`truncate_content_items` itself. Budgets are in tokens; one token is 4 UTF-8 bytes.
"""

from __future__ import annotations

import math
from typing import Any

ContentItem = dict[str, Any]
BYTES_PER_TOKEN = 4


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
    ``N = ceil((total_bytes - budget_bytes) / 4)`` (``spec/codex-code-mode.md`` §2.4).
    """
    data = text.encode("utf-8", "surrogatepass")
    budget = max(0, max_tokens) * BYTES_PER_TOKEN
    if len(data) <= budget:
        return text
    removed = math.ceil((len(data) - budget) / BYTES_PER_TOKEN)
    head = _head(data, budget // 2)
    tail = _tail(data, budget - budget // 2)
    return (
        head.decode("utf-8", "surrogatepass")
        + f"\u2026{removed} tokens truncated\u2026"
        + tail.decode("utf-8", "surrogatepass")
    )


def _audio_tokens(item: ContentItem) -> int:
    return approx_token_count(str(item.get("audio_url", "")))


def truncate_content_items(items: list[ContentItem], max_output_tokens: int) -> list[ContentItem]:
    """Apply Codex's output budget to one observation's items (§2.4).

    ``items`` are wire content items (``input_text`` / ``input_image`` / ``input_audio``);
    ``max_output_tokens`` is the call's budget. All-text output that does not fit collapses into
    one item ``Warning: truncated output (original token count: N)\\nTotal output lines: L\\n\\n
    <middle-truncated text>``. With images or audio, texts are charged in order, the first
    overflowing text is middle-truncated, later texts and unaffordable audio are dropped and
    counted in ``[omitted <n> text items ...]`` / ``[omitted <n> audio items ...]``; images are
    always kept. Returns a new list; the input is not modified.
    """
    budget_tokens = max(0, max_output_tokens)
    if all(item.get("type") == "input_text" for item in items):
        if not items:
            return []
        joined = "\n".join(str(item.get("text", "")) for item in items)
        if len(joined.encode("utf-8", "surrogatepass")) <= budget_tokens * BYTES_PER_TOKEN:
            return list(items)
        lines = len(joined.splitlines()) or 1
        text = (
            f"Warning: truncated output (original token count: {approx_token_count(joined)})\n"
            f"Total output lines: {lines}\n\n{truncate_middle(joined, budget_tokens)}"
        )
        return [{"type": "input_text", "text": text}]

    remaining = budget_tokens
    out: list[ContentItem] = []
    omitted_text = 0
    omitted_audio = 0
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
                omitted_audio += 1
        else:
            text = str(item.get("text", ""))
            cost = approx_token_count(text)
            if remaining <= 0 and cost > 0:
                omitted_text += 1
            elif cost <= remaining:
                remaining -= cost
                out.append(item)
            else:
                out.append({"type": "input_text", "text": truncate_middle(text, remaining)})
                remaining = 0
    if omitted_text:
        out.append({"type": "input_text", "text": f"[omitted {omitted_text} text items ...]"})
    if omitted_audio:
        out.append({"type": "input_text", "text": f"[omitted {omitted_audio} audio items ...]"})
    return out
