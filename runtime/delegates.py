"""Delegate requests: the host's calls into the client (tool calls and notifications).

Each ``delegate/request`` gets a connection-wide id counting up from 1. A tool call's
answer settles the JavaScript promise of that call; a notification's answer is only
logged (Codex: ``failed to deliver code mode notification: <message>``). At most
:data:`MAX_PENDING_DELEGATE_CALLS` calls wait for answers; past that a tool call is
rejected with Codex's text, naming the cell that holds most of them (:func:`too_many_pending`),
and the connection goes on.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, assert_never

from codemode.runtime.livecell import LiveCell
from codemode.wire import messages
from codemode.wire.frame_json import json_text
from codemode.wire.framing import FrameTooLarge

log = logging.getLogger(__name__)

MAX_PENDING_DELEGATE_CALLS = 1024
"""Delegate calls awaiting answers on one connection, every cell of every session together:
Codex's ``MAX_PENDING_DELEGATE_CALLS`` (``codex-rs/code-mode-protocol``, ``host`` module), the
permits of ``HostPeer`` in ``codex-rs/code-mode-host/src/peer.rs``, pinned by its test
``pending_delegate_limit_rejects_call_without_disconnecting`` (``peer_tests.rs``)."""
_INVOKE_HEAD = '{"type":"delegate/request","id":'
INVALID_TOOL_RESULT = "code-mode client returned an invalid tool result"
"""How a tool call fails when the client answers it as a notification (Codex's host's text)."""


def invocation_texts(
    session_id: str, cell_id: str, tool: dict[str, Any], via_ended: str | None = None
) -> tuple[str, str]:
    """The fixed parts of a ``tool/invoke`` request's JSON text for ``tool`` of cell ``cell_id``:
    what follows the delegate id up to the runtime id's JSON, and what follows that up to
    the input's JSON (see :func:`tool_invoke_text`). ``via_ended``: the ended cell whose helper
    made the call, sent as ``via_ended_cell`` (the notebook realm's; a function that cell
    declared, which the code of any running cell may have called)."""
    via = "" if via_ended is None else f',"via_ended_cell":{json_text(via_ended)}'
    middle = (
        f',"sessionId":{json_text(session_id)},"request":{{"type":"tool/invoke","invocation":'
        f'{{"cell_id":{json_text(cell_id)}{via},"runtime_tool_call_id":'
    )
    tail = f',"tool_name":{json_text(tool["tool_name"])},"tool_kind":{json_text(tool["kind"])},"input":'
    return middle, tail


def tool_invoke_text(delegate_id: int, texts: tuple[str, str], runtime_tool_call_id: str, input_json: str) -> str:
    """The JSON text of :func:`codemode.wire.messages.tool_invoke` (same keys, same order), written
    around ``input_json``, the argument's JSON text as the prelude's ``JSON.stringify`` wrote it,
    which the bridge has checked to be exactly one JSON value (``runtime/bridge.py``; else the
    text could write fields of the frame) on the cell's thread (parsing and re-encoding it here,
    ~10 us a call, was the largest cost of a cell's tool calls on the host's loop). ``texts``: :func:`invocation_texts`; ``runtime_tool_call_id``: ``tool-<n>``, quoted
    as it is."""
    middle, tail = texts
    return f'{_INVOKE_HEAD}{delegate_id}{middle}"{runtime_tool_call_id}"{tail}{input_json}}}}}}}'


def too_many_pending(holder: str, held: int) -> str:
    """The error of a tool call refused at :data:`MAX_PENDING_DELEGATE_CALLS`: Codex's text
    (``HostPeer::call``), then the limit and ``holder`` (``cell <id>``, the id as the client shows
    it, ``session/open``'s ``cellIdPrefix`` before the host's; with ``of session <id>`` when it is
    another session's), which holds ``held`` of the pending calls, the most of any cell. The limit is the connection's, so a cell that keeps its calls waiting (a yielded cell
    with a thousand unanswered calls) makes every other cell's calls fail too: the text says
    which cell to wait for or terminate."""
    return (
        f"code-mode host has too many pending delegate calls ({MAX_PENDING_DELEGATE_CALLS}, the limit "
        f"per connection): {holder} holds {held}"
    )


class DelegateTable:
    """The delegate calls of one connection awaiting their answers.

    ``send`` writes a message, ``send_text`` a message's JSON text (both raise
    ``FrameTooLarge`` for an oversized frame)."""

    def __init__(self, send: Callable[[messages.HostFrame], None], send_text: Callable[[str], None]) -> None:
        self._send = send
        self._send_text = send_text
        self._pending: dict[int, tuple[LiveCell, str | None]] = {}
        self._via_ended: dict[int, str] = {}
        """The pending tool calls made through an ended cell's helpers: that cell's id."""
        self._next_id = 0

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def tool(
        self, cell: LiveCell, index: int, runtime_tool_call_id: str, input_json: str, via_ended: str | None = None
    ) -> None:
        """Send a ``tool/invoke`` delegate request for tool ``index`` of ``cell.tools``, its
        argument the JSON text ``input_json`` (``via_ended``: :func:`invocation_texts`); the
        answer settles the JS promise."""
        assert cell.runtime is not None
        if index >= len(cell.tools):
            cell.runtime.deliver_tool_result(
                runtime_tool_call_id, False, f"code-mode runtime error: no tool has index {index}"
            )
            return
        if len(self._pending) >= MAX_PENDING_DELEGATE_CALLS:
            cell.runtime.deliver_tool_result(runtime_tool_call_id, False, self._refusal(cell))
            return
        delegate_id = self._new_id()
        if via_ended is not None:  # rare: not cached
            texts = invocation_texts(cell.session.session_id, cell.cell_id, cell.tools[index], via_ended)
        else:
            cached = cell.invocation_texts.get(index)
            if cached is None:
                cached = cell.invocation_texts[index] = invocation_texts(
                    cell.session.session_id, cell.cell_id, cell.tools[index]
                )
            texts = cached
        try:
            self._send_text(tool_invoke_text(delegate_id, texts, runtime_tool_call_id, input_json))
        except FrameTooLarge as exc:
            cell.runtime.deliver_tool_result(
                runtime_tool_call_id, False, f"code-mode delegate request exceeds the IPC frame limit: {exc}"
            )
            return
        self._pending[delegate_id] = (cell, runtime_tool_call_id)
        if via_ended is not None:
            self._via_ended[delegate_id] = via_ended
        cell.pending_tools[runtime_tool_call_id] = delegate_id

    def _refusal(self, caller: LiveCell) -> str:
        """:func:`too_many_pending` for a call of ``caller``, naming the cell holding most calls;
        calls made through an ended cell's helpers (which any running cell's code may have made)
        are counted apart, named ``cell <id> (through functions cell <ended id> declared)``."""
        held: dict[tuple[LiveCell, str | None], int] = {}
        for delegate_id, (holder, _) in self._pending.items():
            key = (holder, self._via_ended.get(delegate_id))
            held[key] = held.get(key, 0) + 1
        top, via = max(held, key=held.__getitem__)
        prefix = top.session.cell_id_prefix
        name = f"cell {prefix}{top.cell_id}"
        if top.session is not caller.session:
            name += f" of session {top.session.session_id}"
        if via is not None:
            name += f" (through functions cell {prefix}{via} declared)"
        return too_many_pending(name, held[top, via])

    def notify(self, cell: LiveCell, text: str) -> None:
        """Send a ``notification/send`` delegate request (its answer is only logged)."""
        delegate_id = self._new_id()
        try:
            self._send(
                messages.notification_send(delegate_id, cell.session.session_id, cell.tool_call_id, cell.cell_id, text)
            )
        except FrameTooLarge as exc:
            log.warning("failed to deliver code mode notification: %s", exc)
            if cell.runtime is not None:
                cell.runtime.state.notification_done()
            return
        self._pending[delegate_id] = (cell, None)

    def cancel(self, delegate_id: int) -> None:
        """Send ``delegate/cancel``; a late answer is then ignored."""
        self._via_ended.pop(delegate_id, None)
        if self._pending.pop(delegate_id, None) is not None:
            self._send(messages.delegate_cancel(delegate_id))

    def on_response(self, message: messages.DelegateResponse) -> None:
        """The client's answer to a delegate request: a tool call's settles its promise (an
        answer of the wrong kind rejects it with Codex's text); a notification's failure is
        logged. An answer to a request no longer pending (cancelled, its cell gone) is ignored."""
        delegate_id = message["id"]
        entry = self._pending.pop(delegate_id, None)
        self._via_ended.pop(delegate_id, None)
        if entry is None:
            return
        cell, runtime_tool_call_id = entry
        result = message["result"]
        if runtime_tool_call_id is None:
            if result["status"] == "error":
                log.warning("failed to deliver code mode notification: %s", result["message"])
            if cell.runtime is not None:
                cell.runtime.state.notification_done()
            return
        cell.pending_tools.pop(runtime_tool_call_id, None)
        if cell.runtime is None or cell.closed or cell.outcome is not None:
            return
        match result["status"]:
            case "ok":
                value = result["value"]
                if value["type"] == "tool/result":
                    cell.runtime.deliver_tool_result(runtime_tool_call_id, True, value["result"])
                else:
                    cell.runtime.deliver_tool_result(runtime_tool_call_id, False, INVALID_TOOL_RESULT)
            case "error":
                cell.runtime.deliver_tool_result(runtime_tool_call_id, False, result["message"])
            case unknown:
                assert_never(unknown)
