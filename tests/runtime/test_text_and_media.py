"""Text, media and notification helpers with Codex's exact texts.

Each test names the recorded Codex cases whose behaviour it pins."""

from __future__ import annotations

import pytest
from rt_client import body_of, start_host, text_items

from codemode.wire.framing import CAPABILITIES, RAW_TEXT_CAPABILITY


async def test_text_stringification(host):
    """text(): strings verbatim, String() for primitives, JSON for objects (text_* cases)."""
    response = await host.run(
        'text("plain"); text(""); text(NaN); text(-0); text(1e21); text(true); text(new Number(7));'
        "text(undefined); text(); text(null); text(10n); text(() => 1); text(Symbol('s'));"
        "text({u: undefined}); text([undefined, () => 1]); text(new Map([[1, 2]])); text(new Date(0));"
        'text(new String("x")); text({toJSON() { return "tj"; }}); text(new Uint8Array([1, 2]));'
        'text("first", "ignored"); text("lone \\uD800 end");'
    )
    assert text_items(response) == [
        "plain",
        "",
        "NaN",
        "0",
        "1e+21",
        "true",
        "7",
        "undefined",
        "undefined",
        "null",
        "10",
        "undefined",
        "undefined",
        "{}",
        "[null,null]",
        "{}",
        '"1970-01-01T00:00:00.000Z"',
        '"x"',
        '"tj"',
        '{"0":1,"1":2}',
        "first",
        "lone \ufffd end",
    ]
    assert body_of(response)["error_text"] is None


async def test_text_failures_throw_v8_strings(host):
    """Circular values and nested BigInts throw V8's texts as plain strings (text_circular, text_bigint)."""
    source = (
        "const o = {name: 'loop'}; o.self = o;\n"
        "try { text(o); } catch (e) { text(typeof e + '|' + e); }\n"
        "try { text({b: 1n}); } catch (e) { text(typeof e + '|' + e); }\n"
    )
    texts = text_items(await host.run(source))
    assert texts == [
        "string|TypeError: Converting circular structure to JSON\n"
        "    --> starting at object with constructor 'Object'\n"
        "    --- property 'self' closes the circle\n"
        "    at exec_main.mjs:2:7",
        "string|TypeError: Do not know how to serialize a BigInt\n    at exec_main.mjs:3:7",
    ]


async def test_helpers_are_native_looking_and_removed_globals_absent(host):
    """Helpers have name "" and length 0; console and friends are absent (globals_* cases)."""
    source = (
        "text(typeof text.name + ':' + text.name + ':' + text.length);\n"
        "text(['console', 'Atomics', 'SharedArrayBuffer', 'WebAssembly', 'queueMicrotask', 'structuredClone',"
        " 'setInterval', 'atob', 'process', 'forward_output'].map((n) => typeof globalThis[n]).join(','));\n"
        "text(['content', 'audio', 'generatedImage', 'as_settled', 'stream_settled', 'eval', 'Function', 'Intl']"
        ".map((n) => typeof globalThis[n]).join(','));\n"
        "text(Object.hasOwn(globalThis, 'console'));\n"
        "text(Object.getOwnPropertyNames(globalThis).filter((n) => !/^[A-Z]/.test(n)).sort().join(','));\n"
    )
    texts = text_items(await host.run(source))
    assert texts[0] == "string::0"
    assert texts[1] == ",".join(["undefined"] * 10)
    assert texts[2] == "function,function,function,function,function,function,function,object"
    assert texts[3] == "false"
    assert texts[4] == (
        "as_settled,audio,clearTimeout,content,decodeURI,decodeURIComponent,encodeURI,encodeURIComponent,"
        "escape,eval,exit,generatedImage,globalThis,image,isFinite,isNaN,load,notify,parseFloat,parseInt,"
        "setTimeout,store,stream_settled,text,tools,undefined,unescape,yield_control"
    )


