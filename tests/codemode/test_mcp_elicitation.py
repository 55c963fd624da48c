"""Answering ``elicitation/create`` (:mod:`codemode.tools.mcp_elicitation`), in process: Codex's
unattended answers, which call is asked, and how a reply becomes a field's value."""

from __future__ import annotations

import asyncio

import pytest
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams

from codemode.tools.base import ToolContext
from codemode.tools.mcp_elicitation import Elicitations, Field, unattended_answer

pytestmark = pytest.mark.unit

EMPTY = ElicitRequestFormParams(message="Go on?", requested_schema={"type": "object", "properties": {}})
NAME = ElicitRequestFormParams(
    message="Who?",
    requested_schema={"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
)
URL = ElicitRequestURLParams(message="Sign in", url="https://example.com", elicitation_id="e")


def dumped(answer) -> dict:
    return answer.model_dump(by_alias=True, exclude_none=True, mode="json")


@pytest.mark.parametrize(
    ("params", "unrestricted", "expected"),
    [
        (EMPTY, True, {"action": "accept", "content": {}}),
        (EMPTY, False, {"action": "decline"}),
        (NAME, True, {"action": "decline"}),
        (URL, True, {"action": "decline"}),
    ],
)
def test_unattended_answers_are_codexs_under_never(params, unrestricted, expected):
    assert dumped(unattended_answer(params, unrestricted)) == expected


def context(cell_id: str, replies: list[str], asked: list[str]) -> ToolContext:
    async def ask(prompt: str) -> str | None:
        asked.append(prompt)
        return replies.pop(0) if replies else None

    ctx = ToolContext(cell_id, f"tool-{cell_id}")
    ctx.ask_person = ask
    return ctx


async def test_the_cell_of_the_calls_in_flight_is_asked():
    elicitations, asked = Elicitations("srv"), []
    with elicitations.calling("who", context("4", ["y", "Ada"], asked)):
        answer = await elicitations.answer(None, NAME)
    assert dumped(answer) == {"action": "accept", "content": {"name": "Ada"}}
    assert asked == [
        "Cell 4: MCP server `srv` asks for input (tool `who`):\n  Who?\nAnswer? [y]es / [n]o (decline) / [c]ancel: ",
        "  name (text; required): ",
    ]


async def test_calls_of_two_cells_in_flight_ask_no_one():
    elicitations, asked = Elicitations("srv"), []
    with elicitations.calling("a", context("1", ["y"], asked)), elicitations.calling("b", context("2", ["y"], asked)):
        answer = await elicitations.answer(None, NAME)
    assert (dumped(answer), asked) == ({"action": "decline"}, [])


async def test_never_asks_no_one_and_no_one_to_ask_is_unattended():
    asked: list[str] = []
    never = Elicitations("srv", approval_policy="never", unrestricted=True)
    with never.calling("a", context("1", ["y"], asked)):
        assert dumped(await never.answer(None, EMPTY)) == {"action": "accept", "content": {}}
    nobody = Elicitations("srv")
    with nobody.calling("a", context("1", [], asked)):
        assert dumped(await nobody.answer(None, NAME)) == {"action": "decline"}
    assert asked == [
        "Cell 1: MCP server `srv` asks for input (tool `a`):\n  Who?\n" + "Answer? [y]es / [n]o (decline) / [c]ancel: "
    ]


async def test_a_question_open_when_the_call_is_cancelled_answers_cancel():
    elicitations = Elicitations("srv")
    ctx = ToolContext("1", "tool-1")
    question = asyncio.Event()

    async def ask(prompt: str) -> str | None:
        question.set()
        await asyncio.Event().wait()  # no answer comes
        return None

    ctx.ask_person = ask
    with elicitations.calling("a", ctx):
        answering = asyncio.ensure_future(elicitations.answer(None, NAME))
        await question.wait()
        ctx.cancellation.cancel()
        assert dumped(await answering) == {"action": "cancel"}


@pytest.mark.parametrize(
    ("spec", "reply", "value"),
    [
        ({"type": "boolean"}, "No", False),
        ({"type": "number", "minimum": 0, "maximum": 10}, "2.5", 2.5),
        ({"type": "number"}, "3", 3),
        ({"type": "string", "oneOf": [{"const": "a", "title": "Alpha"}]}, "alpha", "a"),
        ({"type": "array", "items": {"enum": ["x", "y"]}}, "y, X", ["y", "x"]),
    ],
)
def test_a_reply_becomes_the_fields_value(spec, reply, value):
    assert Field("f", spec, False).parse(reply) == value


@pytest.mark.parametrize(
    ("spec", "reply", "why"),
    [
        ({"type": "boolean"}, "maybe", "answer yes or no"),
        ({"type": "integer", "minimum": 1, "maximum": 9}, "10", "10 is not from 1 to 9"),
        ({"type": "integer"}, "1.5", "1.5 is not an integer"),
        ({"type": "number", "minimum": 0}, "-1", "-1 is not at least 0"),
        ({"type": "number"}, "nan", "nan is not a number"),
        ({"type": "string", "enum": ["a"]}, "b", "b is not one of the choices"),
        ({"type": "array", "items": {"enum": ["x"]}, "maxItems": 1}, "x, x", "choose at most 1 of them"),
        ({"type": "string", "maxLength": 2}, "abc", "the text must be at most 2 characters long"),
    ],
)
def test_a_reply_that_does_not_fit_says_why(spec, reply, why):
    with pytest.raises(ValueError) as raised:
        Field("f", spec, False).parse(reply)
    assert str(raised.value) == why
