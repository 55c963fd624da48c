"""The replay row: converting a 10 000-line Codex session file into a notebook.

The session is made from the real one in ``tests/replay/sessions/s07_long_session.jsonl``
(written by Codex CLI 0.171.0): its first turn, then its resumed second turn (from the line
where the second Codex process opened the thread) repeated with fresh call ids until the file
has :data:`LINES` lines, so every repeat is one more process, as after a ``codex exec resume``.
codemode's side reads the file and makes the notebook's text (:mod:`codemode.replay`); the peer
is the floor under any reader, ``json.loads`` of every line. The goal is absolute: well under a
second.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from pathlib import Path

from bench.rows import Goal, Lossy, Row, Side

LINES = 10_000
SOURCE = Path(__file__).resolve().parent.parent / "tests" / "replay" / "sessions" / "s07_long_session.jsonl"
RESUME_LINE = 55
"""The 1-based line of s07 where the second Codex process opened the thread."""


def long_session(folder: Path, lines: int = LINES) -> Path:
    """A session file of ``lines`` lines (module docstring)."""
    source = SOURCE.read_text(encoding="utf-8").splitlines(keepends=True)
    head, turn = source[: RESUME_LINE - 1], source[RESUME_LINE - 1 :]
    out = list(head)
    repeat = 0
    while len(out) < lines:
        repeat += 1
        block = (
            "".join(turn)
            .replace('"call_exec_', f'"call_r{repeat}_exec_')
            .replace('"call_wait_', f'"call_r{repeat}_wait_')
        )
        out.extend(block.splitlines(keepends=True))
    path = folder / "rollout-long.jsonl"
    path.write_text("".join(out[:lines]), encoding="utf-8")
    return path


class Convert(Side):
    """codemode: :func:`codemode.replay.rollout.read_session`, then the notebook as text."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cells = 0

    def sample(self, size: int) -> float:
        from codemode.replay.convert import notebook_text, session_notebook
        from codemode.replay.rollout import read_session

        started = time.perf_counter()
        notebook = session_notebook(read_session(self.path))
        text = notebook_text(notebook)
        seconds = time.perf_counter() - started
        if not text or len(notebook["cells"]) < 1000:
            raise Lossy(f"the notebook has {len(notebook['cells'])} cells")
        self.cells = len(notebook["cells"])
        return seconds

    def notes(self) -> list[str]:
        return [f"the {LINES}-line session gives a notebook of {self.cells} cells"]


class ParseLines(Side):
    """The floor: ``json.loads`` of every line of the same file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def sample(self, size: int) -> float:
        started = time.perf_counter()
        with self.path.open(encoding="utf-8") as stream:
            records = [json.loads(line) for line in stream]
        seconds = time.perf_counter() - started
        if len(records) != LINES:
            raise Lossy(f"{len(records)} lines read")
        return seconds


def _setup(stack: contextlib.ExitStack, with_peer: bool) -> tuple[Side, Side | None]:
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="codemode-bench-replay-")))
    path = long_session(folder)
    return Convert(path), ParseLines(path) if with_peer else None


REPLAY = Row(
    name="replay",
    path="convert a 10 000-line Codex session to a notebook",
    ours="`read_session` + `session_notebook` + `notebook_text`",
    peer="`json.loads` of every line",
    goal=Goal(500, absolute_ms=True),
    setup=_setup,
)
