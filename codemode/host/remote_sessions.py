"""The remote sessions open on one host connection (Codex's ``RemoteSession``): each one's
delegate, its live cells, and whether it is closing. Pure bookkeeping, no I/O."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from codemode.cancellation import CancellationToken
from codemode.cell_events import SessionEvent


class SessionDelegate(Protocol):
    """What a connection calls back into for one remote session (Codex's
    ``CodeModeSessionDelegate``). Cell ids here are the host's ids."""

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        """Run a tool call; return its JSON result or raise ``ToolCallError`` to reject."""

    def report(self, event: SessionEvent) -> None:
        """What the host reported, as its frame is read (:mod:`codemode.cell_events`): a
        cell's answers, notifications, tool calls (before :meth:`invoke_tool` runs them) and
        close (exactly once per admitted cell), and committed stored values."""


@dataclass(eq=False)
class RemoteSession:
    """The client's record of one session opened on a host connection (``session-N``)."""

    session_id: str
    delegate: SessionDelegate
    live_cells: set[str] = field(default_factory=set)
    closing: bool = False
    """``session/shutdown`` was sent: the session counts as unknown for new calls."""

    def sorted_cells(self) -> list[str]:
        return sorted(self.live_cells, key=cell_sort_key)


def cell_sort_key(cell_id: str) -> tuple[int, str]:
    """Numeric host ids in numeric order, others after them."""
    return (int(cell_id), "") if cell_id.isdigit() else (2**63, cell_id)


class SessionRegistry:
    """Remote sessions by id."""

    def __init__(self) -> None:
        self._sessions: dict[str, RemoteSession] = {}

    def __contains__(self, session_id: str) -> bool:
        return session_id in self._sessions

    def __iter__(self) -> Iterator[RemoteSession]:
        return iter(list(self._sessions.values()))

    def get(self, session_id: str) -> RemoteSession | None:
        return self._sessions.get(session_id)

    def open(self, session_id: str) -> RemoteSession | None:
        """The session if it is registered and not closing."""
        session = self._sessions.get(session_id)
        return None if session is None or session.closing else session

    def add(self, session: RemoteSession) -> None:
        self._sessions[session.session_id] = session

    def remove(self, session: RemoteSession) -> None:
        if self._sessions.get(session.session_id) is session:
            del self._sessions[session.session_id]

    def clear(self) -> list[RemoteSession]:
        sessions = list(self._sessions.values())
        self._sessions.clear()
        return sessions
