"""The text a cell sees for arguments its tool's schema rejects: the values jsonschema quotes
are spelled as JSON (``null``, ``true``, ``"x"``), as the cell wrote them, never Python's repr."""

from __future__ import annotations

import pytest

from codemode.dispatch.arguments import ArgumentSchema
from codemode.dispatch.rejection import rejection_text

pytestmark = pytest.mark.unit

SLEEP = {"type": "object", "properties": {"ms": {"type": "integer"}}, "required": ["ms"], "additionalProperties": False}


@pytest.mark.parametrize(
    ("schema", "arguments", "text"),
    [
        (SLEEP, {"ms": None}, 'at `ms`: null is not of type "integer" (schema rule `type`).'),  # NaN, JSON-converted
        (SLEEP, {"ms": True}, 'at `ms`: true is not of type "integer" (schema rule `type`).'),
        (
            SLEEP,
            {"ms": {"a": [None, False], "b": "it's"}},
            'at `ms`: {"a": [null, false], "b": "it\'s"} is not of type "integer" (schema rule `type`).',
        ),
        (SLEEP, {}, 'at the top level: "ms" is a required property (schema rule `required`).'),
        (
            SLEEP,
            {"ms": 1, "mode": None},
            'at the top level: Additional properties are not allowed ("mode" was unexpected) '
            "(schema rule `additionalProperties`).",
        ),
        ({"enum": ["a", None]}, "c", 'at the top level: "c" is not one of ["a", null] (schema rule `enum`).'),
        (
            {"type": ["string", "null"]},
            [1],
            'at the top level: [1] is not of type "string", "null" (schema rule `type`).',
        ),
        ({"maximum": 3}, 4, "at the top level: 4 is greater than the maximum of 3 (schema rule `maximum`)."),
    ],
    ids=["null", "true", "nested", "required", "unexpected", "enum", "type-list", "number"],
)
def test_values_in_the_message_are_spelled_as_json(schema, arguments, text):
    error = ArgumentSchema.build(schema).first_error(arguments)
    assert rejection_text("sleep", error) == "tool `sleep` received invalid arguments " + text
