"""content(): every MCP content block kind as Codex's host 0.171 reads it (``content_block_kinds``).

text, image and audio blocks become their content items; resource_link and (embedded)
resource blocks become a text item holding the block's JSON text, once their fields have
the types the MCP schema gives them. Any iterable (a string excepted) is a list of blocks.
"""

from __future__ import annotations

import pytest
from rt_client import body_of

EXPECTS = "content expects one MCP ContentBlock"


def _text(text: str) -> dict[str, str]:
    return {"type": "input_text", "text": text}


async def test_a_resource_link_becomes_its_json_text(host):
    """The given input: a resource_link, alone and with every optional field, key order kept."""
    source = (
        'content({type: "resource_link", uri: "file:///tmp/a.txt", name: "a.txt"});\n'
        'content({name: "n", uri: "u", type: "resource_link", title: "T", description: null, mimeType: "text/plain",'
        ' size: -1, icons: [{src: "i"}], annotations: 5, _meta: {"codex/encryptedContent": true}, extra: [1e21, -0],'
        " fn() {}});\n"
    )
    body = body_of(await host.run(source))
    assert body["error_text"] is None
    assert body["content_items"] == [
        _text('{"type":"resource_link","uri":"file:///tmp/a.txt","name":"a.txt"}'),
        _text(
            '{"name":"n","uri":"u","type":"resource_link","title":"T","description":null,"mimeType":"text/plain",'
            '"size":-1,"icons":[{"src":"i"}],"annotations":5,"_meta":{"codex/encryptedContent":true},'
            '"extra":[1e+21,0]}'
        ),
    ]


async def test_an_embedded_resource_becomes_its_json_text(host):
    """Text and blob resources (the blob is not checked as base64), in an array with a text block."""
    source = (
        "content([\n"
        '  {type: "resource", resource: {uri: "file:///b.txt", mimeType: "text/plain", text: "hello"}},\n'
        '  {type: "resource", resource: {uri: "u", text: 5, blob: "!!", mimeType: null}, annotations: {priority: 1}},\n'
        '  {type: "text", text: "after"},\n'
        "]);\n"
    )
    assert body_of(await host.run(source))["content_items"] == [
        _text('{"type":"resource","resource":{"uri":"file:///b.txt","mimeType":"text/plain","text":"hello"}}'),
        _text(
            '{"type":"resource","resource":{"uri":"u","text":5,"blob":"!!","mimeType":null},"annotations":{"priority":1}}'
        ),
        _text("after"),
    ]


REFUSED = [
    ('{type: "resource_link", uri: "https://example.com/x"}', EXPECTS),
    ('{type: "resource_link", uri: "u", name: "n", size: 1.5}', EXPECTS),
    ('{type: "resource_link", uri: "u", name: "n", size: 2 ** 63}', EXPECTS),
    ('{type: "resource_link", uri: "u", name: "n", title: 5}', EXPECTS),
    ('{type: "resource_link", uri: "u", name: "n", icons: {}}', EXPECTS),
    ('{type: "resource", resource: {uri: "u"}}', EXPECTS),
    ('{type: "resource", resource: {uri: "u", text: "t", mimeType: 5}}', EXPECTS),
    ('{type: "resource", resource: ["u", null, "t"]}', EXPECTS),
    (
        '{type: "text", text: "secret", _meta: {"codex/encryptedContent": true}}',
        "content cannot emit encrypted MCP text",
    ),
    ('{type: "image", data: "AA", mimeType: "image/png", mime_type: "image/jpeg"}', EXPECTS),
    ('{type: "audio", mimeType: "audio/wav"}', EXPECTS),
    ('{type: "video", data: "x"}', EXPECTS),
    ('"a string"', EXPECTS),
    ("undefined", EXPECTS),
    ("Symbol()", "failed to serialize JavaScript value: expected value at line 1 column 1"),
    (
        '{type: "resource_link", uri: "u", name: "lone \\ud800"}',
        "failed to serialize JavaScript value: unexpected end of hex escape at line 1 column 54",
    ),
]


@pytest.mark.parametrize(("block", "message"), REFUSED)
async def test_a_block_of_the_wrong_shape_is_refused_with_codexs_text(host, block, message):
    source = f"try {{ content({block}); text('emitted'); }} catch (e) {{ text(typeof e + ': ' + e); }}"
    assert body_of(await host.run(source))["content_items"] == [_text(f"string: {message}")]


async def test_media_blocks_keep_data_urls_and_their_own_mime_type(host):
    """content() keeps "" data and MIME types; image() and audio() default them and keep DATA: URLs too."""
    source = (
        'content({type: "image", data: "", mimeType: ""});\n'
        'content({type: "image", data: "DATA:x", _meta: {"codex/imageDetail": "LOW"}});\n'
        'content({type: "audio", data: "AA", mime_type: "audio/mpeg"});\n'
        'image({type: "image", data: "DATA:y", _meta: {"codex/imageDetail": "LOW"}});\n'
        'image({type: "image", data: "AA", mimeType: "", _meta: {"codex/imageDetail": "low"}});\n'
        'audio({type: "audio", data: "data:audio/wav;base64,AA"});\n'
    )
    assert body_of(await host.run(source))["content_items"] == [
        {"type": "input_image", "image_url": "data:;base64,", "detail": "high"},
        {"type": "input_image", "image_url": "DATA:x", "detail": "high"},
        {"type": "input_audio", "audio_url": "data:audio/mpeg;base64,AA"},
        {"type": "input_image", "image_url": "DATA:y", "detail": "high"},
        {"type": "input_image", "image_url": "data:application/octet-stream;base64,AA", "detail": "low"},
        {"type": "input_audio", "audio_url": "data:audio/wav;base64,AA"},
    ]


async def test_any_iterable_is_a_list_of_blocks_and_is_closed_on_a_refusal(host):
    source = (
        'content(new Set([{type: "text", text: "s1"}, {type: "resource_link", uri: "u", name: "s2"}]));\n'
        "let closed = false;\n"
        "function* blocks() {\n"
        '  try { yield {type: "text", text: "g1"}; yield {type: "bad"}; yield {type: "text", text: "g3"}; }\n'
        "  finally { closed = true; }\n"
        "}\n"
        "try { content(blocks()); } catch (e) { text(e + ' closed=' + closed); }\n"
        'content({type: "text", text: "own", [Symbol.iterator]: function* () { yield {type: "text", text: "iterated"}; }});\n'
    )
    assert body_of(await host.run(source))["content_items"] == [
        _text("s1"),
        _text('{"type":"resource_link","uri":"u","name":"s2"}'),
        _text("g1"),
        _text(f"{EXPECTS} closed=true"),
        _text("iterated"),
    ]
