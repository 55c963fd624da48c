"""The delegate of one remote session (:class:`~codemode.host.SessionDelegate`): routes what
the host asks of that remote session into the owning :class:`~codemode.session.CodeModeSession`,
translating host cell ids to public ones (``g<generation>:<id>`` after a rebuild).

The session hands the adapter a :class:`SessionHooks` of its own callables, so this module
does not import the session (which imports this one)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .cancellation import CancellationToken
from .errors import ToolCallError


def generation_of(public_id: str) -> int:
    """The host generation a public cell id belongs to: N for ``gN:<id>``, else 1."""
    if public_id.startswith("g") and ":" in public_id:
        head = public_id[1:].split(":", 1)[0]
        if head.isdigit():
            return int(head)
    return 1


def public_cell_id(host_cell_id: str, generation: int) -> str:
    """``host_cell_id`` in generation 1, else ``g<generation>:<host_cell_id>``."""
    return host_cell_id if generation <= 1 else f"g{generation}:{host_cell_id}"


class CallOutcome(Protocol):
    """What the dispatcher returns for one call: ``outcome`` ``completed`` with ``value``, or
    another outcome with ``error`` (the text the JavaScript promise rejects with)."""

    outcome: str
    value: Any
    error: str | None


@dataclass(frozen=True)
class SessionHooks:
    """The session's side of its remote sessions, as callables (public cell ids throughout):
    ``invoke(cell_id, invocation, cancellation)`` runs a tool call; ``notify(cell_id, text)``
    delivers a ``notify()`` text; ``cell_opened`` / ``cell_closed`` keep the live cells;
    ``merge_stored(values)`` takes a cell's committed ``store()`` writes."""

    invoke: Callable[[str, dict[str, Any], CancellationToken], Awaitable[CallOutcome]]
    notify: Callable[[str, str], None]
    cell_opened: Callable[[str], None]
    cell_closed: Callable[[str], None]
    merge_stored: Callable[[dict[str, Any]], None]


class SessionDelegateAdapter:
    """Tool calls go to the session's dispatcher, notifications to its ``on_notify``, closed
    cells and stored values to its records. ``generation`` is the host generation of the
    remote session."""

    def __init__(self, hooks: SessionHooks, generation: int) -> None:
        self.hooks = hooks
        self.generation = generation

    def _public(self, host_cell_id: str) -> str:
        return public_cell_id(host_cell_id, self.generation)

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        public_id = self._public(str(invocation.get("cell_id")))
        # The cell may be reported before execute() returned; make sure it is known as live.
        self.hooks.cell_opened(public_id)
        result = await self.hooks.invoke(public_id, invocation, cancellation)
        if result.outcome == "completed":
            return result.value
        raise ToolCallError(result.error or "tool call failed")

    async def notify(self, call_id: str, cell_id: str, text: str) -> None:
        self.hooks.notify(self._public(cell_id), text)

    def cell_closed(self, cell_id: str) -> None:
        public_id = self._public(cell_id)
        self.hooks.cell_opened(public_id)
        self.hooks.cell_closed(public_id)

    def stored_values(self, values: dict[str, Any]) -> None:
        self.hooks.merge_stored(values)
