"""What a stop of a notebook realm's cell does when the realm's thread does not come back.

QuickJS cannot say whose promise job runs, so when a cell of the realm
(:mod:`~codemode.runtime.realm`) is stopped, the realm knows for sure only whether the
JavaScript running now is a call it made for that very cell (its start, a timer, a tool's
settlement). Any other JavaScript may be the stopped cell's too: a loop resumed after a promise
another cell settled, a loop in a ``.then`` callback, a function of an ended cell whose helpers
act for another cell. A :class:`StopWatch`, one thread per stop, sees to it that the stop takes
effect whatever the realm guessed:

- the realm's thread must come back to its event loop (every promise job run, the stop
  handled) within :data:`STOP_GRACE_S`; if JavaScript still runs then, it is interrupted, and
  again every :data:`REARM_S` (an interrupt is dropped when the call it was armed for returns
  unhit, as an interrupt of a job that ends first would be);
- if the thread has not come back after :data:`RESET_AFTER_S` (one engine call that never
  polls the interrupt, such as the default ``sort`` of a big array, a host without an
  in-process interrupt, a helper waiting for room in another cell's output), the realm is
  given up: every cell of it ends, the session's next cells get a fresh realm, and the
  abandoned thread leaves at its next interrupt poll (a native call that never ends keeps it).

The interrupted code's owner (the cell the realm called for, or in a promise job the one whose
body is on the interrupt's stack, ``notebook_cell.interrupted_cell``) is known afterwards: when it was another live cell's, that cell ends with
:func:`collateral_text` instead of waiting forever for a body that will never resume.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Protocol

log = logging.getLogger(__name__)

STOP_GRACE_S = 0.1
"""How long a stop waits for the realm's thread to come back before it interrupts what runs."""
REARM_S = 0.05
"""How often the interrupt is armed again while the thread does not come back."""
RESET_AFTER_S = 0.35
"""When the realm is given up: below the session's half second for a terminate
(``session.TERMINATE_JOIN_TIMEOUT_S``), so the terminate's answer follows the reset."""


class StoppingRealm(Protocol):
    """What a :class:`StopWatch` drives (``realm.Realm``)."""

    def wait_idle(self, epoch: int, timeout_s: float) -> bool:
        """True once the realm's thread came back to its event loop after ``epoch`` (or the
        realm ended); False after ``timeout_s`` seconds."""
        ...

    def interrupt_stray(self, reason: str) -> None:
        """Interrupt the JavaScript running now, if any, because ``reason`` (``cell 2 was terminated``)."""
        ...

    def give_up(self, text: str) -> None:
        """End every cell of the realm (a stopped one as stopped, the others with ``text``)."""
        ...


class StopWatch:
    """Makes the stop of cell ``cell_id`` take effect (see the module docstring); ``epoch`` is
    the realm's idle count when the stop was asked for."""

    def __init__(self, realm: StoppingRealm, cell_id: str, epoch: int) -> None:
        self._realm = realm
        self._cell_id = cell_id
        self._epoch = epoch

    def start(self) -> None:
        """Watch on a daemon thread of its own."""
        threading.Thread(target=self.run, name=f"codemode-realm-stop-{self._cell_id}", daemon=True).start()

    def run(self) -> None:
        realm, started = self._realm, time.monotonic()
        if realm.wait_idle(self._epoch, STOP_GRACE_S):
            return
        while True:
            realm.interrupt_stray(f"cell {self._cell_id} was terminated")
            left = RESET_AFTER_S - (time.monotonic() - started)
            if left <= 0:
                log.error("cell %s could not be stopped; the realm is reset", self._cell_id)
                realm.give_up(reset_text(self._cell_id))
                return
            if realm.wait_idle(self._epoch, min(REARM_S, left)):
                return


def collateral_text(reason: str) -> str:
    """The ``error_text`` of a live cell whose JavaScript was interrupted because ``reason``."""
    return (
        f"Error: interrupted: this cell's JavaScript was running when {reason}, and was stopped with it "
        "(the cells of a notebook session share one JavaScript context, which cannot tell whose code runs)"
    )


STOPPED_BY_RESET = (
    "[The notebook session's JavaScript context was reset to stop this cell: the bindings of earlier cells "
    "are gone, values stored with store() are kept.]"
)
"""The last output item of a terminated cell whose realm had to be given up to stop it."""


def reset_text(cell_id: str) -> str:
    """The ``error_text`` of the cells of a realm given up because cell ``cell_id`` would not stop."""
    return (
        f"Error: the notebook session's JavaScript context was reset: cell {cell_id} could not be stopped "
        "after session/terminate; the declarations of earlier cells are gone (stored values are kept)"
    )


__all__ = [
    "REARM_S",
    "RESET_AFTER_S",
    "STOPPED_BY_RESET",
    "STOP_GRACE_S",
    "StopWatch",
    "collateral_text",
    "reset_text",
]
