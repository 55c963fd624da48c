"""Telling the user that the code-mode runtime host stopped, and what that did to a cell.

When the host connection dies (the host was killed, crashed, or exited on purpose), the
client fails every pending call with Codex's bare reason, e.g. ``code-mode host closed its
stdout`` (a :class:`~codemode.errors.HostConnectionError`),
and every live cell of that host generation is gone. The kernel shows such a cell's end as an
``error`` named :data:`HOST_STOPPED_ENAME` whose value says what happened, keeps Codex's
reason in parentheses, and says that the next cell starts a new host and whether values
stored with ``store()`` survive (our host: yes; Codex's host: no). In the notebook profile
every such message also says that the bindings of earlier cells are gone (they live in the
host's one JavaScript context): :func:`after_replacement` words it for the lost cells, for
the cell whose termination made the host exit (:meth:`HostLosses.restart_note`) and for
``%config profile=`` / ``engine=``, which replace the host.

A host that dies while no cell runs takes nothing with it that anybody waits for; the cell
that replaces it (``CodeModeSession.execute``'s ``on_idle_loss``) begins with
:meth:`HostLoss.idle_note` on ``stderr``, in the same words: what happened, Codex's reason,
that this cell runs on a new host, and what that host keeps.

One cause is known precisely: a CPU-bound cell the host cannot interrupt in-process is
stopped by the host exiting right after it answered the terminate (``runtime/interrupt.py``). The other live cells then go with it; their message names the cell whose
termination restarted the host. :class:`TerminationLog` makes that link: a host failure of
generation G is attributed to cell N of G when the kernel's terminate of N was still in
flight, or was answered at most :data:`RESTART_ATTRIBUTION_S` before and took at least
:data:`SLOW_TERMINATE_S` (the host waits before it gives up on a cell), unless the client
itself declared the host dead (:data:`CLIENT_DECLARED`: a stopped host fails the probe an
interrupt sends while its terminate is in flight). A host that dies for another reason in that
window is misattributed; that is the documented limit.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from codemode.errors import HostConnectionError
from codemode.kernel.render import ErrorParts, plain_error

if TYPE_CHECKING:
    from codemode.session import CodeModeSession

HOST_STOPPED_ENAME = "HostStopped"
"""``ename`` of the error shown for a cell lost because the runtime host stopped."""
RESTART_ATTRIBUTION_S = 5.0
"""How long after a slow terminate was answered a host failure is attributed to it (seconds)."""
SLOW_TERMINATE_S = 0.5
"""A terminate answered faster than this stopped its cell in-process (seconds)."""
CLIENT_DECLARED = ("code-mode host stopped responding", "code-mode host timed out waiting")
"""How the client's own verdicts on a silent host begin (its liveness probe, a request's
deadline): such a host did not exit to stop a cell, whatever terminate was in flight."""


def after_replacement(stored_values_kept: bool, bindings_lost: bool) -> str:
    """What a new host keeps, for the user: ``values stored with store() are kept`` (or ``were
    lost with the host``), after ``the bindings of earlier cells are gone, `` when
    ``bindings_lost`` (the notebook profile)."""
    stored = (
        "values stored with store() are kept"
        if stored_values_kept
        else "values stored with store() were lost with the host"
    )
    return f"the bindings of earlier cells are gone, {stored}" if bindings_lost else stored


@dataclass(frozen=True)
class HostLoss:
    """Why a cell was lost: ``reason`` (Codex's text), the host ``generation``, the cell whose
    termination made the host exit (``restarted_for``, or None), whether stored values
    survive the rebuild (``stored_values_kept``) and whether bindings of earlier cells were lost
    with it (``bindings_lost``: the notebook profile)."""

    reason: str
    generation: int | None
    restarted_for: str | None
    stored_values_kept: bool
    bindings_lost: bool = False

    def _what(self) -> str:
        if self.restarted_for is not None:
            return (
                f"The code-mode runtime host was restarted to stop cell {self.restarted_for}, "
                f"which did not respond to termination ({self.reason})"
            )
        return f"The code-mode runtime host stopped ({self.reason})"

    def _kept(self) -> str:
        return after_replacement(self.stored_values_kept, self.bindings_lost)

    def sentence(self, cell_id: str | None) -> str:
        """What happened to ``cell_id`` (None: a cell that never started), for the user."""
        lost = f"cell {cell_id} was lost" if cell_id is not None else "the cell was not started"
        return f"{self._what()}; {lost}. The next cell starts a new host; {self._kept()}."

    def idle_note(self) -> str:
        """The note for the cell that replaces a host lost while no cell ran (one line)."""
        return f"{self._what()} while no cell was running. This cell runs on a new host; {self._kept()}."

    def error(self, cell_id: str | None) -> ErrorParts:
        """The ``error`` output for ``cell_id`` (``ename`` :data:`HOST_STOPPED_ENAME`)."""
        return plain_error(HOST_STOPPED_ENAME, self.sentence(cell_id))


@dataclass
class _Termination:
    started: float
    answered: float | None = None


@dataclass
class TerminationLog:
    """The terminations the kernel asked for recently (see the module docstring).

    ``generation_of(cell_id)`` maps a public cell id to its host generation
    (``CodeModeSession.generation_of``).
    """

    generation_of: Callable[[str], int | None]
    _entries: dict[str, _Termination] = field(default_factory=dict)

    @contextlib.contextmanager
    def terminating(self, cell_id: str) -> Iterator[None]:
        """Wrap the kernel's terminate of ``cell_id`` (however it ends)."""
        self._prune()
        entry = self._entries[cell_id] = _Termination(time.monotonic())
        try:
            yield
        finally:
            entry.answered = time.monotonic()

    def cause(self, generation: int | None) -> str | None:
        """The cell whose termination explains a failure of host ``generation``, or None."""
        if generation is None:
            return None
        now = time.monotonic()
        for cell_id, entry in reversed(self._entries.items()):
            if self.generation_of(cell_id) != generation:
                continue
            if entry.answered is None:
                return cell_id
            if entry.answered - entry.started >= SLOW_TERMINATE_S and now - entry.answered <= RESTART_ATTRIBUTION_S:
                return cell_id
        return None

    def _prune(self) -> None:
        now = time.monotonic()
        for cell_id in [
            c for c, e in self._entries.items() if e.answered is not None and now - e.answered > RESTART_ATTRIBUTION_S
        ]:
            del self._entries[cell_id]


class HostLosses:
    """Turns failures seen by the kernel into :class:`HostLoss` values.

    ``code_mode`` is the code-mode session (``host_failure``, ``generation_of``,
    ``stored_values_kept``, ``host_replaced``, ``defaults.profile``).
    """

    def __init__(self, code_mode: CodeModeSession) -> None:
        self.code_mode = code_mode
        self.terminations = TerminationLog(code_mode.generation_of)

    def explain(self, cell_id: str | None, exc: BaseException) -> HostLoss | None:
        """The loss behind ``exc`` for ``cell_id``: ``exc`` itself when it is a
        :class:`HostConnectionError`, else (e.g. a stale-generation error met after the host
        died) the failure the session recorded for the cell's host. None for other errors."""
        failure: HostConnectionError | None = exc if isinstance(exc, HostConnectionError) else None
        if failure is None and cell_id is not None:
            failure = self.code_mode.host_failure(cell_id)
        if failure is None:
            return None
        exited = not failure.reason.startswith(CLIENT_DECLARED)
        return self._loss(failure, self.terminations.cause(failure.generation) if exited else None)

    def idle(self, failure: HostConnectionError) -> HostLoss:
        """The loss of a host that died while no cell ran (``CodeModeSession.execute``'s
        ``on_idle_loss``): no termination explains it."""
        return self._loss(failure, None)

    def _loss(self, failure: HostConnectionError, restarted_for: str | None) -> HostLoss:
        return HostLoss(
            failure.reason, failure.generation, restarted_for, self.code_mode.stored_values_kept, self.bindings_lost
        )

    @property
    def bindings_lost(self) -> bool:
        """Whether replacing the host loses bindings of earlier cells (the notebook profile)."""
        return getattr(self.code_mode.defaults, "profile", "strict") == "notebook"

    def restart_note(self, cell_id: str) -> str | None:
        """The sentence added to a terminated cell's message when its host exited to stop it
        (it has announced its exit or is gone) and that lost bindings; None otherwise."""
        if not self.bindings_lost or not self.code_mode.host_replaced(cell_id):
            return None
        kept = after_replacement(self.code_mode.stored_values_kept, True)
        return f"The code-mode runtime host was restarted to stop it: {kept}."
