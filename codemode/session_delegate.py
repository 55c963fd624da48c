"""The delegate of one remote session (:class:`~codemode.host.SessionDelegate`): routes what
the host asks of that remote session into the owning :class:`~codemode.session.CodeModeSession`,
translating host cell ids to public ones (``g<generation>:<id>`` after a rebuild).

The session hands the adapter a :class:`SessionHooks` of its own callables, so this module
does not import the session (which imports this one)."""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from codemode.cancellation import CancellationToken
from codemode.cell_events import SessionEvent, StoredValuesCommitted
from codemode.errors import StaleCellError, ToolCallError
from codemode.responses import RuntimeResponse, WaitOutcome


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdecimal()


def parse_cell_id(public_id: str) -> tuple[int, str] | None:
    """``(generation, host cell id)`` of a public cell id, or None for an id no host generation
    gives. Hosts number their cells ``1``, ``2``, … (Codex's host and ours); generation 1's
    ids are those numbers, generation N's (N >= 2) are ``g<N>:<number>``
    (:func:`public_cell_id`). So ``nonsense``, ``g1:1``, ``g02:1`` and ``g2:x`` name no cell."""
    head, colon, host_id = public_id.partition(":")
    if not colon:
        return (1, public_id) if _is_number(public_id) else None
    number = head[1:]
    if head[:1] != "g" or not _is_number(number) or not _is_number(host_id) or number != str(int(number)):
        return None
    if int(number) < 2:
        return None
    return int(number), host_id


def generation_of(public_id: str) -> int | None:
    """The host generation a public cell id belongs to: N for ``gN:<id>``, 1 for ``<id>``, None
    for an id no generation gives (:func:`parse_cell_id`)."""
    parsed = parse_cell_id(public_id)
    return parsed[0] if parsed is not None else None


def public_cell_id(host_cell_id: str, generation: int) -> str:
    """``host_cell_id`` in generation 1, else ``g<generation>:<host_cell_id>``."""
    return host_cell_id if generation <= 1 else f"g{generation}:{host_cell_id}"


def stale_cell(public_id: str) -> StaleCellError:
    """Codex's error for an id of an earlier host generation than the current one."""
    return StaleCellError(f"cell {public_id} belongs to a stale code-mode host generation")


def missing_cell(public_id: str) -> WaitOutcome:
    """The ``MissingCell`` outcome of a wait or terminate on an id that names no cell (Codex's
    ``exec cell <id> not found``, as a host answers for an unknown id)."""
    return WaitOutcome(False, RuntimeResponse("Result", public_id, [], f"exec cell {public_id} not found"))


def host_cell_id(public_id: str) -> str:
    """The host's id of ``public_id`` (``g2:3`` gives ``3``); raises ``ValueError`` for an id
    no generation gives (:func:`parse_cell_id`)."""
    parsed = parse_cell_id(public_id)
    if parsed is None:
        raise ValueError(f"exec cell {public_id} not found")
    return parsed[1]


def public_outcome(outcome: WaitOutcome, public_id: str) -> WaitOutcome:
    """``outcome`` of a wait or terminate on ``public_id`` as the caller named it: the response's
    cell id and the host's ``exec cell <host id> not found`` carry the public id."""
    outcome.response.cell_id = public_id
    if not outcome.live and outcome.response.error_text:
        outcome.response.error_text = outcome.response.error_text.replace(
            f"exec cell {host_cell_id(public_id)} not found", f"exec cell {public_id} not found"
        )
    return outcome


class CallOutcome(Protocol):
    """What the dispatcher returns for one call: ``outcome`` ``completed`` with ``value``, or
    another outcome with ``error`` (the text the JavaScript promise rejects with)."""

    outcome: str
    value: Any
    error: str | None


@dataclass(frozen=True)
class SessionHooks:
    """The session's side of its remote sessions, as callables (public cell ids throughout):
    ``invoke(cell_id, invocation, cancellation)`` runs a tool call; ``report(event)`` takes
    what the host reported (:mod:`codemode.cell_events`)."""

    invoke: Callable[[str, dict[str, Any], CancellationToken], Awaitable[CallOutcome]]
    report: Callable[[SessionEvent], None]


class SessionDelegateAdapter:
    """Tool calls go to the session's dispatcher, what the host reports to the session's
    streams (with public cell ids). ``generation`` is the host generation of the
    remote session."""

    def __init__(self, hooks: SessionHooks, generation: int) -> None:
        self.hooks = hooks
        self.generation = generation

    def _public(self, host_cell_id: str) -> str:
        return public_cell_id(host_cell_id, self.generation)

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        public_id = self._public(str(invocation.get("cell_id")))
        via_ended = invocation.get("via_ended_cell")
        if via_ended is not None:
            invocation = {**invocation, "via_ended_cell": self._public(str(via_ended))}
        result = await self.hooks.invoke(public_id, invocation, cancellation)
        if result.outcome == "completed":
            return result.value
        raise ToolCallError(result.error or "tool call failed")

    def report(self, event: SessionEvent) -> None:
        if isinstance(event, StoredValuesCommitted):
            self.hooks.report(event)
        else:
            self.hooks.report(dataclasses.replace(event, cell_id=self._public(event.cell_id)))
