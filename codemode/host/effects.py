"""What the connection's state machine asks the connection to do.

:class:`~codemode.host.state.ConnectionState` never touches a future, a task or a pipe: each of
its transitions returns a list of these effects, and :class:`~codemode.host.connection.HostConnection`
applies them, in order, in one place (``_apply``). A test can drive the state machine with plain
calls and compare the effects.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codemode.cell_events import SessionEvent
from codemode.host.remote_sessions import RemoteSession
from codemode.responses import RuntimeResponse


@dataclass(frozen=True)
class Send:
    """Write ``message`` to the host (in the background, after the frames queued before it)."""

    message: Any


@dataclass(frozen=True)
class Resolve:
    """Answer the caller of request ``request_id`` with ``value`` (a wait/terminate gets a
    :class:`~codemode.responses.WaitOutcome`, open/shutdown the host's value, a probe ``None``)."""

    request_id: int
    value: Any


@dataclass(frozen=True)
class Reject:
    """Fail the caller of ``request_id`` with ``reason``: a ``CodeModeError``, or the
    connection's ``HostConnectionError`` when ``connection_error``."""

    request_id: int
    reason: str
    connection_error: bool = False


@dataclass(frozen=True)
class Settle:
    """Request ``request_id`` is over on the host: release waits held back behind it."""

    request_id: int


@dataclass(frozen=True)
class Admitted:
    """Execute ``request_id`` started ``cell_id``: expect its initial response, and hand
    ``(cell_id, initial response)`` to the caller when ``deliver``."""

    request_id: int
    cell_id: str
    deliver: bool


@dataclass(frozen=True)
class InitialResolve:
    request_id: int
    response: RuntimeResponse


@dataclass(frozen=True)
class InitialReject:
    request_id: int
    reason: str
    connection_error: bool = False


@dataclass(frozen=True)
class TerminateAbandoned:
    """Stop ``cell_id``: its execute's caller went away (``session/terminate``, errors ignored)."""

    session_id: str
    cell_id: str


@dataclass(frozen=True)
class ServeDelegate:
    """Run delegate call ``delegate_id`` (``request`` is the checked ``delegate/request``)
    through ``session``'s delegate and answer it, unless it is revoked first."""

    delegate_id: int
    session: RemoteSession
    cell_id: str
    request: Any


@dataclass(frozen=True)
class Revoke:
    """Cancel delegate call ``delegate_id``'s token; it is never answered and nobody waits."""

    delegate_id: int


@dataclass(frozen=True)
class Report:
    """Hand ``event`` to ``session``'s delegate now, while its frame is read
    (:mod:`codemode.cell_events`: a cell's events so keep the order of the host's frames).
    A cell's :class:`~codemode.cell_events.Closed` comes exactly once per admitted cell."""

    session: RemoteSession
    event: SessionEvent


@dataclass(frozen=True)
class HostExiting:
    """The host said it will exit on its own: no new cell may start on this connection."""

    reason: str


@dataclass(frozen=True)
class Kill:
    """The connection is dead: kill the host's process group, close its stdin, wake waiters."""


Effect = (
    Send
    | Resolve
    | Reject
    | Settle
    | Admitted
    | InitialResolve
    | InitialReject
    | TerminateAbandoned
    | ServeDelegate
    | Revoke
    | Report
    | HostExiting
    | Kill
)
