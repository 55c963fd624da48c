"""Answering nested tool calls from a recording instead of the live tools.

Matching rule: a call matches the recorded calls of the same tool (code-mode name) whose
arguments have the same canonical JSON (:func:`~codemode.replay.recording.canonical_json`:
keys sorted, so key order does not matter; numbers, strings and nesting must be equal). Among
equal calls, order decides: the N-th such call of the run gets the N-th recorded answer (by
``seq``). So a call whose arguments hold a time, a random value or a temporary path made by
the cell differs at each run and is never matched; and when identical calls ran in parallel,
which answer each one gets depends on the order in which they reach the dispatcher.

A call with no recorded answer left fails (that call only: the cell's promise is rejected,
as for any failed call) with :meth:`Player.unmatched_text`, naming the call and the nearest
recorded call; it never reaches a live tool, since a replay offers only the tools made here.
"""

from __future__ import annotations

import difflib
from collections import defaultdict, deque
from typing import Any

from codemode.errors import ToolCallError
from codemode.replay.recording import RecordedCall, Recording, canonical_json
from codemode.tools.base import Tool, ToolContext, ToolKind
from codemode.wire.tool_names import normalize_identifier

SHOWN_ARGUMENTS = 200
"""How many characters of a call's arguments an error shows (then ``…``)."""


def shown(tool: str, arguments_json: str) -> str:
    """``tools.JS_NAME(ARGUMENTS)`` with the canonical arguments cut at :data:`SHOWN_ARGUMENTS`."""
    text = arguments_json if len(arguments_json) <= SHOWN_ARGUMENTS else arguments_json[:SHOWN_ARGUMENTS] + "…"
    return f"tools.{normalize_identifier(tool)}({text})"


class Player:
    """The answers of one recording, handed out in order. ``answered`` and ``unmatched``
    count the calls answered and refused so far."""

    def __init__(self, recording: Recording) -> None:
        self.recording = recording
        self._queues: dict[tuple[str, str], deque[RecordedCall]] = defaultdict(deque)
        self._by_tool: dict[str, list[RecordedCall]] = defaultdict(list)
        for call in recording.calls:
            self._queues[(call.tool, canonical_json(call.arguments))].append(call)
            self._by_tool[call.tool].append(call)
        self.answered = 0
        self.unmatched = 0

    def answer(self, tool: str, arguments: Any, ctx: ToolContext | None = None) -> Any:
        """The recorded result of the next call of ``tool`` with ``arguments``, after the text
        the tool printed is printed again through ``ctx``; raises :class:`ToolCallError` with
        the recorded error of a failed call, or with :meth:`unmatched_text` when none is left."""
        key = (tool, canonical_json(arguments))
        queue = self._queues.get(key)
        if not queue:
            self.unmatched += 1
            raise ToolCallError(self.unmatched_text(tool, key[1]))
        call = queue.popleft()
        self.answered += 1
        if ctx is not None:
            for stream, text in call.output or ():
                ctx.report_output(stream, text)
        if call.outcome == "failed":
            raise ToolCallError(call.error or "")
        return call.result

    def unmatched_text(self, tool: str, arguments_json: str) -> str:
        """The error of a call the recording cannot answer: ``replay: <path> holds no answer
        for tools.X(ARGS)`` (or ``no answer left`` with the count when every equal call was
        answered already), then the nearest recorded call with its line, or that the
        recording holds no calls; and that no live tool is called in replay mode."""
        path = self.recording.path
        call = shown(tool, arguments_json)
        equal = [c for c in self._by_tool.get(tool, []) if canonical_json(c.arguments) == arguments_json]
        if equal:
            times = "once" if len(equal) == 1 else f"{len(equal)} times"
            return (
                f"replay: {path} holds no answer left for {call}: it was recorded {times} and every answer "
                "was used by an earlier call. Calls are not sent to live tools in replay mode."
            )
        nearest = self.nearest(tool, arguments_json)
        near = (
            f"the nearest recorded call is {shown(nearest.tool, canonical_json(nearest.arguments))} (line {nearest.line})"
            if nearest is not None
            else "the recording holds no calls"
        )
        return f"replay: {path} holds no answer for {call}; {near}. Calls are not sent to live tools in replay mode."

    def nearest(self, tool: str, arguments_json: str) -> RecordedCall | None:
        """The recorded call closest to the given one: of the same tool, the one whose
        canonical arguments are most alike (``difflib`` ratio; the first recorded wins a tie);
        else of the tool whose name is most alike; None for a recording without calls."""
        same = self._by_tool.get(tool)
        if not same:
            names = list(self._by_tool)
            if not names:
                return None
            best = max(names, key=lambda name: difflib.SequenceMatcher(None, tool, name).ratio())
            same = self._by_tool[best]
        return max(
            same, key=lambda c: difflib.SequenceMatcher(None, arguments_json, canonical_json(c.arguments)).ratio()
        )

    def tools(self) -> list[Tool]:
        """The tools a replay offers: each declared in the recording, and each called in it
        without a declaration (a seeded recording: a function tool taking any input), all
        answered by :meth:`answer`."""
        declared = dict(self.recording.tools)
        for call in self.recording.calls:
            declared.setdefault(call.tool, {"name": call.tool, "any_input": True})
        return [self._tool(name, declaration) for name, declaration in declared.items()]

    def _tool(self, name: str, declaration: dict[str, Any]) -> Tool:
        async def handler(args: Any, ctx: ToolContext) -> Any:
            return self.answer(name, args, ctx)

        def text(key: str) -> str | None:
            value = declaration.get(key)
            return value if isinstance(value, str) else None

        def schema(key: str) -> dict[str, Any] | None:
            value = declaration.get(key)
            return value if isinstance(value, dict) else None

        kind: ToolKind = "freeform" if declaration.get("kind") == "freeform" else "function"
        return Tool(
            name=str(declaration["name"]),
            namespace=text("namespace"),
            namespace_description=text("namespace_description"),
            description=text("description") or "",
            handler=handler,
            input_schema=schema("input_schema"),
            output_schema=schema("output_schema"),
            kind=kind,
            supports_parallel=declaration.get("supports_parallel") is not False,
            any_input=declaration.get("any_input") is True,
            origin=f"replay:{text('origin') or 'recording'}",
        )
