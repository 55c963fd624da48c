"""Compare a rerun cell's answer with the one Codex recorded, on the model's view.

Both sides are outputs as the model saw them (:mod:`codemode.model_view`): a plain string, or a
list of content items whose first is the header (``Script completed``, ``Wall time X.Y
seconds``, ``Output:``). :func:`view_text` writes one as readable lines: each item under a
``--- item N (type)`` line, an image as its detail, size and SHA-256 (never its data).

Noise is normalised in a fixed order, each step named by its reason (:data:`NOISE`):

- ``wall_time``: ``Wall time X.Y seconds`` and ``"wall_time_seconds": N`` (``exec_command``);
- ``ids``: ``Script running with cell ID N``, ``exec cell N not found`` and ``"chunk_id": "…"``
  (Codex mints cell ids per process and chunk ids at random);
- ``paths``: the session's working folder and the run's, each written ``<cwd>``;
- ``image_detail``: an image's ``detail``: Codex 0.171.0 recorded ``original`` on every image
  whatever the program asked (it depends on the model's capabilities, not on the program;
  :mod:`codemode.model_view`), codemode keeps the program's ``high`` or ``low``.

The views are ``same`` when equal after normalising; ``reason`` then names the most telling
step that removed a difference (:data:`_SIGNIFICANCE`; None when they were equal verbatim),
``normalised`` every such step. Otherwise they differ for
``program``: the program did something else, and ``diff`` is a unified diff of the normalised
views (recorded first). The other reasons of a report (``missing_tool``,
``no_recorded_result``) come from :mod:`codemode.replay.run`, not from here.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REASONS = ("wall_time", "ids", "paths", "image_detail", "missing_tool", "no_recorded_result", "program")
"""Every reason a report gives; only ``program`` marks a real divergence."""

_WALL = (
    (re.compile(r"Wall time \d+\.\d seconds"), "Wall time <t> seconds"),
    (re.compile(r'("wall_time_seconds"\s*:\s*)-?[\d.]+(?:[eE][-+]?\d+)?'), r"\1<t>"),
)
_DETAIL = ((re.compile(r"(\[image, detail )[^,]*,"), r"\1<d>,"),)
_IDS = (
    (re.compile(r"(Script running with cell ID )\S+"), r"\1<id>"),
    (re.compile(r"(exec cell )\S+( not found)"), r"\1<id>\2"),
    (re.compile(r'("chunk_id"\s*:\s*)"[^"]*"'), r'\1"<id>"'),
)


def _substitute(rules: tuple[tuple[re.Pattern[str], str], ...]) -> Callable[[str, str], str]:
    def apply(text: str, _folder: str) -> str:
        for pattern, replacement in rules:
            text = pattern.sub(replacement, text)
        return text

    return apply


def _paths(text: str, folder: str) -> str:
    return text.replace(folder, "<cwd>") if folder else text


NOISE: tuple[tuple[str, Callable[[str, str], str]], ...] = (
    ("wall_time", _substitute(_WALL)),
    ("ids", _substitute(_IDS)),
    ("paths", _paths),
    ("image_detail", _substitute(_DETAIL)),
)
"""The normalising steps, in order: ``(reason, fn(text, working_folder) -> text)``."""


def _item_text(item: Any) -> str:
    if not isinstance(item, dict):
        return repr(item)
    kind = item.get("type")
    if kind == "input_text":
        return str(item.get("text", ""))
    if kind == "input_image":
        url = str(item.get("image_url", ""))
        digest = hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
        return f"[image, detail {item.get('detail')}, {len(url)} characters, sha256 {digest}]"
    return repr(item)


def view_text(output: Any) -> str:
    """A model view as readable lines (module docstring); ``None`` reads as ``(no answer)``."""
    if output is None:
        return "(no answer)\n"
    items = [{"type": "input_text", "text": output}] if isinstance(output, str) else list(output)
    parts = []
    for number, item in enumerate(items, 1):
        kind = item.get("type") if isinstance(item, dict) else type(item).__name__
        text = _item_text(item)
        parts.append(f"--- item {number} ({kind})\n{text}{'' if text.endswith(chr(10)) else chr(10)}")
    return "".join(parts)


_SIGNIFICANCE = ("image_detail", "paths", "ids", "wall_time")
"""Which noise a ``same`` cell's ``reason`` names when it needed several: the first here.
Wall time comes last: whether it differs depends on the machine's speed."""


def _changed_lines(before: str, after: str) -> list[str]:
    """The lines only one side has (``ndiff``'s ``-``/``+`` lines): a step whose rewriting
    leaves these alone removed no difference, even if it rewrote equal lines on both sides."""
    if before == after:
        return []
    lines = difflib.ndiff(before.splitlines(keepends=True), after.splitlines(keepends=True))
    return [line for line in lines if line[:2] in ("- ", "+ ")]


@dataclass(frozen=True)
class Comparison:
    """The outcome for one cell: ``status`` ``same`` or ``differs``; ``reason`` (one of
    :data:`REASONS` or None); ``normalised``: every noise reason that changed a side; ``diff``:
    the unified diff (``""`` when same)."""

    status: str
    reason: str | None
    normalised: tuple[str, ...]
    diff: str


def compare(recorded: Any, new: Any, recorded_folder: str, run_folder: str) -> Comparison:
    """Compare the recorded model view with the rerun's (module docstring). ``recorded_folder``
    is the session's working folder, ``run_folder`` the one the rerun ran in."""
    before, after = view_text(recorded), view_text(new)
    if before == after:
        return Comparison("same", None, (), "")
    normalised = []
    for noise, step in NOISE:
        left, right = step(before, recorded_folder), step(after, run_folder)
        if _changed_lines(left, right) != _changed_lines(before, after):
            normalised.append(noise)
        before, after = left, right
    if before == after:
        reason = min(normalised, key=_SIGNIFICANCE.index) if normalised else None
        return Comparison("same", reason, tuple(normalised), "")
    diff = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), "recorded", "replayed"
    )
    return Comparison("differs", "program", tuple(normalised), "".join(diff))


__all__ = ["NOISE", "REASONS", "Comparison", "compare", "view_text"]
