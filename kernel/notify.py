"""Showing ``notify()`` texts, held until the kernel knows the cell and bounded by its budget.

A ``notify(value)`` is delivered at once, not with the cell's output: while the cell is being
executed or waited on, as a ``display_data`` (``text/plain``, metadata
``{"codemode": {"notify": cell_id}}``) under that request; for a background cell, as one of the
latest texts in its status display; for a cell whose end was already shown, under the request
that showed it while that request runs, else not at all. Which
of these applies follows the host's order of the cell's events (:mod:`codemode.kernel.ordering`,
which also holds a notification that arrives before ``execute`` has returned the new cell's
id): a notification sent after the cell's ``Yielded`` goes to the status display.

Each text is bounded by the cell's ``max_output_tokens`` as Codex bounds a text output: one
over the budget keeps its start and end with Codex's marker between,
``Warning: truncated output (original token count: N)\\nTotal output lines: L\\n\\n
<head>…K tokens truncated…<tail>`` (``codemode.output.truncate_content_items``).
"""

from __future__ import annotations

from codemode.kernel.displays import StatusDisplays
from codemode.kernel.publish import Publisher
from codemode.kernel.state import KernelState

from codemode import output


def bounded_text(text: str, max_tokens: int | None) -> str:
    """``text`` within ``max_tokens`` (unchanged when it fits or no budget applies)."""
    if max_tokens is None:
        return text
    (item,) = output.truncate_content_items([{"type": "input_text", "text": text}], max_tokens)
    return str(item["text"])


class Notifications:
    """Shows the session's ``notify()`` texts through ``publisher`` (see the module docstring)."""

    def __init__(self, publisher: Publisher, state: KernelState, displays: StatusDisplays) -> None:
        self.publisher = publisher
        self.state = state
        self.displays = displays

    def on_notify(self, cell_id: str, text: str) -> None:
        """A notification of ``cell_id`` (called from the session's callback, on the kernel's
        loop): shown in the host's order of the cell's events (:mod:`codemode.kernel.ordering`)."""
        self.state.order.event(cell_id, lambda: self._show(cell_id, text))

    def _show(self, cell_id: str, text: str) -> None:
        record = self.state.cells.get(cell_id)
        budget = record.max_output_tokens if record is not None else self.state.max_output_tokens
        request = self.state.foreground(cell_id)
        if request is None and (record is None or not record.live):
            request = self.state.request if self.state.request and self.state.request.cell_id == cell_id else None
        if request is not None:
            shown = bounded_text(text, budget)
            self.publisher.emit(
                request,
                "display_data",
                {"data": {"text/plain": shown}, "metadata": {"codemode": {"notify": cell_id}}},
            )
            return
        if record is None or not record.live:
            return  # a cell whose end was already shown (e.g. terminated while the host went on)
        record.notify(bounded_text(text, budget))
        if record.displays:
            self.displays.update(record)
