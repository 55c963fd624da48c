"""Unpaired UTF-16 surrogates leaving the sandbox, as Codex's host 0.171 treats them.

Recorded from Codex's host: a value serialised to JSON (tool argument, store() value, MCP
block) with a lone surrogate makes that one call throw serde_json's text, with the byte
column of the escape in V8's JSON; plain strings (text, notify, error texts, image and
audio URLs, store/load keys) get U+FFFD. Every frame the host writes stays valid UTF-8
(``rt_client`` decodes each strictly; ``read_error`` stays None).
"""

from __future__ import annotations

from rt_client import body_of, text_items, tool_def

SERIALIZE = "failed to serialize JavaScript value: "

# (JS expression whose value is serialised, Codex's thrown text)
TOOL_ARGUMENTS = [
    ('"ab😀".slice(0, 3)', SERIALIZE + "unexpected end of hex escape at line 1 column 10"),
    ('{a: "x\\ud800y"}', SERIALIZE + "unexpected end of hex escape at line 1 column 14"),
    ('{["k\\udfff"]: 1}', SERIALIZE + "lone leading surrogate in hex escape at line 1 column 9"),
    ('[1, "\\ud800"]', SERIALIZE + "unexpected end of hex escape at line 1 column 11"),
    ('{a: {b: [{c: "\\udc00"}]}}', SERIALIZE + "lone leading surrogate in hex escape at line 1 column 23"),
    ('"é\\ud800"', SERIALIZE + "unexpected end of hex escape at line 1 column 10"),
    ('"😀\\ud800"', SERIALIZE + "unexpected end of hex escape at line 1 column 12"),
    ('"\\ud800\\ud800"', SERIALIZE + "lone leading surrogate in hex escape at line 1 column 13"),
    ('"\\ud800\\\\n"', SERIALIZE + "unexpected end of hex escape at line 1 column 9"),
    ('["\\udc00", "\\ud800"]', SERIALIZE + "lone leading surrogate in hex escape at line 1 column 8"),
    ('{toJSON() { return "\\ud800"; }}', SERIALIZE + "unexpected end of hex escape at line 1 column 8"),
    ("() => 1", SERIALIZE + "expected value at line 1 column 1"),
]


async def test_tool_arguments_with_a_lone_surrogate_throw_and_send_nothing(host):
    """Each bad argument throws synchronously (a string); a paired surrogate goes through unchanged."""
    lines = [
        f"try {{ tools.echo({expr}); text('sent'); }} catch (e) {{ text(typeof e + ' ' + e); }}"
        for expr, _ in TOOL_ARGUMENTS
    ]
    lines.append('text(await tools.echo("\\ud83d\\ude00"));')
    response = await host.run("\n".join(lines), tools=[tool_def("echo")])
    assert text_items(response) == [f"string {expected}" for _, expected in TOOL_ARGUMENTS] + ["\U0001f600"]
    assert [c.request["invocation"]["input"] for c in host.calls] == ["\U0001f600"]
    assert host.calls[0].request["invocation"]["runtime_tool_call_id"] == "tool-1"
    assert host.read_error is None


async def test_store_values_are_refused_and_keys_replaced(host):
    """store() of a lone surrogate throws serde's text; keys with one meet at U+FFFD across cells."""
    source = (
        'for (const v of ["\\udfff", {a: ["\\ud800"]}, "a\\n\\ud800"]) {\n'
        "  try { store('v', v); text('stored'); } catch (e) { text(e); }\n"
        "}\n"
        'store("\\ud800", 1); text(load("\\udfff")); text(String(load("v")));'
    )
    assert text_items(await host.run(source)) == [
        SERIALIZE + "lone leading surrogate in hex escape at line 1 column 7",
        SERIALIZE + "unexpected end of hex escape at line 1 column 14",
        SERIALIZE + "unexpected end of hex escape at line 1 column 11",
        "1",
        "undefined",
    ]
    assert text_items(await host.run('text(load("\\ufffd")); text(load("\\ud800"));')) == ["1", "1"]


