"""The ``tool/invoke`` request the host writes as text is the message ``messages.tool_invoke`` builds.

The host writes each tool call's frame around the argument's JSON text (``runtime/delegates.py``)
instead of encoding a message object; the client must read the very same frame: same keys in the
same order, every string escaped as the frame encoder escapes it.
"""

from __future__ import annotations

import json

import pytest

from codemode.runtime.delegates import invocation_texts, tool_invoke_text
from codemode.wire import messages
from codemode.wire.frame_json import json_text
from codemode.wire.framing import text_frame_parts

pytestmark = pytest.mark.unit

AWKWARD = ["plain", 'quote " and \\ backslash', "line\nbreak\ttab\x00nul\x1f", "é ü 😀 \u2028\u2029", ""]


@pytest.mark.parametrize("text", AWKWARD)
def test_tool_invoke_text_is_the_encoded_message(text):
    tool = {"tool_name": f"mcp__srv__{text}", "kind": f"kind{text}", "name": "t", "description": ""}
    value = {"ms": 100, "s": text, "list": [1, 2.5, None, True], "nested": {"k": text}}
    written = tool_invoke_text(
        41, invocation_texts(f"session-{text}", f"cell-{text}", tool), "tool-7", json_text(value)
    )
    expected = messages.tool_invoke(
        41,
        f"session-{text}",
        {
            "cell_id": f"cell-{text}",
            "runtime_tool_call_id": "tool-7",
            "tool_name": f"mcp__srv__{text}",
            "tool_kind": f"kind{text}",
            "input": value,
        },
    )
    assert written == json_text(expected)
    assert json.loads(written) == expected


def test_the_argument_text_is_carried_as_written():
    # What JSON.stringify wrote (here an exponent Python would write as 1e+21) is not re-encoded.
    texts = invocation_texts("s", "c", {"tool_name": "sleep", "kind": "function"})
    written = tool_invoke_text(1, texts, "tool-1", '{"big":1e21}')
    assert written.endswith('"tool_name":"sleep","tool_kind":"function","input":{"big":1e21}}}}')
    header, payload = text_frame_parts(written)
    assert payload == written.encode("utf-8")
    assert int.from_bytes(header, "little") == len(payload)


def test_a_call_through_an_ended_cells_helpers_names_that_cell():
    # The notebook realm's call through a helper of ended cell 2, acting for cell 7.
    tool = {"tool_name": "exec_command", "kind": "function"}
    written = tool_invoke_text(3, invocation_texts("s", "7", tool, "2"), "tool-1", "null")
    invocation = {
        "cell_id": "7",
        "via_ended_cell": "2",
        "runtime_tool_call_id": "tool-1",
        "tool_name": "exec_command",
        "tool_kind": "function",
        "input": None,
    }
    assert written == json_text(messages.tool_invoke(3, "s", invocation))  # type: ignore[typeddict-item]
