"""Bookkeeping of the host's delegate requests (tool calls and notifications): the calls
being served, the requests deferred until their cell is admitted, and recently finished ids.
Pure, no I/O; :mod:`codemode.host.delegate_server` runs the calls."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_PENDING_DELEGATE_CALLS = 1024
"""Delegate calls the client serves at once; the next one is answered with Codex's error
``code-mode host exceeded the limit of 1024 pending delegate calls``."""
MAX_DEFERRED_DELEGATE_MESSAGES = 1024
"""Delegate requests held for cells not yet admitted; past it the connection fails with
``code-mode host exceeded deferred cross-socket message limit``."""
MAX_RECENT_DELEGATE_IDS = 4096
"""Finished delegate ids remembered to detect reuse (a reused id is fatal)."""


@dataclass(eq=False)
class ServedDelegateCall:
    """A delegate call being served for a live cell (counts against the 1024 limit)."""

    delegate_id: int
    session_id: str
    cell_id: str


@dataclass(eq=False)
class DeferredDelegateRequest:
    """A delegate request for a cell an execute in flight may still admit."""

    delegate_id: int
    session_id: str
    cell_id: str
    request: Any


class DelegateBook:
    def __init__(self) -> None:
        self.served: dict[int, ServedDelegateCall] = {}
        self.deferred: deque[DeferredDelegateRequest] = deque()
        self._recent: deque[int] = deque()
        self._recent_set: set[int] = set()

    def seen(self, delegate_id: int) -> bool:
        """The id is being served, deferred, or finished recently (reusing it is fatal)."""
        return (
            delegate_id in self.served
            or delegate_id in self._recent_set
            or any(d.delegate_id == delegate_id for d in self.deferred)
        )

    def remember(self, delegate_id: int) -> None:
        self._recent.append(delegate_id)
        self._recent_set.add(delegate_id)
        while len(self._recent) > MAX_RECENT_DELEGATE_IDS:
            self._recent_set.discard(self._recent.popleft())

    def deferrable(self) -> bool:
        return len(self.deferred) < MAX_DEFERRED_DELEGATE_MESSAGES

    def has_room(self) -> bool:
        return len(self.served) < MAX_PENDING_DELEGATE_CALLS

    def serve(self, delegate_id: int, session_id: str, cell_id: str) -> ServedDelegateCall:
        call = ServedDelegateCall(delegate_id, session_id, cell_id)
        self.served[delegate_id] = call
        return call

    def finished(self, call: ServedDelegateCall) -> None:
        """The call was answered (or ended unanswered after its revocation)."""
        if self.served.get(call.delegate_id) is call:
            del self.served[call.delegate_id]

    def cancel(self, delegate_id: Any) -> ServedDelegateCall | None:
        """``delegate/cancel``: the served call to revoke, or ``None`` (a deferred request with
        that id is dropped; an unknown id is ignored)."""
        call = self.served.pop(delegate_id, None) if isinstance(delegate_id, int) else None
        if call is None:
            for deferred in self.deferred:
                if deferred.delegate_id == delegate_id:
                    self.deferred.remove(deferred)
                    break
        return call

    def take_cell(self, session_id: str, cell_id: str) -> list[ServedDelegateCall]:
        """Stop serving the calls of a closed cell."""
        calls = [c for c in self.served.values() if c.session_id == session_id and c.cell_id == cell_id]
        for call in calls:
            del self.served[call.delegate_id]
        return calls

    def take_all(self) -> list[ServedDelegateCall]:
        calls = list(self.served.values())
        self.served.clear()
        self.deferred.clear()
        return calls

    def release(
        self, session_id: str, keep: Callable[[DeferredDelegateRequest], bool]
    ) -> list[DeferredDelegateRequest]:
        """Take, in arrival order, the deferred requests of ``session_id`` that ``keep`` rejects."""
        kept: deque[DeferredDelegateRequest] = deque()
        ready: list[DeferredDelegateRequest] = []
        for deferred in self.deferred:
            (kept if deferred.session_id != session_id or keep(deferred) else ready).append(deferred)
        self.deferred = kept
        return ready
