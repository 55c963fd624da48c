"""The output budget (``max_output_tokens``) of one delivery, error included.

Codex bounds what one observation of a cell returns to ``max_output_tokens`` (one token = 4
UTF-8 bytes; ``codemode.wire.truncation``). A failed cell's error counts too: Codex appends the error
as a last content item ``Script error:\\n<error_text>`` and truncates it together with the
output (Codex core's ``handle_runtime_response`` and ``truncate_code_mode_result``; its host
does the same when it truncates itself). The kernel shows the error as a Jupyter ``error`` output rather than as text, and bounds it the
same way:

- output plus ``Script error:\\n<error_text>`` within the budget: everything is shown whole;
- otherwise the error keeps what the output leaves of the budget, and at least half of it
  (the part Codex's middle truncation keeps from the end, where the error is), never more
  than it needs; the output gets the rest. The output is truncated with Codex's rules
  (``codemode.wire.truncation.truncate_content_items``: ``Warning: truncated output ...`` header and
  ``…N tokens truncated…`` marker), the error's text and message with its middle marker
  (``codemode.wire.truncation.truncate_middle``). The error's name is kept whole.

The notebook profile's items count too (``codemode.wire.truncation.truncate_content_items`` says how):
a ``stream`` by its text, a ``display_data`` or the cell's value (``execute_result``) by its
largest representation; one that does not fit keeps only its ``text/plain``, truncated.

What a cell's Python tools print (shown as ``stream`` output while they run; not part of
Codex's model, where tools do not print) shares the cell's budget too, across all its calls:
:func:`tool_output_part` shows the first ``max_output_tokens`` worth and then one notice.

The output a terminated cell had not delivered yet is bounded by at most
:data:`TERMINATED_MAX_TOKENS` (about 1 MB), so an interrupt's reply comes at once even after
a flood of text with a raised budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codemode.kernel.render import ErrorParts, parse_error_text
from codemode.wire import truncation

TERMINATED_MAX_TOKENS = 250_000
"""Budget (about 1 MB) of the output a terminated cell left undelivered, whatever its own
budget: shown whole at once, it never holds the interrupt's reply back behind the pacing of
a large delivery (:class:`~codemode.kernel.streams.Pacer`)."""


def terminated_budget(max_tokens: int | None) -> int:
    """The budget of a terminated cell's last delivery: its own, at most :data:`TERMINATED_MAX_TOKENS`."""
    return TERMINATED_MAX_TOKENS if max_tokens is None else min(max_tokens, TERMINATED_MAX_TOKENS)


SCRIPT_ERROR_PREFIX = "Script error:\n"
"""How Codex's host labels the error it appends to a failed cell's content items."""


@dataclass
class Bounded:
    """One delivery within its budget: the content ``items`` to show and the ``error`` (None
    when the cell did not fail)."""

    items: list[dict[str, Any]]
    error: ErrorParts | None


def _text_tokens(items: list[dict[str, Any]]) -> int:
    return sum(truncation.text_tokens(item) for item in items)


def bound_error(error_text: str, max_tokens: int) -> ErrorParts:
    """The error output of ``error_text`` within ``max_tokens``: name whole, message and
    traceback middle-truncated (unchanged when ``error_text`` fits)."""
    parts = parse_error_text(error_text)
    if truncation.approx_token_count(error_text) <= max_tokens:
        return parts
    traceback = truncation.truncate_middle(error_text, max_tokens).splitlines()
    return ErrorParts(parts.ename, truncation.truncate_middle(parts.evalue, max_tokens), traceback)


def bound_delivery(items: list[dict[str, Any]], error_text: str | None, max_tokens: int | None) -> Bounded:
    """``items`` and the error ``error_text`` (None: no error) within ``max_tokens`` (None: no
    budget) as the module docstring says."""
    if max_tokens is None:
        return Bounded(list(items), parse_error_text(error_text) if error_text is not None else None)
    if error_text is None:
        return Bounded(truncation.truncate_content_items(items, max_tokens), None)
    together = [*items, {"type": "input_text", "text": SCRIPT_ERROR_PREFIX + error_text}]
    if truncation.truncate_content_items(together, max_tokens) == together:
        return Bounded(list(items), parse_error_text(error_text))
    budget = max(0, max_tokens)
    needed = truncation.approx_token_count(error_text)
    error_budget = min(needed, max(budget - _text_tokens(items), budget - budget // 2))
    return Bounded(
        truncation.truncate_content_items(items, budget - error_budget),
        bound_error(error_text, error_budget),
    )


def tool_output_notice(max_tokens: int) -> str:
    """The ``stderr`` line shown once when a cell's tools printed more than its budget."""
    return (
        f"\n[The tools of this cell printed more than its max_output_tokens ({max_tokens} tokens, "
        f"{max_tokens * truncation.BYTES_PER_TOKEN} bytes); the rest of what they print is not shown.]\n"
    )


def tool_output_part(text: str, shown_bytes: int, max_tokens: int | None) -> tuple[str, int, bool]:
    """What may be shown of ``text`` (printed by a tool) when the cell's tools have shown
    ``shown_bytes`` UTF-8 bytes so far, within ``max_tokens`` (None: no budget).

    Returns ``(part, shown_bytes, exhausted)``: the part to show (a prefix, cut at a character
    boundary), the bytes shown counting it, and True when ``text`` did not fit whole (the
    caller then shows :func:`tool_output_notice` once and nothing more for the cell)."""
    if max_tokens is None:
        return text, shown_bytes, False
    data = text.encode("utf-8", "surrogatepass")
    room = max(0, max_tokens) * truncation.BYTES_PER_TOKEN - shown_bytes
    if len(data) <= room:
        return text, shown_bytes + len(data), False
    part = data[: max(0, room)].decode("utf-8", "ignore")
    return part, shown_bytes + len(part.encode("utf-8", "surrogatepass")), True
