"""The text of a tool call whose arguments do not fit the tool's input schema.

``tool `sleep` received invalid arguments at `ms`: "soon" is not of type "integer" (schema
rule `type`).`` The path is spelled as JavaScript spells it (``items[2].name``), and the
values ``jsonschema``'s message quotes are written as JSON, as the cell that passed them would
write them: ``jsonschema`` words its messages with Python's ``repr`` (``None``, ``True``,
``'x'``, ``{'a': 1}``), which a JavaScript program never sees (``null``, ``true``, ``"x"``).
"""

from __future__ import annotations

import json
from typing import Any

from codemode.schema import ValidationError
from codemode.tools.failures import field_path


def rejection_text(tool_name: str, error: ValidationError) -> str:
    """The message of the :class:`~codemode.errors.ToolCallError` for ``error`` (``jsonschema``'s
    best error for the arguments of tool ``tool_name``)."""
    path = field_path(p for p in error.absolute_path if isinstance(p, (str, int)))
    where = f"`{path}`" if path else "the top level"
    return f"tool `{tool_name}` received invalid arguments at {where}: {json_spelled(error)} (schema rule `{error.validator}`)."


def json_spelled(error: ValidationError) -> str:
    """``error.message`` with the Python spellings of the values it quotes written as JSON."""
    message = error.message
    spellings = {}
    for value in _quoted(error):
        try:
            python, js = repr(value), json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):  # not a JSON value (a schema's own Python object)
            continue
        if python != js:
            spellings[python] = js
    # The longest first, so a list is rewritten before the strings inside it.
    for python in sorted(spellings, key=len, reverse=True):
        message = message.replace(python, spellings[python])
    return message


def _quoted(error: ValidationError) -> list[Any]:
    """The values a message of ``jsonschema`` may quote: the instance, the rule's value, their
    members (a list of types or required names; an object's property names)."""
    values = [error.instance, error.validator_value]
    for value in (error.instance, error.validator_value):
        if isinstance(value, list):
            values.extend(value)
        elif isinstance(value, dict):
            values.extend(value)
    return values
