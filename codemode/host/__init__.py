"""The client's connection to a code-mode runtime host, split by concern:

- :mod:`~codemode.host.spawn`: start the host process and handshake;
- :mod:`~codemode.host.connection`: :class:`HostConnection`, the operations callers use and
  what carries them out (read loop, writes, process watch, liveness watchdog), applying the
  state machine's effects in one place;
- :mod:`~codemode.host.state`: :class:`ConnectionState`, every transition as a pure function
  call returning :mod:`~codemode.host.effects`;
- :mod:`~codemode.host.request_tracker`, :mod:`~codemode.host.remote_sessions` (remote
  sessions and their live cells), :mod:`~codemode.host.delegate_book` (delegate calls served,
  deferred, finished) and :mod:`~codemode.host.delegate_server` (running them);
- :mod:`~codemode.host.incoming`: checks of host messages into typed forms;
- :mod:`~codemode.host.liveness`: noticing a host that stopped answering;
- :mod:`~codemode.host.provider`: :class:`HostProvider`, which connection new cells use.
"""

from codemode.host.connection import (
    SHUTDOWN_TIMEOUT_S,
    WAIT_TRANSPORT_TIMEOUT_S,
    HostConnection,
    terminate_deadline_s,
    wait_deadline_s,
)
from codemode.host.delegate_book import (
    MAX_DEFERRED_DELEGATE_MESSAGES,
    MAX_PENDING_DELEGATE_CALLS,
    MAX_RECENT_DELEGATE_IDS,
)
from codemode.host.liveness import Liveness
from codemode.host.provider import HostProvider
from codemode.host.remote_sessions import RemoteSession, SessionDelegate
from codemode.host.spawn import HOST_STARTUP_TIMEOUT_S, default_host_command, spawn_host
from codemode.host.state import ConnectionState

__all__ = [
    "HOST_STARTUP_TIMEOUT_S",
    "MAX_DEFERRED_DELEGATE_MESSAGES",
    "MAX_PENDING_DELEGATE_CALLS",
    "MAX_RECENT_DELEGATE_IDS",
    "SHUTDOWN_TIMEOUT_S",
    "WAIT_TRANSPORT_TIMEOUT_S",
    "ConnectionState",
    "HostConnection",
    "HostProvider",
    "Liveness",
    "RemoteSession",
    "SessionDelegate",
    "default_host_command",
    "spawn_host",
    "terminate_deadline_s",
    "wait_deadline_s",
]
