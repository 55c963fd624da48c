"""The requests of one host connection (Codex's request tracker): ids ``1, 2, 3…``, what each
one is, whether its caller still waits, which executes still owe an initial response, and
which cancelled waits the host has not answered yet (one observer per cell). Pure, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codemode.errors import CodeModeError

RequestKind = Literal["open", "execute", "wait", "terminate", "shutdown", "probe", "bindings"]
MAX_REQUEST_ID = 2**63 - 1


@dataclass(eq=False)
class PendingRequest:
    """One ``operation/request`` of the client.

    ``answer`` is what its caller was given (``None`` while it waits); ``abandoned``: the caller
    went away; ``sent``: the frame was handed to the host's stdin; ``admitted_cell``: the cell an
    execute started.
    """

    request_id: int
    kind: RequestKind
    session_id: str
    cell_id: str | None = None
    sent: bool = False
    abandoned: bool = False
    answer: Literal["ok", "error"] | None = None
    admitted_cell: str | None = None


class RequestTracker:
    def __init__(self) -> None:
        self._last_id = 0
        self.pending: dict[int, PendingRequest] = {}
        """Requests the host has not answered."""
        self.initial: dict[int, tuple[str, str]] = {}
        """Execute request id -> (session id, cell id) whose initial response is still due."""
        self.retiring: dict[tuple[str, str], PendingRequest] = {}
        """(session id, cell id) -> the cancelled wait on that cell not yet answered."""

    def begin(self, kind: RequestKind, session_id: str, cell_id: str | None = None) -> PendingRequest:
        """Allocate the next id and track the request. Raises ``CodeModeError`` once the id space
        (signed 64 bits, as Codex's ``RequestId``) is used up."""
        if self._last_id + 1 >= MAX_REQUEST_ID:
            raise CodeModeError("code-mode host request ID space exhausted")
        self._last_id += 1
        pending = PendingRequest(self._last_id, kind, session_id, cell_id)
        self.pending[pending.request_id] = pending
        return pending

    def take(self, request_id: int) -> PendingRequest | None:
        """The request answered by the host, no longer pending; releases a retiring wait."""
        pending = self.pending.pop(request_id, None)
        if pending is not None and pending.cell_id is not None:
            key = (pending.session_id, pending.cell_id)
            if self.retiring.get(key) is pending:
                del self.retiring[key]
        return pending

    def retiring_wait(self, session_id: str, cell_id: str) -> PendingRequest | None:
        return self.retiring.get((session_id, cell_id))

    def in_flight_wait(self, session_id: str, cell_id: str) -> PendingRequest | None:
        """The wait on the cell whose caller still waits for the host's answer."""
        for pending in self.pending.values():
            if (
                pending.kind == "wait"
                and pending.session_id == session_id
                and pending.cell_id == cell_id
                and pending.sent
                and not pending.abandoned
            ):
                return pending
        return None

    def execute_pending(self, session_id: str) -> bool:
        """An execute of the session waits for ``execution/started`` (it may admit a cell)."""
        return any(p.kind == "execute" and p.session_id == session_id for p in self.pending.values())

    def awaiting_host(self) -> bool:
        """A caller's request or an initial response is due from the host (liveness matters)."""
        return bool(self.initial) or any(p.kind != "probe" for p in self.pending.values())

    def clear(self) -> tuple[list[PendingRequest], list[int]]:
        """Forget everything; returns the pending requests and the executes owed an initial response."""
        pending, initial = list(self.pending.values()), list(self.initial)
        self.pending.clear()
        self.initial.clear()
        self.retiring.clear()
        return pending, initial