async def test_plain_strings_get_the_replacement_character(host):
    """text, notify, image/audio URLs, generatedImage hints: U+FFFD, in valid frames."""
    source = (
        'text("t\\udfffz"); notify("n\\ud800n"); image("data:image/png;base64,ab\\ud800");\n'
        'image({image_url: "data:image/png;base64,\\udc00"}); audio("data:audio/wav;base64,\\ud800");\n'
        'generatedImage({image_url: "data:image/png;base64,z", output_hint: "h\\ud800"});\n'
        'text({a: "\\ud800"});'
    )
    assert body_of(await host.run(source))["content_items"] == [
        {"type": "input_text", "text": "t\ufffdz"},
        {"type": "input_image", "image_url": "data:image/png;base64,ab\ufffd", "detail": "high"},
        {"type": "input_image", "image_url": "data:image/png;base64,\ufffd", "detail": "high"},
        {"type": "input_audio", "audio_url": "data:audio/wav;base64,\ufffd"},
        {"type": "input_image", "image_url": "data:image/png;base64,z", "detail": "high"},
        {"type": "input_text", "text": "h\ufffd"},
        {"type": "input_text", "text": '{"a":"\\ud800"}'},
    ]
    assert host.notifications == ["n\ufffdn"]
    assert host.read_error is None


async def test_mcp_blocks_with_a_lone_surrogate_are_refused(host):
    """Blocks are serialised like tool arguments: image/audio/content throw serde's text."""
    source = (
        "const blocks = [\n"
        '  () => image({type: "image", data: "x\\ud800", mimeType: "image/png"}),\n'
        '  () => image({type: "image", data: "x", mimeType: "image/png", extra: "\\ud800"}),\n'
        '  () => audio({type: "audio", data: "\\ud800", mimeType: "audio/wav"}),\n'
        '  () => content([{type: "text", text: "ok"}, {type: "text", text: "\\ud800"}]),\n'
        "];\n"
        "for (const f of blocks) { try { f(); } catch (e) { text(e); } }"
    )
    assert text_items(await host.run(source)) == [
        SERIALIZE + "unexpected end of hex escape at line 1 column 32",
        SERIALIZE + "unexpected end of hex escape at line 1 column 66",
        SERIALIZE + "unexpected end of hex escape at line 1 column 31",
        "ok",
        SERIALIZE + "unexpected end of hex escape at line 1 column 30",
    ]


async def test_error_texts_get_the_replacement_character(host):
    """Thrown strings and error messages: U+FFFD in error_text (Codex's recording)."""
    thrown = body_of(await host.run('text("before");\nthrow "a\\ud800b";'))
    assert (thrown["error_text"], text_items({"Result": thrown})) == ("a\ufffdb", ["before"])
    error = body_of(await host.run('throw new Error("a\\udc00b");'))
    assert error["error_text"] == "Error: a\ufffdb\n    at exec_main.mjs:1:7"
    assert host.read_error is None


async def test_a_tool_result_with_a_lone_surrogate_reaches_the_cell(host):
    """A client that escapes a lone surrogate (`"a\\ud800b"` from a Python tool) does not end the connection.

    Codex's host ends the connection on such a frame (serde refuses the escape); ours hands
    the string to the cell as it is, where text() replaces it and a tool argument refuses it.
    """

    async def lone(_):
        return "a\ud800b"

    host.tools["lone"] = lone
    source = (
        "const r = await tools.lone({});\n"
        'text(String(r === "a\\ud800b")); text(r);\n'
        "try { await tools.echo(r); } catch (e) { text(e); }"
    )
    response = await host.run(source, tools=[tool_def("lone"), tool_def("echo")])
    assert text_items(response) == ["true", "a\ufffdb", SERIALIZE + "unexpected end of hex escape at line 1 column 9"]
    assert host.read_error is None


async def test_client_strings_with_lone_surrogates_are_echoed_in_valid_frames(host):
    """Ids the client sent with a lone surrogate come back with U+FFFD in its place, never as
    invalid UTF-8 (the frame encoder both sides share replaces what UTF-8 cannot hold)."""
    opened = await host.open("s\ud800")
    assert opened == {"status": "ok", "value": {"type": "session/ready", "sessionId": "s\ufffd"}}
    waited = await host.wait("c\udc00", 10, session_id="s\ud800")
    assert body_of(waited["MissingCell"])["error_text"] == "exec cell c\ufffd not found"
    assert host.read_error is None
