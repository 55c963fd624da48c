"""Stored values cross the host connection one a frame (``codemode/wire/stored_values.py``).

The host checks at ``store()`` that the frame carrying a value will fit
(``runtime/bridge.py``), keeps the value as the JSON Python writes, which the client writes
again when it gives the value to a new host, and takes a client's values one a frame after
``session/open`` (``runtime/server.py``). The kernel-level faults (a host replaced with more
than 64 MiB stored, a value over 64 MiB) are pinned in ``tests/kernel/test_kernel_stored_sizes.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from rt_client import start_host, text_items

from codemode.runtime import bridge
from codemode.wire import stored_values
from codemode.wire.frame_json import json_text
from codemode.wire.framing import text_frame_parts
from codemode.wire.stored_values import canonical, message_text

pytestmark = pytest.mark.timeout(120)


class _Cell:
    """What the bridge's ``store`` asks of a cell: the values it kept."""

    def __init__(self) -> None:
        self.kept: dict[str, int] = {}

    def store(self, key: str, value_json: str) -> None:
        self.kept[key] = len(value_json)


def _store(cell: _Cell, key: str, value_json: str) -> str | None:
    """The bridge's answer to ``store(key, value)`` whose JSON is ``value_json``, sent as
    ``prelude/store.js`` sends it."""
    return bridge.handle(cell, "store:" + json.dumps(key, ensure_ascii=False), value_json)  # type: ignore[arg-type]


@pytest.mark.unit
def test_the_limit_is_the_frame_limit_less_room_for_the_envelope():
    assert stored_values.MAX_STORED_VALUE_BYTES == 64 * 1024 * 1024 - 1024
    envelope = message_text("session-1", "", "")
    assert len(envelope) + len("session-1000000") < stored_values.ENVELOPE_BYTES


@pytest.mark.unit
def test_store_keeps_a_value_up_to_the_limit_and_refuses_one_byte_more_at_once(monkeypatch):
    """At the real limit (64 MiB less 1 KiB) in ``tests/kernel/test_kernel_stored_sizes.py``; here
    at 1000 bytes, with the same code."""
    monkeypatch.setattr(stored_values, "MAX_STORED_VALUE_BYTES", 1000)
    cell = _Cell()
    inner = 1000 - len('"k":""')  # "k" with a string of this many bytes takes the limit
    assert _store(cell, "k", '"' + "x" * inner + '"') is None
    assert cell.kept == {"k": inner + 2}
    refused = (
        'eUnable to store "{key}": the key and the value take {size} bytes as JSON, '
        "more than the 1000 one stored value may take."
    )
    assert _store(cell, "kk", '"' + "x" * inner + '"') == refused.format(key="kk", size=1001)
    assert _store(cell, "\u00e9", '"' + "x" * inner + '"') == refused.format(key="\u00e9", size=1001)
    assert _store(cell, "k", '"' + "\u00e9" * 497 + "x" + '"') == refused.format(key="k", size=1001)
    # 995 bytes as JavaScript wrote them, 1193 as the host keeps them and the client sends them (1e-07)
    assert _store(cell, "k", "[" + ",".join(["1e-7"] * 198) + "]") == refused.format(key="k", size=1193)
    assert cell.kept == {"k": inner + 2}  # nothing refused was kept, nothing kept was lost


@pytest.mark.unit
@pytest.mark.parametrize(
    ("written", "kept"),
    [
        (
            "[1e-7,0.00001,1e+21,1.5e+300,0,123456789012345680000,0.1,5e-324]",
            "[1e-07,1e-05,1e+21,1.5e+300,0,123456789012345680000,0.1,5e-324]",
        ),
        (
            '{"a":{"b":[true,null,"\\u0001\\n\u00e9\U0001f600"]},"":-2.5e-8}',
            '{"a":{"b":[true,null,"\\u0001\\n\u00e9\U0001f600"]},"":-2.5e-08}',
        ),
        ('"\\"\\\\\\u001f\u2028"', '"\\"\\\\\\u001f\u2028"'),
    ],
)
def test_the_client_writes_the_value_the_host_kept_byte_for_byte(written, kept):
    """The size the host measured is the size of the frame the client sends a new host: the
    client parses the host's report and writes the value again with Python's ``json``."""
    assert canonical(written) == kept
    report = json.loads(message_text("session-1", "k", kept))
    assert json_text(report["values"]["k"]) == kept


async def test_javascript_writes_every_string_as_python_does():
    """Why the host keeps a string's JSON as the cell's engine wrote it (``canonical``): every
    character but the lone surrogates (which ``store()`` refuses) is written alike. (V8 writes
    as QuickJS does: ECMA-262's QuoteJSONString fixes every character's text.)"""
    client = await start_host()
    try:
        await client.hello()
        await client.open("s1")
        every = (
            'let s = ""; for (let i = 0; i < 0x10000; i++) if (i < 0xD800 || i > 0xDFFF) s += String.fromCharCode(i);'
            ' text(JSON.stringify(s + "\\u{1F600}\\u{10FFFF}"))'
        )
        (written,) = text_items(await client.run(every))
        assert len(written) > 0xF800
        assert json_text(json.loads(written)) == written
    finally:
        await client.close()


async def test_a_client_gives_its_values_one_a_frame_after_the_open():
    client = await start_host()
    try:
        await client.hello()
        assert (await client.open("s1", storedValues={"inline": 0}))["status"] == "ok"
        values: dict[str, Any] = {"a": 1, "b": "x" * 70_000, "c": {"d": [1e-7]}}
        for key, value in values.items():
            client.send_raw(b"".join(text_frame_parts(message_text("s1", key, json_text(value)))))
        client.send_raw(b"".join(text_frame_parts(message_text("nobody", "e", "5"))))  # dropped, logged
        loaded = await client.run(
            'text(JSON.stringify(["inline", "a", "c", "e"].map(load))); text(String(load("b").length))'
        )
        assert text_items(loaded) == ['[0,1,{"d":[1e-7]},null]', "70000"]
        assert client.stored_values == []  # the seeds are not reported back
    finally:
        await client.close()
