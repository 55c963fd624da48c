"""Answering an MCP server's ``elicitation/create``: asking the person at the notebook, or
answering as Codex does when no one can be asked.

A server may ask its client for input while it runs a tool (MCP specification 2025-06-18 and
later, "Client features: Elicitation"). A client that answers declares the ``elicitation``
capability in ``initialize``; codemode declares ``{"form": {}, "url": {}}``, what the MCP SDK's
``ClientSession`` declares once it is given an ``elicitation_callback``, and what Codex CLI 0.171.0
declared: ``server-everything`` offers ``trigger-elicitation-request`` only to a client that
declares ``elicitation`` and ``trigger-url-elicitation`` only to one that declares
``elicitation.url``, and both were in the model's ``ALL_TOOLS`` of that Codex's sessions.

Codex answers (``codex-rs/codex-mcp/src/elicitation.rs``, ``ElicitationRequestManager``): under
``approval_policy = "never"`` (what ``codex exec`` runs with) it asks no one; it accepts, with
empty content, a form that asks for no field when the sandbox is ``danger-full-access``, and
declines every other request. Under the other policies it shows the request to the user and
waits for their answer. codemode does the same (:func:`unattended_answer`), and asks the person
at the notebook through :attr:`~codemode.tools.base.ToolContext.ask_person` (the kernel's
Jupyter ``input_request``, only under an execute request that allows stdin), one line at a time
(:func:`ask_form`, :func:`ask_url`). When no one can be asked (the cell runs in the background,
the front end does not allow stdin: nbclient, papermill), it answers as under ``never``.

While a question is open, the server's tool calls do not use up their ``tool_timeout_sec``:
:class:`ActiveClock` counts only the time no elicitation of that server is pending, as Codex's
``ElicitationPauseState`` and ``active_time_timeout`` do (``codex-rs/rmcp-client``, "pause
timer for elicitations").

Which call asked: on stdio an ``elicitation/create`` does not name the ``tools/call`` it belongs
to, so it is put to the cell of the calls in flight on that server (:class:`Elicitations`).
When calls of several cells are in flight, which one asked cannot be told, and no one is asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any

from codemode.cancellation import first_of
from codemode.sandbox.approvals import on_one_line
from codemode.tools.base import ToolContext

Asker = Callable[[str], Awaitable[str | None]]
"""Asks a person one line: the prompt in, their reply out (None: no one can be asked)."""

END_OF_INPUT = "\x04"
"""The reply a front end sends for end of input (Ctrl-D): it cancels the elicitation."""


class _Cancelled(Exception):
    """The person ended the questions (end of input), or the question was withdrawn."""


def result(action: str, content: dict[str, Any] | None = None) -> Any:
    """An ``ElicitResult`` with ``action`` (``accept``, ``decline``, ``cancel``) and ``content``."""
    from mcp_types import ElicitResult

    return ElicitResult(action=action, content=content)  # type: ignore[arg-type]


def _properties(params: Any) -> dict[str, Any]:
    schema = getattr(params, "requested_schema", None)
    properties = schema.get("properties") if isinstance(schema, dict) else None
    return properties if isinstance(properties, dict) else {}


def is_url(params: Any) -> bool:
    """True for a URL-mode request (``mode: "url"``), False for a form."""
    return getattr(params, "mode", None) == "url"


def unattended_answer(params: Any, unrestricted: bool) -> Any:
    """Codex's answer when it asks no one (``approval_policy = "never"``): accept with ``{}`` a
    form that asks for no field when ``unrestricted`` (``sandbox_mode = "danger-full-access"``;
    Codex's ``can_auto_accept_elicitation`` with ``mcp_permission_prompt_is_auto_approved``),
    decline anything else (``elicitation_is_rejected_by_policy``)."""
    if unrestricted and not is_url(params) and not _properties(params):
        return result("accept", {})
    return result("decline")


# -- the questions ------------------------------------------------------------------


def _choices(spec: dict[str, Any]) -> list[tuple[str, str | None]]:
    """The allowed values of a single-choice field and their titles: ``enum`` (with the
    legacy ``enumNames``), or ``oneOf``/``anyOf`` of ``{"const", "title"}``."""
    if isinstance(spec.get("enum"), list):
        given = spec.get("enumNames")
        names: list[Any] = given if isinstance(given, list) else []
        return [(str(v), str(names[i]) if i < len(names) else None) for i, v in enumerate(spec["enum"])]
    options = spec.get("oneOf") or spec.get("anyOf")
    if isinstance(options, list):
        return [
            (str(o["const"]), str(o["title"]) if o.get("title") is not None else None)
            for o in options
            if isinstance(o, dict) and "const" in o
        ]
    return []


def _listed(choices: list[tuple[str, str | None]]) -> str:
    return ", ".join(f"{value} ({title})" if title else value for value, title in choices)


def _pick(text: str, choices: list[tuple[str, str | None]]) -> str | None:
    """The value ``text`` names (the value itself, or its title, case ignored)."""
    for value, title in choices:
        if text == value or text.lower() in (value.lower(), (title or "").lower()):
            return value
    return None


@dataclass(frozen=True)
class Field:
    """One property of a form's ``requestedSchema`` (``name``, its schema ``spec``, whether
    it is ``required``). :meth:`prompt` is its question; :meth:`parse` turns a reply into
    the value, or raises ``ValueError`` with the reason it is asked again."""

    name: str
    spec: dict[str, Any]
    required: bool

    @property
    def kind(self) -> str:
        kind = self.spec.get("type")
        if kind == "array":
            return "choices"
        if _choices(self.spec):
            return "choice"
        return kind if kind in ("boolean", "integer", "number") else "string"

    def _items(self) -> list[tuple[str, str | None]]:
        items = self.spec.get("items")
        return _choices(items) if isinstance(items, dict) else []

    def hints(self) -> list[str]:
        spec, kind = self.spec, self.kind
        low, high = spec.get("minimum"), spec.get("maximum")
        span = f" {_between(low, high)}" if low is not None or high is not None else ""
        texts = {
            "boolean": "yes or no",
            "integer": f"an integer{span}",
            "number": f"a number{span}",
            "choice": f"one of: {_listed(_choices(spec))}",
            "choices": f"one or more of, separated by commas: {_listed(self._items())}",
        }
        hint = texts.get(kind, "text" + (f", {spec['format']}" if isinstance(spec.get("format"), str) else ""))
        hints = [on_one_line(hint)]
        if "default" in spec:
            hints.append(f"empty for {on_one_line(_shown_value(spec['default']))}")
        elif self.required:
            hints.append("required")
        return hints

    def prompt(self) -> str:
        """``  NAME - DESCRIPTION (HINTS): ``, all on one line."""
        description = self.spec.get("description")
        about = f" - {on_one_line(str(description))}" if description else ""
        return f"  {on_one_line(self.name)}{about} ({'; '.join(self.hints())}): "

    def parse(self, text: str) -> Any:
        """The value of the reply ``text`` (stripped; non-empty). Raises ``ValueError``."""
        spec, kind = self.spec, self.kind
        if kind == "boolean":
            word = text.lower()
            if word in ("y", "yes", "true"):
                return True
            if word in ("n", "no", "false"):
                return False
            raise ValueError("answer yes or no")
        if kind in ("integer", "number"):
            try:
                number: int | float = int(text)
            except ValueError:
                if kind == "integer":
                    raise ValueError(f"{on_one_line(text)} is not an integer") from None
                try:
                    number = float(text)
                except ValueError:
                    raise ValueError(f"{on_one_line(text)} is not a number") from None
                if not math.isfinite(number):
                    raise ValueError(f"{on_one_line(text)} is not a number") from None
            low, high = spec.get("minimum"), spec.get("maximum")
            if _outside(number, low, high):
                raise ValueError(f"{number} is not {_between(low, high)}")
            return number
        if kind == "choice":
            picked = _pick(text, _choices(spec))
            if picked is None:
                raise ValueError(f"{on_one_line(text)} is not one of the choices")
            return picked
        if kind == "choices":
            values = []
            for part in (p.strip() for p in text.split(",")):
                picked = _pick(part, self._items())
                if picked is None:
                    raise ValueError(f"{on_one_line(part)} is not one of the choices")
                values.append(picked)
            low, high = spec.get("minItems"), spec.get("maxItems")
            if _outside(len(values), low, high):
                raise ValueError(f"choose {_between(low, high)} of them")
            return values
        low, high = spec.get("minLength"), spec.get("maxLength")
        if _outside(len(text), low, high):
            raise ValueError(f"the text must be {_between(low, high)} characters long")
        return text


def _between(low: Any, high: Any) -> str:
    """``from LOW to HIGH``, ``at least LOW`` or ``at most HIGH`` (bounds of a schema)."""
    if low is not None and high is not None:
        return f"from {low} to {high}"
    return f"at least {low}" if low is not None else f"at most {high}"


def _outside(value: float, low: Any, high: Any) -> bool:
    return (low is not None and value < low) or (high is not None and value > high)


def _shown_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return json.dumps(value)


def form_fields(params: Any) -> list[Field]:
    """The fields of a form request, in the order of its ``requestedSchema.properties``."""
    schema = params.requested_schema
    required = schema.get("required") if isinstance(schema.get("required"), list) else []
    return [
        Field(str(name), spec if isinstance(spec, dict) else {}, name in required)
        for name, spec in _properties(params).items()
    ]


async def _line(ask: Asker, prompt: str) -> str:
    """The person's reply to ``prompt``. Raises :class:`_Cancelled` on end of input or when
    the question was withdrawn (no answer)."""
    reply = await ask(prompt)
    if reply is None or reply == END_OF_INPUT:
        raise _Cancelled
    return reply.strip()


def heading(server: str, tool: str, cell_id: str, params: Any) -> str:
    """The first lines of the first question: who asks, and the server's message."""
    what = "asks you to open an address" if is_url(params) else "asks for input"
    lines = [f"Cell {cell_id}: MCP server `{on_one_line(server)}` {what} (tool `{on_one_line(tool)}`):"]
    lines.append(f"  {on_one_line(params.message)}")
    if is_url(params):
        lines.append(f"  address: {on_one_line(params.url)}")
    return "\n".join(lines)


