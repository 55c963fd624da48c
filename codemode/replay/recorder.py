"""Recording the nested tool calls of a run, and the state a session's recording is in.

:class:`Recorder` is handed every call that reached its tool by the dispatcher
(:class:`~codemode.dispatch.dispatcher.ToolCallRuntime`) and appends it to the recording
(format: :mod:`codemode.replay.recording`). :func:`open_recording` turns the ``[recording]``
settings into a :class:`RecordingState`: a started recorder, or a :class:`Player` with the
tools a replay offers, or the problem that stopped either.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode.replay.player import Player
from codemode.replay.recording import (
    DECLARATION_KEYS,
    RecordedCall,
    RecordingError,
    RecordingWriter,
    call_line,
    now_iso,
    read_recording,
)
from codemode.tools.base import Tool
from codemode.tools.failures import exception_text

logger = logging.getLogger(__name__)


def declaration(tool: Tool) -> dict[str, Any]:
    """The ``tools`` line entry of ``tool`` (:data:`DECLARATION_KEYS`)."""
    return {key: getattr(tool, key) for key in DECLARATION_KEYS}


class Recorder:
    """Appends calls to a recording. ``recorded`` counts the calls written; a write that
    fails (a full disk) is logged and kept in ``problem``, and recording stops there."""

    def __init__(self, path: Path) -> None:
        self.writer = RecordingWriter(path)
        self.recorded = 0
        self.problem: str | None = None
        self._seq = 0
        self._tools: tuple[str, ...] | None = None

    def begin(self) -> tuple[int, str]:
        """Number a call that is about to reach its tool: ``(seq, started)`` (1, 2, ... in
        the order calls reach their tools; an ISO-8601 UTC time)."""
        self._seq += 1
        return self._seq, now_iso()

    def record(self, call: RecordedCall, tools: list[Tool]) -> None:
        """Append ``call``, after a ``tools`` line when ``tools`` (the session's enabled
        tools now) differ from those of the last such line."""
        if self.problem is not None:
            return
        try:
            names = tuple(tool.raw_name for tool in tools)
            if names != self._tools:
                self.writer.append({"type": "tools", "tools": [declaration(tool) for tool in tools]})
                self._tools = names
            self.writer.append(call_line(call))
            self.recorded += 1
        except (OSError, RuntimeError, TypeError, ValueError) as exc:
            self.problem = f"{self.writer.path}: recording stopped: {exception_text(exc)}"
            logger.warning("%s", self.problem)
            self.writer.close()

    def close(self) -> None:
        self.writer.close()


@dataclass
class RecordingState:
    """A session's recording: ``mode`` (``off``, ``record``, ``replay``), ``path``, and the
    ``recorder`` (record) or ``player`` (replay), None when off or when ``problems`` stopped it."""

    mode: str = "off"
    path: Path | None = None
    recorder: Recorder | None = None
    player: Player | None = None
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """One line for a person: the mode, the file, and the calls recorded or answered."""
        if self.mode == "off":
            return "Recording: off."
        if self.mode == "record":
            if self.recorder is None:
                return f"Recording: record, to {self.path}, stopped: {'; '.join(self.problems)}"
            stopped = f" Stopped: {self.recorder.problem}" if self.recorder.problem else ""
            return f"Recording: record, to {self.path}: {self.recorder.recorded} calls recorded.{stopped}"
        if self.player is None:
            return f"Recording: replay, from {self.path}, which cannot be used: {'; '.join(self.problems)}"
        player = self.player
        return (
            f"Recording: replay, from {self.path}: {len(player.recording.calls)} calls recorded, "
            f"{player.answered} answered, {player.unmatched} refused (not recorded)."
        )


def open_recording(mode: str, path: Path) -> RecordingState:
    """Start recording to ``path`` (``record``: the file is replaced by a new recording) or
    read it for a replay (``replay``); a problem (an unwritable folder, a corrupt recording) is
    one sentence in ``problems`` and leaves the recorder or player None. In replay mode that
    means no tool at all: a live tool is never used instead."""
    state = RecordingState(mode, path)
    if mode == "record":
        recorder = Recorder(path)
        try:
            recorder.writer.start()
        except OSError as exc:
            state.problems.append(f"{path}: cannot be written ({exc.strerror or exc}); tool calls are not recorded.")
        else:
            state.recorder = recorder
    elif mode == "replay":
        try:
            state.player = Player(read_recording(path))
        except RecordingError as exc:
            state.problems.append(f"{exc}. Replay mode offers no tools until the recording is fixed.")
    return state
