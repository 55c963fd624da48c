"""Every frame is valid UTF-8, whatever a Python string holds.

A lone UTF-16 surrogate cannot be written as UTF-8; Codex's host (serde_json) also rejects it
as a ``\\ud800`` JSON escape and ends the connection. So :func:`codemode.wire.framing.encode_frame`
replaces a lone surrogate by U+FFFD (and joins a pair stored as two code points), in both
directions. Pinned here: any string round-trips into a valid UTF-8 frame, and a Python tool
returning ``"a\\ud800b"`` through a real host gives the cell ``"a\\ufffdb"`` while the host stays
alive and the next cell runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_harness import OUR_HOST

from codemode.config import Config, SessionDefaults
from codemode.dispatch import ToolCallRuntime
from codemode.session import CodeModeSession
from codemode.tools.registry import ToolRegistry
from codemode.wire.frame_json import well_formed
from codemode.wire.framing import decode_frames, encode_frame

# Any code point, lone surrogates included (hypothesis' default text excludes them).
any_text = st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=40)


@pytest.mark.unit
@settings(max_examples=300, deadline=None)
@given(st.dictionaries(any_text, st.lists(any_text, max_size=3), max_size=3), any_text)
def test_any_string_encodes_into_a_valid_utf8_frame_that_decodes(values, text):
    message = {"type": "delegate/response", "id": 1, "result": {"status": "ok", "value": [text, values]}}
    frame = encode_frame(message)
    payload = frame[4:]
    payload.decode("utf-8", "strict")  # raises if not valid UTF-8
    (decoded,), rest = decode_frames(frame)
    assert rest == b""
    expected = json.loads(json.dumps(message), object_hook=None)
    assert decoded == _well_formed_values(expected)


def _well_formed_values(value):
    if isinstance(value, str):
        return well_formed(value)
    if isinstance(value, list):
        return [_well_formed_values(v) for v in value]
    if isinstance(value, dict):
        return {well_formed(k): _well_formed_values(v) for k, v in value.items()}
    return value


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\ud800b", "a\ufffdb"),
        ("\udfff", "\ufffd"),
        ("\ud83d\ude00", "\U0001f600"),  # a pair stored as two code points is one character
        ("x\ud83d", "x\ufffd"),
        ("plain ü €", "plain ü €"),
    ],
)
def test_lone_surrogates_become_the_replacement_character(text, expected):
    (decoded,), _ = decode_frames(encode_frame({"text": text}))
    assert decoded == {"text": expected}


@pytest.mark.timeout(120)
async def test_a_tool_returning_a_lone_surrogate_keeps_the_host_alive(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "pytools"))
    registry = await ToolRegistry.create(Config(python_modules=["cm_surrogate_tools"]))
    session = CodeModeSession(
        registry=registry, dispatcher=ToolCallRuntime(registry), defaults=SessionDefaults(), host_command=OUR_HOST
    )
    try:

        async def run(source: str) -> list[str]:
            started = await session.execute(source)
            response = await started.initial_response
            assert response.error_text is None, response.error_text
            return [item["text"] for item in response.content_items]

        texts = await run(
            "const r = await tools.lone_surrogate({});"
            "text(JSON.stringify([r, r.length, r.charCodeAt(1)]));"
            "const o = await tools.surrogate_object({}); text(JSON.stringify(o))"
        )
        assert texts == ['["a\ufffdb",3,65533]', '{"k":["x\ufffd","\U0001f600"],"v":"\ufffd"}']
        process = session.provider.connection.process
        assert await run('text("next cell")') == ["next cell"]
        assert session.provider.connection.process is process and process.returncode is None
        assert session.generation == 1
    finally:
        await session.shutdown()
        await registry.aclose()
        sys.modules.pop("cm_surrogate_tools", None)