FORM_QUESTION = "Answer? [y]es / [n]o (decline) / [c]ancel: "
URL_QUESTION = "Open it? [y]es (accept) / [n]o (decline) / [c]ancel: "


async def ask_form(ask: Asker, first: str, params: Any) -> Any:
    """Ask the person to answer a form: ``first`` (the :func:`heading`) with
    :data:`FORM_QUESTION` (``y`` goes on, ``c`` or end of input cancels, anything else
    declines), then one question per field (:meth:`Field.prompt`); an empty reply takes the
    field's default or leaves out a field that is not required; a reply that does not fit is
    asked again, saying why. End of input at any question cancels. Returns the
    ``ElicitResult``; raises :class:`_Cancelled` when the first question found no one."""
    choice = await _first_choice(ask, f"{first}\n{FORM_QUESTION}")
    if choice != "accept":
        return result(choice)
    content: dict[str, Any] = {}
    try:
        for item in form_fields(params):
            prompt = item.prompt()
            while True:
                text = await _line(ask, prompt)
                if not text:
                    if "default" in item.spec:
                        content[item.name] = item.spec["default"]
                    elif item.required:
                        prompt = f"  (Asked again: {on_one_line(item.name)} is required.)\n{item.prompt()}"
                        continue
                    break
                try:
                    content[item.name] = item.parse(text)
                    break
                except ValueError as why:
                    prompt = f"  (Asked again: {why}.)\n{item.prompt()}"
    except _Cancelled:
        return result("cancel")
    return result("accept", content)