async def test_image_inputs_and_details(host):
    """image(): data URL, {image_url}, MCP block; default detail high (image_variants)."""
    png = "iVBORw0KGgo="
    url = f"data:image/png;base64,{png}"
    source = (
        f'const url = "{url}";\n'
        "image(url); image({image_url: url, detail: 'LOW'}); image({image_url: url, detail: 'low'}, 'original');\n"
        f"image({{type: 'image', data: '{png}', mimeType: 'image/jpeg'}});\n"
        f"image({{type: 'image', data: '{png}'}});\n"
        f"image({{type: 'image', data: '{png}', mimeType: 'image/png', _meta: {{'codex/imageDetail': 'original'}}}});\n"
        f"image({{type: 'image', data: '{png}', mimeType: 'image/png', _meta: {{'codex/imageDetail': 'bogus'}}}});\n"
        "image(url, null);\n"
    )
    body = body_of(await host.run(source))
    assert body["content_items"] == [
        {"type": "input_image", "image_url": url, "detail": "high"},
        {"type": "input_image", "image_url": url, "detail": "low"},
        {"type": "input_image", "image_url": url, "detail": "original"},
        {"type": "input_image", "image_url": f"data:image/jpeg;base64,{png}", "detail": "high"},
        {"type": "input_image", "image_url": f"data:application/octet-stream;base64,{png}", "detail": "high"},
        {"type": "input_image", "image_url": url, "detail": "original"},
        {"type": "input_image", "image_url": url, "detail": "high"},
        {"type": "input_image", "image_url": url, "detail": "high"},
    ]


async def test_image_errors(host):
    """image() error texts (image_bad_inputs)."""
    calls = {
        "image('https://example.com/a.png')": "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
        "image('HTTP://example.com/a.png')": "Tool call failed: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead",
        "image('file:///etc/passwd')": "Tool call failed: invalid image output. Pass a base64 data URI instead",
        "image('nocolon')": "Tool call failed: invalid image output. Pass a base64 data URI instead",
        "image(42)": "image expects a non-empty image URL string, an object with image_url and optional detail, "
        "or a raw MCP image block",
        "image('')": "image expects a non-empty image URL string, an object with image_url and optional detail, "
        "or a raw MCP image block",
        "image({content: []})": "image expects a non-empty image URL string, an object with image_url and optional "
        "detail, or a raw MCP image block",
        "image('data:image/png;base64,AA', 'huge')": "image detail must be one of: auto, low, high, original",
        "image('data:image/png;base64,AA', 5)": "image detail must be a string when provided",
        "image({type: 'image'})": "image expected MCP image data",
        "image({type: 'text', text: 'x'})": 'image only accepts MCP image blocks, got "text"',
    }
    source = "\n".join(
        f"try {{ {call}; text('no throw'); }} catch (e) {{ text(typeof e + ':' + e); }}" for call in calls
    )
    assert text_items(await host.run(source)) == [f"string:{message}" for message in calls.values()]


async def test_audio_generated_image_and_content(host):
    """audio(), generatedImage(), content() (globals_extra_helpers)."""
    source = (
        "audio('data:audio/wav;base64,AAA'); audio({type: 'audio', data: 'BBB', mimeType: 'audio/mp3'});\n"
        "try { audio('https://x/a.wav'); } catch (e) { text(e); }\n"
        "generatedImage({image_url: 'data:image/png;base64,CC', output_hint: 'a hint'});\n"
        "try { generatedImage(5); } catch (e) { text(e); }\n"
        "try { generatedImage({image_url: 'data:image/png;base64,CC', output_hint: 5}); } catch (e) { text(e); }\n"
        "content({type: 'text', text: 'from content'});\n"
    )
    body = body_of(await host.run(source))
    assert body["content_items"] == [
        {"type": "input_audio", "audio_url": "data:audio/wav;base64,AAA"},
        {"type": "input_audio", "audio_url": "data:audio/mp3;base64,BBB"},
        {"type": "input_text", "text": "Tool call failed: invalid audio output. Pass a base64 data URI instead"},
        {"type": "input_image", "image_url": "data:image/png;base64,CC", "detail": "high"},
        {"type": "input_text", "text": "a hint"},
        {"type": "input_text", "text": "generatedImage expects an image generation result object"},
        {"type": "input_text", "text": "generatedImage output_hint must be a string when provided"},
        {"type": "input_text", "text": "from content"},
    ]


