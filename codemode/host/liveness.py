"""Noticing a host that stopped answering (``kill -STOP``, a deadlock, a blocked event loop).

While a caller waits for the host (an open, an execute before ``execution/started``, an initial
response, a wait, a terminate, a shutdown) and the host has sent nothing for
:attr:`Liveness.silence_s`, the client sends a probe: a ``session/wait`` on a session id that is
never opened. Every host answers it at once and without side effects (Codex's 0.171 host and
ours both answer ``unknown code-mode session codemode-liveness-probe`` in under a millisecond,
also while a cell spins in ``while (true) {}`` and while a long wait is pending, since the
request loop does not run cells). When the probe is not answered within
:attr:`Liveness.answer_s`, the connection fails with ``code-mode host stopped responding: …``.

The defaults (5 s of silence, then 5 s for the answer) notice a stopped host within about 11 s
and never misfire on a host that is merely busy: a busy host still answers the probe in
milliseconds, and 5 s leaves room for a loaded machine, a garbage-collection pause or a 64 MiB
frame in transit. A long wait costs one tiny probe every 5 s of silence.
"""

from __future__ import annotations

from dataclasses import dataclass

from codemode.wire import messages

PROBE_SESSION_ID = "codemode-liveness-probe"
"""Never opened: a wait on it is answered at once with an error and changes nothing."""


@dataclass(frozen=True)
class Liveness:
    """How long the host may stay silent while a request waits (``silence_s``), and how long
    a probe may then take (``answer_s``), in seconds."""

    silence_s: float = 5.0
    answer_s: float = 5.0

    @property
    def tick_s(self) -> float:
        """How often the watchdog looks (a fifth of the shorter interval)."""
        return min(self.silence_s, self.answer_s) / 5


def probe_body() -> messages.WaitBody:
    return messages.wait_body(PROBE_SESSION_ID, "0", 0)


def stopped_responding(timeout_s: float) -> str:
    """The failure reason when a probe went unanswered."""
    return f"code-mode host stopped responding: no answer to a liveness probe within {timeout_s:g} s"