async def ask_url(ask: Asker, first: str) -> Any:
    """Ask the person whether they open the address: ``y`` accepts, ``c`` or end of input
    cancels, anything else declines. Raises :class:`_Cancelled` when no one was found."""
    return result(await _first_choice(ask, f"{first}\n{URL_QUESTION}"))


async def _first_choice(ask: Asker, question: str) -> str:
    """The person's reply to the first question as an action: ``y`` accepts, ``c`` or end of
    input cancels, anything else declines. Raises :class:`_Cancelled` when no one was found."""
    reply = await ask(question)
    if reply is None:
        raise _Cancelled
    word = reply.strip().lower()
    if reply == END_OF_INPUT or word in ("c", "cancel"):
        return "cancel"
    return "accept" if word in ("y", "yes") else "decline"


# -- the time a call may take -------------------------------------------------------


class ActiveClock:
    """The active time of one server's connection, in seconds: the time during which no
    elicitation is pending (:meth:`paused` marks one). A call's ``tool_timeout_sec`` is counted
    on it (:meth:`wait_active`)."""

    def __init__(self) -> None:
        self._pending = 0
        self._elapsed = 0.0
        self._since = time.monotonic()
        self._change: asyncio.Future[None] | None = None

    def active_time(self) -> float:
        """Active seconds since the clock was made."""
        return self._elapsed + (0.0 if self._pending else time.monotonic() - self._since)

    def _changed(self) -> None:
        if self._change is not None and not self._change.done():
            self._change.set_result(None)
        self._change = None

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock while the block runs (nested and concurrent blocks count once)."""
        if self._pending == 0:
            self._elapsed = self.active_time()
        self._pending += 1
        self._changed()
        try:
            yield
        finally:
            self._pending -= 1
            if self._pending == 0:
                self._since = time.monotonic()
            self._changed()

    async def wait_active(self, seconds: float, start: float) -> None:
        """Return once ``seconds`` of active time passed since :meth:`active_time` read ``start``."""
        while True:
            if self._change is None:
                self._change = asyncio.get_running_loop().create_future()
            change = self._change
            left = None if self._pending else start + seconds - self.active_time()
            if left is not None and left <= 0:
                return
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(left):
                    await asyncio.shield(change)


# -- which call asked ---------------------------------------------------------------


@dataclass(frozen=True)
class _Call:
    tool: str
    ctx: ToolContext


class Elicitations:
    """The ``elicitation_callback`` of one server's ``ClientSession``, and the calls in
    flight on it (:meth:`calling`). ``approval_policy`` and ``unrestricted``
    (``danger-full-access``) choose between asking and :func:`unattended_answer`; ``clock``
    stops while a person is asked."""

    def __init__(self, server: str, approval_policy: str = "on-request", unrestricted: bool = False) -> None:
        self.server = server
        self.approval_policy = approval_policy
        self.unrestricted = unrestricted
        self._calls: dict[int, _Call] = {}
        self._next = 0
        self.clock = ActiveClock()

    @contextlib.contextmanager
    def calling(self, tool: str, ctx: ToolContext) -> Iterator[None]:
        """Count a call of ``tool`` for ``ctx`` as in flight while the block runs."""
        key = self._next
        self._next += 1
        self._calls[key] = _Call(tool, ctx)
        try:
            yield
        finally:
            del self._calls[key]

    def _asking_call(self) -> _Call | None:
        """The call to ask for: the latest in flight, when all in flight are of one cell."""
        calls = list(self._calls.values())
        if self.approval_policy == "never" or len({call.ctx.cell_id for call in calls}) != 1:
            return None
        return calls[-1]

    async def answer(self, context: Any, params: Any) -> Any:
        """The ``ElicitResult`` for ``params`` (the SDK's ``ElicitRequestParams``); module
        docstring. A question still open when the call is cancelled is withdrawn: ``cancel``."""
        call = self._asking_call()
        if call is None:
            return unattended_answer(params, self.unrestricted)
        first = heading(self.server, call.tool, call.ctx.cell_id, params)
        asking = asyncio.ensure_future(
            ask_url(call.ctx.ask_person, first) if is_url(params) else ask_form(call.ctx.ask_person, first, params)
        )
        with self.clock.paused():
            try:
                await first_of(asking, call.ctx.cancellation)
            finally:
                if not asking.done():
                    asking.cancel()
                    with contextlib.suppress(BaseException):
                        await asking
        if asking.cancelled():
            return result("cancel")
        if isinstance(asking.exception(), _Cancelled):
            return unattended_answer(params, self.unrestricted)
        return asking.result()
