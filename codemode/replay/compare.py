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
views (recorded first).

:func:`compare_notifications` compares the ``notify()`` texts of one exec the same way (each
text under a ``--- notify N`` line, the same noise); texts that differ give reason ``notify``.
The other reasons of a report (``missing_tool``, ``no_recorded_result``) come from
:mod:`codemode.replay.run`, not from here.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

REASONS = ("wall_time", "ids", "paths", "image_detail", "missing_tool", "no_recorded_result", "notify", "program")
"""Every reason a report gives; only :data:`DIVERGENCES` mark a real divergence."""
DIVERGENCES = ("program", "notify")
"""The reasons that mean the rerun did something else: the answer (``program``), or only the
``notify()`` texts (``notify``)."""

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


def notify_text(texts: list[str]) -> str:
    """``notify()`` texts as readable lines, each under a ``--- notify N`` line (``""`` for none)."""
    return "".join(f"--- notify {n}\n{t}{'' if t.endswith(chr(10)) else chr(10)}" for n, t in enumerate(texts, 1))


def _compare_texts(before: str, after: str, recorded_folder: str, run_folder: str, divergence: str) -> Comparison:
    """Normalise :data:`NOISE` step by step and compare; ``divergence`` is the reason when the
    texts still differ."""
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
    return Comparison("differs", divergence, tuple(normalised), "".join(diff))


def compare(recorded: Any, new: Any, recorded_folder: str, run_folder: str) -> Comparison:
    """Compare the recorded model view with the rerun's (module docstring). ``recorded_folder``
    is the session's working folder, ``run_folder`` the one the rerun ran in."""
    return _compare_texts(view_text(recorded), view_text(new), recorded_folder, run_folder, "program")


def compare_notifications(recorded: list[str], new: list[str], recorded_folder: str, run_folder: str) -> Comparison:
    """Compare the ``notify()`` texts one exec sent, in order, as Codex recorded them and as
    the rerun showed them; reason ``notify`` when they differ after the noise is normalised."""
    return _compare_texts(notify_text(recorded), notify_text(new), recorded_folder, run_folder, "notify")


def combine(answer: Comparison, notes: Comparison) -> Comparison:
    """One cell's outcome from its answer's and its notifications' comparisons: it differs when
    either does (for ``program`` when the answer does, else for ``notify``), the diffs one after
    the other; a ``same`` cell names the most telling noise of both."""
    normalised = tuple(noise for noise, _ in NOISE if noise in answer.normalised + notes.normalised)
    if answer.status == "same" and notes.status == "same":
        reason = min(normalised, key=_SIGNIFICANCE.index) if normalised else None
        return Comparison("same", reason, normalised, "")
    reason = answer.reason if answer.status == "differs" else notes.reason
    return Comparison("differs", reason, normalised, answer.diff + notes.diff)


__all__ = [
    "DIVERGENCES",
    "NOISE",
    "REASONS",
    "Comparison",
    "combine",
    "compare",
    "compare_notifications",
    "notify_text",
    "view_text",
]