async def test_notify_sends_delegate_requests(host):
    """notify(): a notification/send per call, stringified; blank text throws (notify_basic)."""
    source = (
        "notify('first'); notify(42); notify({a: 1}); notify(); notify(null);\n"
        "try { notify('  '); } catch (e) { text(typeof e + ':' + e); }\n"
        "text(typeof notify('last'));\n"
    )
    texts = text_items(await host.run(source, tool_call_id="call-77"))
    assert texts == ["string:notify expects non-empty text", "undefined"]
    assert host.notifications == ["first", "42", '{"a":1}', "undefined", "null", "last"]
    request = next(c.request for c in host.calls if c.request["type"] == "notification/send")
    assert request == {"type": "notification/send", "callId": "call-77", "cellId": "1", "text": "first"}


async def test_nul_and_lone_surrogates_cross_the_bridge_in_every_helper(host):
    """A NUL must not cut notify text, load keys or thrown strings; a lone surrogate becomes
    U+FFFD as in text() (text_strings). Found by the property test against Codex's host."""
    source = (
        "notify('\\0'); notify('a\\0b\\ud800');\n"
        "store('k\\0', 1); store('k', 2); text(String(load('k\\0')));\n"
        "throw 'x\\0y';\n"
    )
    response = await host.run(source)
    assert host.notifications == ["\x00", "a\x00b\ufffd"]
    assert text_items(response) == ["1"]
    assert body_of(response)["error_text"] == "x\x00y"


async def test_text_of_any_string_arrives_whole_whichever_way_it_crosses(host):
    """text() sends a well-formed string raw and anything else as JSON (``runtime/bridge.py``):
    a NUL anywhere (the raw form is cut there, so the host asks for JSON), astral characters
    (two UTF-16 units each), a lone surrogate (U+FFFD), a string built by concatenation, an
    empty string and 8 MB of non-ASCII text all arrive exactly."""
    response = await host.run(
        "text('a\\0b'); text('\\0'); text('x\\0'); text('\\ud83d\\ude00 ok \\0 \\u00e9');"
        "text('\\ud83d\\ude00\\ud83d\\ude01'); text('lone \\ud800'); text('\\udc00\\ud83d\\ude00');"
        "const big = '\\u00e9\\u4e2d'.repeat(4e6); text('<' + big + '>'); text('');"
        "text(String.fromCharCode(97, 0, 98) + 'c'.repeat(3));"
    )
    texts = text_items(response)
    assert texts[:7] == [
        "a\x00b",
        "\x00",
        "x\x00",
        "\U0001f600 ok \x00 \u00e9",
        "\U0001f600\U0001f601",
        "lone \ufffd",
        "\ufffd\U0001f600",
    ]
    assert texts[7] == "<" + "\u00e9\u4e2d" * 4_000_000 + ">"
    assert texts[8:] == ["", "a\x00bccc"]


async def test_notify_delivery_error_does_not_affect_script(host):
    """A refused notification is only logged (notify_delivery_error)."""
    host.notify_error = "no active turn"
    assert text_items(await host.run("notify('x'); text('still fine');")) == ["still fine"]


@pytest.mark.parametrize("yielded", [False, True], ids=["result", "wait"])
async def test_long_outputs_travel_beside_their_response_and_read_the_same(yielded):
    """With codemode-raw-text-v1 offered, long texts and data URLs come in frames of their own;
    the client reads the same items as a client that did not offer it (lone surrogate repaired
    in both)."""
    source = (
        ("yield_control();\n" if yielded else "")
        + "text('é'.repeat(70000)); image('data:image/png;base64,' + 'A'.repeat(70000)); text('short');\n"
        + "text('x'.repeat(70000) + '\\ud800');"
    )
    seen = []
    for offered in (list(CAPABILITIES), [c for c in CAPABILITIES if c != RAW_TEXT_CAPABILITY]):
        client = await start_host()
        try:
            assert (await client.hello(optional=offered))["type"] == "connection/ready"
            assert (await client.open("s1"))["status"] == "ok"
            if yielded:
                cell_id, first = await client.execute(source)
                assert "Yielded" in first
                body = body_of((await client.wait(cell_id, 10_000))["LiveCell"])
            else:
                body = body_of(await client.run(source))
            seen.append((body["content_items"], client.raw_texts))
        finally:
            client.process.kill()
            await client.process.wait()
    (with_raw, raw_count), (inline, inline_count) = seen
    assert (raw_count, inline_count) == (3, 0)
    assert with_raw == inline
    assert [item.get("text", item.get("image_url", ""))[-3:] for item in with_raw] == ["ééé", "AAA", "ort", "xx\ufffd"]
