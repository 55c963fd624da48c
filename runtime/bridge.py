"""The Python side of ``__codemode_host(op, arg)``: what a cell's JavaScript asks of its thread.

The prelude (``prelude/bridge.js``) calls ``__codemode_host(op, arg)`` with a string
argument and gets back ``None`` or a tagged string: ``"v" + JSON text`` (a value) or
``"e" + text`` (an error the helper throws as a plain string, as Codex's helpers do).
Replies carry JSON with ASCII escapes, so no string the binding cannot convert (a NUL, a
lone surrogate) ever crosses back into JavaScript raw.

Operations: ``emit`` (a content item, JSON), ``text:<n>`` (the text of an ``input_text``
item, raw: a well-formed text of ``n`` UTF-16 units; answered ``"json"`` when what arrived is
shorter, the QuickJS binding having cut it at a NUL, and the prelude then sends the item as
``emit``), ``tool`` (``"<index>:<input JSON>"``; the JSON text, as the prelude's ``JSON.stringify``
wrote it, goes into the ``tool/invoke`` frame as it is once it was checked to be exactly one
JSON value),
``notify`` (a JSON string), ``store:<key as a JSON string>`` (the value's JSON text as
``JSON.stringify`` wrote it; the value is kept as the canonical JSON of
:mod:`codemode.wire.stored_values`, and one too large to cross a frame is refused), ``load`` (a JSON string key),
``checkjson`` (an MCP block's JSON); values with a lone surrogate or nesting 128 deep are
refused and keys have their surrogates replaced, as in Codex's host (:mod:`~codemode.runtime.jsontext`), ``yield``, ``timer`` (``[id, delay_ms]``), ``cleartimer``,
``intl`` (an Intl request, JSON; :mod:`~codemode.runtime.intl`), ``readers`` (the source of the
call-site readers, which ``prelude/readers.js`` compiles on first use), ``exit``, ``exited``, ``done``, ``failed`` (the module failed; its text may follow),
``fail`` (the text of that failure, a JSON string) and ``oom`` (runtime code met an
allocation failure: ``"error"``, or ``"null"`` for a thrown null that may be one; the
reply ``"ended"`` means the cell ends with the heap-limit error and JS is interrupted).

The host trusts no argument: whatever the prelude's code is called with, an argument of another
shape than the prelude sends (an item without a string ``type``, a notification that is not a
string, a tool index that is not digits, a text that is not exactly one JSON value) is refused
with ``code-mode runtime error: <what>`` (:class:`BadHostCall`), so nothing a cell makes becomes
a field of a frame, and nothing reaches the client in a shape that would make it drop the host.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Protocol

from codemode.runtime.jsontext import has_surrogate, is_one_value, scrub, value_error
from codemode.runtime.prelude_source import readers_source
from codemode.wire import stored_values

log = logging.getLogger(__name__)


class BridgedCell(Protocol):
    """What the bridge drives for one cell: its state (``cellstate.CellState``)."""

    def emit_item(self, item: dict[str, Any]) -> None: ...

    def emit_text(self, text: str) -> None: ...

    def call_tool(self, index: int, input_json: str, via_ended: str | None = None) -> str: ...

    def notify(self, text: str) -> None: ...

    def yield_control(self) -> None: ...

    def store(self, key: str, value_json: str) -> None: ...

    def load(self, key: str) -> str | None: ...

    def add_timer(self, timer_id: int, delay_ms: float) -> None: ...

    def clear_timer(self, timer_id: int) -> None: ...

    def request_exit(self) -> bool: ...

    def exited(self) -> None: ...

    def module_done(self) -> None: ...

    def module_failed(self, text: str | None) -> None: ...

    def out_of_memory(self, kind: str) -> str | None: ...


def settlement(runtime_tool_call_id: str, ok: bool, value: Any) -> tuple[str, str]:
    """The dispatcher call ``(op, arg)`` that settles tool call ``runtime_tool_call_id`` in the prelude
    (``install.js``, ``realm_install.js``): a string result crosses as it is,
    ``("resolve:<id>", value)``, which the binding converts at C speed (a JSON literal would be
    written here and parsed in JavaScript, several ms per MB each); anything else, and a string
    holding a lone surrogate (which the QuickJS binding cannot convert), is
    ``("settle", '{"id": ..., "ok": ..., "value": ...}')``, rejecting with ``value`` when not
    ``ok``."""
    if ok and isinstance(value, str) and not has_surrogate(value):
        return "resolve:" + runtime_tool_call_id, value
    return "settle", json.dumps({"id": runtime_tool_call_id, "ok": ok, "value": value})


_OBSERVABLE_OPS = frozenset({"emit", "notify", "tool", "yield"})


def observable(op: str) -> bool:
    """Whether host operation ``op`` shows the cell to the world: an output item (``emit``,
    ``text:<length>``), a notification, a tool call, a stored value (``store:<key>``) or a yield. Code of a
    cell that can still run once the cell may no longer act (after ``exit()`` or a stop; in
    the notebook profile's realm, after the cell ended) has these dropped."""
    return op in _OBSERVABLE_OPS or op.startswith(("text:", "store:"))


def value_reply(value: Any) -> str:
    """``"v"`` + the value as ASCII JSON."""
    return "v" + json.dumps(value)


def error_reply(text: str) -> str:
    """``"e"`` + a text the helper throws as a plain string."""
    return "e" + text


class BadHostCall(ValueError):
    """A host call whose argument has a shape the prelude never sends: refused with this text,
    before anything of it reaches the cell's state or a frame."""


def handle(cell: BridgedCell, op: str, arg: str, via_ended: str | None = None) -> str | None:
    """Serve one call; never raises (a Python exception would surface in JS as a SystemError).
    ``via_ended``: the ended cell whose helper made the call (the notebook realm's
    ``"<cell>@<ended cell>|<op>"``), which a tool call passes on."""
    try:
        return _handle(cell, op, arg, via_ended)
    except BadHostCall as exc:
        log.warning("host call %s refused: %s", op, exc)
        return error_reply(f"code-mode runtime error: {exc}")
    except MemoryError:
        # An allocation failure on this side ends the cell like one inside the heap.
        return cell.out_of_memory("error") or error_reply("code-mode runtime error: out of memory")
    except Exception as exc:  # noqa: BLE001 - reported to the calling helper
        log.exception("host call %s failed", op)
        return error_reply(f"code-mode runtime error: {exc}")


def utf16_length(text: str) -> int:
    """The length of ``text`` in UTF-16 code units, as JavaScript counts it."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _json_of(arg: str, kind: type, what: str) -> Any:
    """The JSON ``arg`` decoded, when it is a ``kind`` (raises :class:`BadHostCall`)."""
    try:
        value = json.loads(arg)
    except ValueError:
        value = None
    if not isinstance(value, kind):
        raise BadHostCall(f"{what} must be {_KINDS[kind]}")
    return value


_KINDS: dict[type, str] = {str: "a JSON string", dict: "a JSON object", list: "a JSON array"}


def _content_item(arg: str) -> dict[str, Any]:
    """An ``emit``'s item: a JSON object with a string ``type``, which the client asks of every
    content item (``codemode.wire.messages.parse_runtime_response``; an item without one would make
    the client drop the connection, and with it every cell)."""
    item = _json_of(arg, dict, "a content item")
    if not isinstance(item.get("type"), str):
        raise BadHostCall("a content item must have a string type")
    return item


def _tool_call(arg: str) -> tuple[int, str]:
    """A ``tool`` call's ``"<index>:<input JSON>"``: the index in ASCII digits, the input exactly
    one JSON value (:func:`~codemode.runtime.jsontext.is_one_value`), since its text goes into
    the ``tool/invoke`` frame as it is (:func:`codemode.runtime.delegates.tool_invoke_text`)."""
    index, _, input_json = arg.partition(":")
    if not (index.isascii() and index.isdigit()):
        raise BadHostCall("a tool call names its tool by index")
    return int(index), input_json


def _checked_value(text: str) -> str | None:
    """Codex's error for a value's JSON ``text`` (:func:`~codemode.runtime.jsontext.value_error`),
    or None; raises :class:`BadHostCall` for a text that is not exactly one JSON value."""
    problem = value_error(text)
    if problem is None and not is_one_value(text):
        raise BadHostCall("a value must be one JSON value")
    return problem


def _handle(cell: BridgedCell, op: str, arg: str, via_ended: str | None) -> str | None:
    if op == "emit":
        cell.emit_item(_content_item(arg))
    elif op.startswith("text:"):
        if utf16_length(arg) != int(op[5:]):
            return value_reply("json")
        cell.emit_text(arg)
    elif op == "tool":
        index, input_json = _tool_call(arg)
        problem = _checked_value(input_json)
        if problem is not None:
            return error_reply(problem)
        # The runtime id is an ASCII word of our own making ("tool-<n>"): its JSON is itself quoted.
        return 'v"' + cell.call_tool(index, input_json, via_ended) + '"'
    elif op == "notify":
        cell.notify(_json_of(arg, str, "a notification"))
    elif op.startswith("store:"):
        key = _json_of(op[6:], str, "a stored value's key")
        value_json = arg
        problem = _checked_value(value_json)
        if problem is not None:
            return error_reply(problem)
        key = scrub(key)
        value_text = stored_values.canonical(value_json)
        size = stored_values.entry_bytes(key, value_text)
        if size > stored_values.MAX_STORED_VALUE_BYTES:
            return error_reply(stored_values.refusal(key, size))
        cell.store(key, value_text)
    elif op == "load":
        stored = cell.load(scrub(_json_of(arg, str, "a key")))
        return None if stored is None else "v" + stored
    elif op == "checkjson":
        problem = value_error(arg)
        return None if problem is None else error_reply(problem)
    elif op == "yield":
        cell.yield_control()
    elif op == "timer":
        timer_id, delay_ms = json.loads(arg)
        cell.add_timer(int(timer_id), float(delay_ms))
    elif op == "cleartimer":
        cell.clear_timer(int(arg))
    elif op == "intl":
        from codemode.runtime import intl  # V8 and ICU load on a cell's first Intl call, never at host start

        return value_reply(intl.handle(arg))
    elif op == "readers":
        return value_reply(readers_source())
    elif op == "exit":
        if not cell.request_exit():
            return error_reply(EXIT_SENTINEL)
    elif op == "exited":
        cell.exited()
    elif op == "done":
        cell.module_done()
    elif op == "failed":
        cell.module_failed(None)
    elif op == "fail":
        cell.module_failed(_json_of(arg, str, "a failure's text"))
    elif op == "oom":
        return cell.out_of_memory(arg)
    else:
        return error_reply(f"code-mode runtime error: unknown host operation {op}")
    return None


EXIT_SENTINEL = "__codex_code_mode_exit__"
"""What ``exit()`` throws when the context cannot be interrupted (as Codex's earlier hosts did).

Only a text for the cell to see: the cell ends because ``exit()`` ran
(:meth:`BridgedCell.request_exit`), never because a value equals this one.
"""
