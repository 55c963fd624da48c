"""serde_json's recursion limit on the client's frames.

Codex's host reads a frame with serde_json, which refuses an array or object nested 128 deep
(the frame's own object counts as the first) with ``recursion limit exceeded at line L column
C``, C the column of that container's opening bracket: recorded from Codex 0.171's host, a hello
whose member nests 127 arrays fails at the 127th ``[``, and so does one nesting 130, whatever
the member. Python's parser takes far deeper frames, which the host accepts (a tool's result
may nest deeper than serde_json goes, and refusing a frame ends the connection), and then, near
a thousand levels, raises ``RecursionError``, which ended the host with a traceback: such a
frame, or one with a syntax error after nesting that deep, is refused with serde_json's text,
:func:`first_too_deep` giving where serde_json stops.
"""

from __future__ import annotations

import json
import re
from typing import Any

LIMIT = 128
"""The nesting depth serde_json refuses: the 128th array or object, counting the outermost."""
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.S)


def nests_too_deep(text: str) -> bool:
    """Whether the JSON ``text`` nests :data:`LIMIT` arrays and objects (a text that is no JSON is
    scanned instead). Parsed and walked: the walk visits only containers, so a long text that is
    mostly strings costs about its parse, where scanning it in Python took tens of times longer."""
    try:
        value = json.loads(text)
    except RecursionError:
        return True
    except ValueError:
        return first_too_deep(text) is not None
    stack: list[tuple[Any, int]] = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth >= LIMIT:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return False


def first_too_deep(text: str, end: int | None = None) -> int | None:
    """The index in ``text`` of the opening bracket serde_json refuses (the first nested
    :data:`LIMIT` deep, outside strings), looking no further than ``end``; None when there is
    none."""
    depth = 0
    for match in _TOKEN.finditer(text, 0, len(text) if end is None else end):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth >= LIMIT:
                return match.start()
        elif token in "]}":
            depth -= 1
    return None
