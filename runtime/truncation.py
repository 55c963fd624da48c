"""Host-side output truncation for sessions opened with ``outputTruncation: "server"``.

The algorithm and texts are Codex's (``spec/codex-code-mode.md`` §2.4, confirmed by the
0.171 recordings ``output_truncation_server``, ``huge_text_server_default_budget`` and
``wait_max_output_tokens``):

* tokens are estimated as ``ceil(utf8_bytes / 4)``; a budget of N tokens is 4N bytes;
* all-text output over budget collapses into one item
  ``Warning: truncated output (original token count: N)\\nTotal output lines: L\\n\\n``
  followed by the middle-truncated join (``\\n``) of the texts;
* with images or audio present, texts are charged in order, the first one that does
  not fit is middle-truncated to what is left, later ones are dropped, images are
  free, audio is charged and dropped when it does not fit, and
  ``[omitted N text items ...]`` / ``[omitted N audio items ...]`` close the list.

Middle truncation keeps ``budget_bytes // 2`` bytes from the start and the rest of the
budget from the end, on UTF-8 character boundaries, joined by
``…<K> tokens truncated…`` where K = ceil((total_bytes - budget_bytes) / 4).
"""

from __future__ import annotations

from typing import Any

DEFAULT_MAX_OUTPUT_TOKENS = 10_000
"""Budget when the request sets none (``DEFAULT_MAX_OUTPUT_TOKENS_PER_EXEC_CALL``)."""


def approx_tokens(text: str) -> int:
    """Codex's token estimate of ``text``: ceil(UTF-8 bytes / 4)."""
    return (len(text.encode("utf-8", "surrogatepass")) + 3) // 4


def _head_bytes(data: bytes, limit: int) -> str:
    cut = max(0, min(limit, len(data)))
    return data[:cut].decode("utf-8", "ignore")


def _tail_bytes(data: bytes, limit: int) -> str:
    cut = max(0, min(limit, len(data)))
    return data[len(data) - cut :].decode("utf-8", "ignore") if cut else ""


def middle_truncate(text: str, budget_bytes: int) -> str:
    """Keep the head and tail of ``text`` within ``budget_bytes``, marker in between."""
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= budget_bytes:
        return text
    head_budget = budget_bytes // 2
    tail_budget = budget_bytes - head_budget
    removed = (len(data) - budget_bytes + 3) // 4
    return f"{_head_bytes(data, head_budget)}\u2026{removed} tokens truncated\u2026{_tail_bytes(data, tail_budget)}"


def _line_count(text: str) -> int:
    if not text:
        return 0
    count = text.count("\n") + 1
    return count - 1 if text.endswith("\n") else count


def truncate_items(items: list[dict[str, Any]], max_output_tokens: int | None) -> list[dict[str, Any]]:
    """Apply Codex's truncation to content items with a budget of ``max_output_tokens``.

    ``None`` means the default of 10 000 tokens. Returns a new list; the input is not
    modified.
    """
    budget = DEFAULT_MAX_OUTPUT_TOKENS if max_output_tokens is None else max(0, int(max_output_tokens))
    budget_bytes = budget * 4
    if all(item.get("type") == "input_text" for item in items):
        joined = "\n".join(str(item.get("text", "")) for item in items)
        size = len(joined.encode("utf-8", "surrogatepass"))
        if size <= budget_bytes:
            return list(items)
        text = (
            f"Warning: truncated output (original token count: {(size + 3) // 4})\n"
            f"Total output lines: {_line_count(joined)}\n\n"
            f"{middle_truncate(joined, budget_bytes)}"
        )
        return [{"type": "input_text", "text": text}]

    remaining = budget
    out: list[dict[str, Any]] = []
    omitted_text = 0
    omitted_audio = 0
    for item in items:
        kind = item.get("type")
        if kind == "input_image":
            out.append(item)
        elif kind == "input_audio":
            cost = approx_tokens(str(item.get("audio_url", "")))
            if cost <= remaining:
                remaining -= cost
                out.append(item)
            else:
                omitted_audio += 1
        else:
            text = str(item.get("text", ""))
            cost = approx_tokens(text)
            if cost <= remaining:
                remaining -= cost
                out.append(item)
            elif remaining > 0:
                out.append({"type": "input_text", "text": middle_truncate(text, remaining * 4)})
                remaining = 0
            else:
                omitted_text += 1
    if omitted_text:
        out.append({"type": "input_text", "text": f"[omitted {omitted_text} text items ...]"})
    if omitted_audio:
        out.append({"type": "input_text", "text": f"[omitted {omitted_audio} audio items ...]"})
    return out
