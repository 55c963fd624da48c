"""What the other threads of the host know of a notebook realm's thread, and its interrupt.

The realm (:mod:`~codemode.runtime.realm`) runs every cell of a session on one thread. Other
threads (a terminate on the asyncio loop, a :class:`~codemode.runtime.realm_stop.StopWatch`)
must know, under one lock, whether that thread is inside JavaScript and for which cell's call
(None for a promise job, whose cell QuickJS cannot tell), must be able to interrupt it with a
reason the realm reads afterwards, and must learn when it comes back to its event loop
(:meth:`RealmThread.came_back` counts those returns). A realm given up (``lost``) or closed
keeps its interrupt armed for good, so the abandoned thread leaves at its next poll.
"""

from __future__ import annotations

import threading
from typing import Any

from codemode.runtime import interrupt


class RealmThread:
    """See the module docstring. ``lock`` is also the realm's lock for its cells' bookkeeping."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._returns = threading.Condition(self.lock)
        self._epoch = 0
        self.switch: interrupt.Interrupter | None = None
        self.in_js = False
        self.call_cell: Any = None
        """The cell of the call running now when the realm made it for that cell, else None."""
        self._armed = False
        self._reason: str | None = None
        self.lost: str | None = None
        """The error text of the realm's cells once it was given up."""
        self.closed = False

    @property
    def ended(self) -> bool:
        """The realm was given up or closed: no more JavaScript runs on it."""
        return self.lost is not None or self.closed

    # ---- the realm's thread -------------------------------------------------------------

    def enter(self, cell: Any) -> bool:
        """The thread calls into JavaScript for ``cell`` (None: a promise job); False when the
        realm has ended and nothing may run."""
        with self.lock:
            if self.ended:
                return False
            self.call_cell = cell
            self.in_js = True
            return True

    def leave(self) -> tuple[bool, str | None, bool]:
        """The call returned: whether an interrupt was armed for it and why, and whether the
        realm has ended meanwhile. The interrupt is disarmed unless it has."""
        with self.lock:
            self.in_js = False
            self.call_cell = None
            armed, self._armed = self._armed, False
            reason, self._reason = self._reason, None
            if armed and self.switch is not None and not self.ended:
                self.switch.disarm()
            return armed, reason, self.ended

    def came_back(self) -> None:
        """The thread is back at its event loop, every promise job run."""
        with self._returns:
            self._epoch += 1
            self._returns.notify_all()

    # ---- any thread -------------------------------------------------------------------

    @property
    def epoch(self) -> int:
        """How many times the thread came back (read under :attr:`lock` to pair with a decision)."""
        return self._epoch

    def arm(self, reason: str) -> bool:
        """Interrupt the JavaScript running now because ``reason`` (lock held); False when no
        interrupt is available."""
        if self.switch is None:
            return False
        if not self._armed:
            self.switch.arm()
            self._armed = True
            self._reason = reason
        return True

    def interrupt(self, reason: str) -> bool:
        """Interrupt the JavaScript running now, if any, because ``reason``."""
        with self.lock:
            return self.in_js and self.arm(reason)

    def wait_return(self, epoch: int, timeout_s: float) -> bool:
        """True once the thread came back after count ``epoch`` or the realm ended; False after
        ``timeout_s`` seconds."""
        with self._returns:
            return self._returns.wait_for(lambda: self._epoch != epoch or self.ended, timeout_s)

    def end(self, lost: str | None = None) -> bool:
        """Give the realm up (``lost``: its cells' text) or close it (None): JavaScript is
        interrupted for good. False when it had already ended."""
        with self.lock:
            if self.ended:
                return False
            if lost is None:
                self.closed = True
            else:
                self.lost = lost
            if self.switch is not None:
                self.switch.arm()
            self._returns.notify_all()
            return True
