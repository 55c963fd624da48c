"""A frame's payload is the same message whichever encoder wrote it (json, or orjson once the
process has written a large frame), and a process switches only when it must."""

from __future__ import annotations

import json
import subprocess
import sys

import json_strategies
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemode.wire import frame_json
from codemode.wire.framing import decode_payload

json_values = json_strategies.json_values(2**64 - 1, max_leaves=16)
messages = st.dictionaries(st.text(max_size=10), json_values, max_size=5)


@pytest.fixture
def encoder():
    """Set the module's encoder (``json`` or ``orjson``) for one test, then restore it."""
    saved = frame_json._orjson

    def use(module):
        frame_json._orjson = module

    yield use
    frame_json._orjson = saved


def payload_with(encoder, module, message):
    encoder(module)
    return frame_json.payload(message)


def floats_in(value):
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(floats_in(v) for v in value.values())
    if isinstance(value, list):
        return any(floats_in(v) for v in value)
    return False


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages)
def test_both_encoders_write_the_same_message(encoder, message):
    by_json = payload_with(encoder, None, message)
    by_orjson = payload_with(encoder, orjson, message)
    assert decode_payload(by_orjson) == decode_payload(by_json) == json.loads(json.dumps(message))
    if not floats_in(message):  # floats may be spelled otherwise (1e-05, 0.00001), never valued otherwise
        assert by_orjson == by_json


@pytest.mark.unit
@pytest.mark.parametrize(
    "message, written",
    [
        ({"text": "a\udfffb"}, '{"text":"a\ufffdb"}'),  # a lone surrogate: U+FFFD, as json's path writes
        ({"text": "\ud83d\ude00"}, '{"text":"\U0001f600"}'),  # a pair held as two code points: joined
        ({"n": 2**70}, '{"n":1180591620717411303424}'),  # beyond 64 bits: exact
        ({"k": {1: "x"}}, '{"k":{"1":"x"}}'),  # a key that is not a string: json's rule
    ],
)
def test_what_orjson_refuses_is_written_as_json_writes_it(encoder, message, written):
    assert payload_with(encoder, orjson, message) == written.encode("utf-8")
    assert payload_with(encoder, None, message) == written.encode("utf-8")


def test_a_process_switches_to_orjson_after_its_first_large_payload_only():
    probe = (
        "import sys\n"
        "import codemode.wire.framing\n"  # what the runtime host imports to start
        "from codemode.wire import frame_json\n"
        "steps = ['orjson' in sys.modules]\n"
        "frame_json.payload({'text': 'x' * (frame_json.LARGE_PAYLOAD_BYTES - 100)})\n"
        "steps.append(frame_json._orjson is not None)\n"
        "frame_json.payload({'text': 'x' * frame_json.LARGE_PAYLOAD_BYTES})\n"
        "steps.append(frame_json._orjson is not None)\n"
        "print(steps)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[False, False, True]"
