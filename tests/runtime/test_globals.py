"""The globals of a cell, with Codex's exact texts.

Sources: ``spec/codex-code-mode.md`` §1 and the 0.171 table in ``oracle/README.md``
("Observed behaviour"); each test names the rows it pins.
"""

from __future__ import annotations

import json

import pytest
from rt_client import body_of, text_items, tool_def


async def test_text_stringification(host):
    """text(): strings verbatim, String() for primitives, JSON for objects (text_* rows)."""
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
    """Helpers have name "" and length 0; console and friends are absent (globals rows)."""
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


async def test_uncaught_error_texts(host):
    """error_text: stack for Errors, V8 header, plain values converted (throw_* rows)."""
    cases = {
        'text("before"); throw new Error("boom");': "Error: boom\n    at exec_main.mjs:1:23",
        'throw "plain";': "plain",
        "throw null;": "null",
        "throw undefined;": "undefined",
        "throw 42;": "42",
        "throw {a: 1};": "[object Object]",
        "class MyError extends Error {}\nthrow new MyError('m');": "MyError: m\n    at exec_main.mjs:2:7",
        'throw new Error("");': "Error\n    at exec_main.mjs:1:7",
        "null.x;": "TypeError: Cannot read properties of null (reading 'x')\n    at exec_main.mjs:1:1",
        "undefinedThing();": "ReferenceError: undefinedThing is not defined\n    at exec_main.mjs:1:1",
    }
    for source, expected in cases.items():
        body = body_of(await host.run(source))
        assert body["error_text"] == expected, source
    body = body_of(await host.run('text("kept"); throw new Error("x");'))
    assert [i["text"] for i in body["content_items"]] == ["kept"]


async def test_tool_not_enabled_is_not_a_function(host):
    """Calling a tool that is not enabled: ``TypeError: tools.echo is not a function`` (all_tools_empty)."""
    body = body_of(await host.run("await tools.echo({});", tools=[]))
    assert body["error_text"].split("\n")[0] == "TypeError: tools.echo is not a function"


async def test_syntax_errors_are_bare_v8_messages(host):
    """Nothing runs; error_text is V8's message without location (syntax_errors)."""
    cases = {
        'text("x");\nconst = ;': "SyntaxError: Unexpected token '='",
        'text("unterminated);': "SyntaxError: Invalid or unexpected token",
        "function f( {": "SyntaxError: Unexpected end of input",
        "return 5;": "SyntaxError: Illegal return statement",
        "await;": "SyntaxError: Unexpected token ';'",
        "let x = 1; let x = 2;": "SyntaxError: Identifier 'x' has already been declared",
        '{"json": "object literal as source"}': "SyntaxError: Unexpected token ':'",
    }
    for source, expected in cases.items():
        body = body_of(await host.run(source))
        assert body["error_text"] == expected, source
        assert body["content_items"] == []


async def test_imports_are_refused(host):
    """Static import fails the cell; dynamic import rejects with a string (imports)."""
    body = body_of(await host.run('import fs from "fs";\ntext("never");'))
    assert body["error_text"] == "Unsupported import in exec: fs"
    texts = text_items(
        await host.run('try { await import("fs"); } catch (e) { text(typeof e + " " + e); }\ntext("import(" + "x)");')
    )
    assert texts == ["string unsupported import in exec", "import(x)"]


async def test_module_semantics_and_empty_sources(host):
    """ES module: strict, this undefined, import.meta {}, TLA; empty source -> [] (top_level_await, empty_source)."""
    texts = text_items(
        await host.run(
            "text(typeof this); text(JSON.stringify(import.meta));"
            "text((function () { return this === undefined; })());"
            "for await (const x of [Promise.resolve('a')]) text(x); 42;"
        )
    )
    assert texts == ["undefined", "{}", "true", "a"]
    for source in ["", "   \n  ", "// only a comment"]:
        body = body_of(await host.run(source))
        assert body["content_items"] == [] and body["error_text"] is None


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


async def test_notify_delivery_error_does_not_affect_script(host):
    """A refused notification is only logged (notify_delivery_error)."""
    host.notify_error = "no active turn"
    assert text_items(await host.run("notify('x'); text('still fine');")) == ["still fine"]


async def test_store_and_load(host):
    """store/load: JSON round trip, copies, key conversion, texts (store_load_cells)."""
    source = (
        "store('obj', {a: [1, {b: 'c'}]}); const o = load('obj'); o.a.push(9); text(load('obj'));\n"
        "text(load('missing') === undefined);\n"
        "store(123, 'numeric'); text(load('123'));\n"
        "for (const [k, v] of [['fn', () => 1], ['undef', undefined], ['sym', Symbol('s')], ['nan', NaN],"
        " ['date', new Date(0)]]) {\n"
        "  try { store(k, v); text(k + ' ' + JSON.stringify(load(k))); } catch (e) { text(k + ': ' + e); }\n"
        "}\n"
        "try { store('a\"b', undefined); } catch (e) { text(e); }\n"
    )
    assert text_items(await host.run(source)) == [
        '{"a":[1,{"b":"c"}]}',
        "true",
        "numeric",
        "fn: failed to serialize JavaScript value: expected value at line 1 column 1",
        'undef: Unable to store "undef". Only plain serializable objects can be stored.',
        "sym: failed to serialize JavaScript value: expected value at line 1 column 1",
        "nan null",
        'date "1970-01-01T00:00:00.000Z"',
        'Unable to store "a\\"b". Only plain serializable objects can be stored.',
    ]
    assert text_items(await host.run("text(load('obj')); text(load('nan'));")) == ['{"a":[1,{"b":"c"}]}', "null"]


async def test_tool_inputs_and_results(host):
    """Tool arguments are JSON-converted; no argument -> null; errors reject with strings (tool_inputs)."""
    source = (
        "text(await tools.echo()); text(await tools.echo(undefined)); text(await tools.echo({a: 1, f() {}, n: NaN}));\n"
        "text(await tools.echo('s', 'ignored'));\n"
        "try { await tools.fail({message: 'nope'}); } catch (e) { text(typeof e + ':' + e); }\n"
        "try { tools.echo({b: 1n}); } catch (e) { text(typeof e + ':' + e); }\n"
    )
    texts = text_items(await host.run(source))
    assert texts == [
        "null",
        "null",
        '{"a":1,"n":null}',
        "s",
        "string:nope",
        "string:TypeError: Do not know how to serialize a BigInt\n    at exec_main.mjs:4:13",
    ]
    inputs = [c.request["invocation"]["input"] for c in host.calls if c.request["type"] == "tool/invoke"]
    assert inputs == [None, None, {"a": 1, "n": None}, "s", {"message": "nope"}]
    invocation = host.calls[0].request["invocation"]
    assert invocation["runtime_tool_call_id"] == "tool-1" and invocation["cell_id"] == "1"
    assert invocation["tool_kind"] == "function"


async def test_uncaught_tool_failure_is_its_message(host):
    """A failing tool uncaught: error_text is the message only (tool_error_caught)."""
    body = body_of(await host.run("await tools.fail({});"))
    assert body["error_text"] == "tool failed on purpose"


async def test_tool_names_are_normalised_and_collide_last_wins(host):
    """Names become JS identifiers; on collision tools keeps the last, ALL_TOOLS lists both (tool_name_*)."""
    tools = [
        tool_def("mcp__srv__get-thing", namespace="mcp__srv__", wire_name="get-thing"),
        tool_def("weird name!"),
        tool_def("1starts"),
        tool_def("ünïcode"),
        tool_def(""),
        tool_def("foo-bar", description="first"),
        tool_def("foo_bar", description="second"),
        tool_def("raw", kind="freeform"),
    ]
    source = (
        "text(Object.keys(tools)); text(ALL_TOOLS.map((t) => t.name));\n"
        "text(ALL_TOOLS.length + ' ' + Object.isFrozen(ALL_TOOLS));\n"
        "await tools.mcp__srv__get_thing({id: 1}); await tools.foo_bar({}); await tools.raw('patch text');\n"
    )
    texts = text_items(await host.run(source, tools=tools))
    assert json.loads(texts[0]) == ["mcp__srv__get_thing", "weird_name_", "_starts", "_n_code", "_", "foo_bar", "raw"]
    assert json.loads(texts[1]) == [
        "mcp__srv__get_thing",
        "weird_name_",
        "_starts",
        "_n_code",
        "_",
        "foo_bar",
        "foo_bar",
        "raw",
    ]
    assert texts[2] == "8 false"
    names = [c.request["invocation"]["tool_name"] for c in host.calls]
    assert names == [
        {"name": "get-thing", "namespace": "mcp__srv__"},
        {"name": "foo_bar", "namespace": None},
        {"name": "raw", "namespace": None},
    ]
    assert host.calls[2].request["invocation"]["tool_kind"] == "freeform"
    assert host.calls[2].request["invocation"]["input"] == "patch text"


async def test_timers(host):
    """setTimeout ids, ordering, no extra args, errors, dropped at end (set_timeout_*)."""
    source = (
        "const a = setTimeout(() => text('t50'), 50); const b = setTimeout(() => text('never'), 60);\n"
        "text('ids ' + a + ' ' + b); clearTimeout(b); clearTimeout(); clearTimeout('x'); clearTimeout(-1);\n"
        "setTimeout(() => text('t0'), 0); setTimeout((x) => text('args ' + x), 'soon', 'extra');\n"
        "Promise.resolve().then(() => text('microtask'));\n"
        "try { setTimeout('code'); } catch (e) { text(typeof e + ':' + e); }\n"
        "await new Promise((r) => setTimeout(r, 100));\n"
        "setTimeout(() => text('pending at end'), 30); text('end');\n"
    )
    assert text_items(await host.run(source)) == [
        "ids 1 2",
        "string:setTimeout expects a function callback",
        "microtask",
        "t0",
        "args undefined",
        "t50",
        "end",
    ]


async def test_throwing_timer_callback_fails_cell(host):
    """An exception inside a timer callback fails the whole cell (set_timeout_throw)."""
    body = body_of(
        await host.run("setTimeout(() => { throw new Error('in timer'); }, 5);\nawait new Promise(() => {});")
    )
    assert body["error_text"].split("\n")[0] == "Error: in timer"


async def test_exit_is_not_catchable(host):
    """exit(): successful Result, not catchable, no finally (exit_early)."""
    assert text_items(await host.run("text('a'); exit(); text('b');")) == ["a"]
    assert text_items(await host.run("try { text('in try'); exit(); } finally { text('finally'); }")) == ["in try"]
    assert text_items(await host.run("try { exit(); } catch (e) { text('caught'); }\ntext('after');")) == []
    body = body_of(
        await host.run(
            "setTimeout(() => { text('timer'); exit(); }, 5);\nawait new Promise((r) => setTimeout(r, 200));\ntext('no');"
        )
    )
    assert [i["text"] for i in body["content_items"]] == ["timer"] and body["error_text"] is None


async def test_exit_cancels_pending_tool_calls(host):
    """Tool calls in flight get delegate/cancel when the cell ends (tool_call_cancel_on_exit)."""
    response = await host.run("tools.sleep({ms: 5000});\nawait new Promise((r) => setTimeout(r, 50));\nexit();")
    assert body_of(response)["error_text"] is None
    assert [c.cancelled for c in host.calls] == [True]


async def test_unawaited_tool_calls_are_sent_then_cancelled(host):
    """Unawaited tool promises go out; pending ones are cancelled at the end (unawaited_tool_promises)."""
    response = await host.run("tools.sleep({ms: 5000}).then(() => text('never'));\ntext('end');")
    assert text_items(response) == ["end"]
    await host.wait_for(lambda: len(host.closed_cells) == 1)
    assert [c.cancelled for c in host.calls] == [True]


async def test_unhandled_rejection_is_ignored(host):
    """Unhandled promise rejections do not fail the cell (unhandled_rejection)."""
    body = body_of(await host.run("Promise.reject(new Error('ignored')); text('ok');"))
    assert body["error_text"] is None and [i["text"] for i in body["content_items"]] == ["ok"]


async def test_as_settled_and_stream_settled(host):
    """as_settled yields in settlement order; stream_settled calls back (globals_extra_helpers)."""
    source = (
        "const slow = new Promise((r) => setTimeout(() => r('slow'), 30));\n"
        "for await (const s of as_settled([slow, Promise.reject('bad'), 'now'])) text(JSON.stringify(s));\n"
        "await stream_settled([Promise.resolve(1)], (s) => text('cb ' + JSON.stringify(s)));\n"
    )
    assert text_items(await host.run(source)) == [
        '{"index":1,"status":"rejected","reason":"bad"}',
        '{"index":2,"status":"fulfilled","value":"now"}',
        '{"index":0,"status":"fulfilled","value":"slow"}',
        'cb {"index":0,"status":"fulfilled","value":1}',
    ]


async def test_stack_overflow_fails_only_the_cell(host):
    """Runaway recursion: RangeError, the session survives (deep_recursion)."""
    body = body_of(await host.run("function down(n) { return down(n + 1) + 1; }\ndown(0);"))
    assert body["error_text"].split("\n")[0] == "RangeError: Maximum call stack size exceeded"
    texts = text_items(
        await host.run(
            "let depth = 0; function m() { depth++; m(); }\ntry { m(); } catch (e) { text(e.constructor.name + ' ' + (depth > 1000)); }"
        )
    )
    assert texts == ["RangeError true"]


# Recorded from Codex's host 0.171 (ad-hoc oracle run over common model mistakes).
SYNTAX_CASES = [
    ("const x = {a: 1,, };", "SyntaxError: Unexpected token ','"),
    ("text((1);", "SyntaxError: missing ) after argument list"),
    ("let 1a = 2;", "SyntaxError: Unexpected strict mode reserved word"),
    ('text("a" "b");', "SyntaxError: missing ) after argument list"),
    ("const t = `unterminated;", "SyntaxError: Unexpected end of input"),
    ("const r = /unterminated;", "SyntaxError: Invalid regular expression: missing /"),
    ("text(1); }", "SyntaxError: Unexpected token '}'"),
    ("else { text(1); }", "SyntaxError: Unexpected token 'else'"),
    ("let class = 1;", "SyntaxError: Unexpected strict mode reserved word"),
    ("const a = {}; a?.b = 1;", "SyntaxError: Invalid left-hand side in assignment"),
    ("const x: number = 1;", "SyntaxError: Missing initializer in const declaration"),
    ("interface Foo { a: string }", "SyntaxError: Unexpected strict mode reserved word"),
    ("const f = (a: string) => a;", "SyntaxError: Unexpected token ':'"),
    ("function f(a, a) { 'use strict'; }", "SyntaxError: Duplicate parameter name not allowed in this context"),
    ("const y = 1; y++ ++;", "SyntaxError: Unexpected token '++'"),
    ("for (let i = 0; i < 3; i++ { }", "SyntaxError: Unexpected token '{'"),
    ("if (true) { text(1);", "SyntaxError: Unexpected end of input"),
    ("const obj = { a: 1 b: 2 };", "SyntaxError: Unexpected identifier 'b'"),
    ("await tools.echo({a: 1}", "SyntaxError: missing ) after argument list"),
    ("const s = 'line\nbreak';", "SyntaxError: Invalid or unexpected token"),
    ("text(1)\n)", "SyntaxError: Unexpected token ')'"),
    ("var await = 1;", "SyntaxError: Unexpected reserved word"),
    ("delete x;", "SyntaxError: Delete of an unqualified identifier in strict mode."),
    ("with (Math) { text(PI); }", "SyntaxError: Strict mode code may not include a with statement"),
    ("const {a, ...rest,} = {};", "SyntaxError: Rest element must be last element"),
    ("new.target;", "SyntaxError: new.target expression is not allowed here"),
    ("yield 5;", "SyntaxError: Unexpected strict mode reserved word"),
    ("text(08);", "SyntaxError: Decimals with leading zeros are not allowed in strict mode."),
    ("const x = 1; const x = 2;", "SyntaxError: Identifier 'x' has already been declared"),
    ("function g() { let z; var z; }", "SyntaxError: Identifier 'z' has already been declared"),
    ("label: label: 1;", "SyntaxError: Label 'label' has already been declared"),
    ("break;", "SyntaxError: Illegal break statement"),
    ("continue;", "SyntaxError: Illegal continue statement: no surrounding iteration statement"),
    ("text('a' + );", "SyntaxError: Unexpected token ')'"),
    ("@decorator class A {}", "SyntaxError: Invalid or unexpected token"),
    ("x => { ", "SyntaxError: Unexpected end of input"),
    ("text(1);\n#private;", "SyntaxError: Private field '#private' must be declared in an enclosing class"),
    ("const enum E { A }", "SyntaxError: Unexpected reserved word"),
    ("type T = string;", "SyntaxError: Unexpected identifier 'T'"),
    ("text(1 +* 2);", "SyntaxError: Unexpected token '*'"),
    ("import { a } from './x.js';", "Unsupported import in exec: ./x.js"),
]


@pytest.mark.parametrize(("source", "expected"), SYNTAX_CASES)
async def test_parse_errors_worded_like_v8(host, source, expected):
    """Parse failures, static imports and strict-mode errors give V8's exact texts."""
    body = body_of(await host.run(source))
    assert body["error_text"] == expected
    assert body["content_items"] == []


# Recorded from Codex's host 0.171 (ad-hoc oracle run); the header line of error_text.
RUNTIME_ERROR_CASES = [
    ("const o = {}; o.foo();", "TypeError: o.foo is not a function"),
    ("let u; u.foo;", "TypeError: Cannot read properties of undefined (reading 'foo')"),
    ("const x = {y: undefined}; x.y.z;", "TypeError: Cannot read properties of undefined (reading 'z')"),
    ("JSON.parse('bad');", "SyntaxError: Unexpected token 'b', \"bad\" is not valid JSON"),
    ("JSON.parse('');", "SyntaxError: Unexpected end of JSON input"),
    (
        "JSON.parse('{\"a\": 1,}');",
        "SyntaxError: Expected double-quoted property name in JSON at position 8 (line 1 column 9)",
    ),
    ("[].reduce((a, b) => a);", "TypeError: Reduce of empty array with no initial value"),
    ("null[0];", "TypeError: Cannot read properties of null (reading '0')"),
    ("Symbol() + '';", "TypeError: Cannot convert a Symbol value to a string"),
    ("1n + 1;", "TypeError: Cannot mix BigInt and other types, use explicit conversions"),
    ("let q = q;", "ReferenceError: Cannot access 'q' before initialization"),
    ("const f = 5; f();", "TypeError: f is not a function"),
    ("zz = 1;", "ReferenceError: zz is not defined"),
    ("decodeURIComponent('%');", "URIError: URI malformed"),
    (
        "const o = Object.freeze({x: 1}); o.x = 2;",
        "TypeError: Cannot assign to read only property 'x' of object '#<Object>'",
    ),
    ("undefined.x = 1;", "TypeError: Cannot set properties of undefined (setting 'x')"),
    ("null.x = 1;", "TypeError: Cannot set properties of null (setting 'x')"),
    ("class A { constructor() { this.x; } } A();", "TypeError: Class constructor A cannot be invoked without 'new'"),
    ("const s = 'x'; s.foo.bar;", "TypeError: Cannot read properties of undefined (reading 'bar')"),
    ("new Date(NaN).toISOString();", "RangeError: Invalid time value"),
    ("const t = tools.missing; t();", "TypeError: t is not a function"),
    ("const p = Promise.reject(new TypeError('tt')); await p;", "TypeError: tt"),
    ("structuredClone({});", "ReferenceError: structuredClone is not defined"),
    (
        "let arr = [1,2,3]; arr.forEach(x => { x.y.z; });",
        "TypeError: Cannot read properties of undefined (reading 'z')",
    ),
    ("const obj = {a: {b: null}}; obj.a.b.c;", "TypeError: Cannot read properties of null (reading 'c')"),
    ("const fn = () => {}; new fn();", "TypeError: fn is not a constructor"),
    ("throw new AggregateError([new Error('a')], 'agg');", "AggregateError: agg"),
    ("async function f() { throw new Error('async inner'); }\nawait f();", "Error: async inner"),
    ("await new Promise((_, rej) => setTimeout(() => rej(new Error('later')), 5));", "Error: later"),
]


@pytest.mark.parametrize(("source", "expected"), RUNTIME_ERROR_CASES)
async def test_runtime_errors_worded_like_v8(host, source, expected):
    """Uncaught runtime errors: V8's ``Name: message`` header line."""
    body = body_of(await host.run(source, tools=[]))
    assert body["error_text"].split("\n")[0] == expected


JSON_PARSE_SOURCE = 'const inputs = ["bad", "", "{\\"a\\": 1,}", "{bad", "[1,]", "[1 2]", "{\\"a\\" 1}", "{\\"a\\": 1", "\\"abc", "\\"a\\u0001b\\"", "\\"\\\\x\\"", "\\"\\\\u12G4\\"", "-", "1.", "1e", "01", "tru", "trux", "nul", "{", "[", "   ", "{\\"a\\": 1} x", "undefined", "[object Object]", "{\\"key\\": \\"value\\", \\"other\\": tru}", "this is a long invalid json text here", "{\\"a\\":1,\\n\\"b\\":}", "\\n\\n  x"];\nfor (const s of inputs) { try { JSON.parse(s); text("ok " + s); } catch (e) { text(e.constructor.name + ": " + e.message); } }\ntry { JSON.parse(undefined); } catch (e) { text(e.message); }\ntry { JSON.parse({}); } catch (e) { text(e.message); }\ntext(JSON.parse.name + " " + JSON.parse.length);\ntext(JSON.stringify(JSON.parse(\'{"a":[1,2,{"b":null}]}\', (k, v) => typeof v === "number" ? v * 2 : v)));\n'
JSON_PARSE_EXPECTED = [
    "SyntaxError: Unexpected token 'b', \"bad\" is not valid JSON",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Expected double-quoted property name in JSON at position 8 (line 1 column 9)",
    "SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unexpected token ']', \"[1,]\" is not valid JSON",
    "SyntaxError: Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)",
    "SyntaxError: Expected ':' after property name in JSON at position 5 (line 1 column 6)",
    "SyntaxError: Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)",
    "SyntaxError: Unterminated string in JSON at position 4 (line 1 column 5)",
    "SyntaxError: Bad control character in string literal in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Bad escaped character in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Bad Unicode escape in JSON at position 5 (line 1 column 6)",
    "SyntaxError: No number after minus sign in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unterminated fractional number in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Exponent part is missing a number in JSON at position 2 (line 1 column 3)",
    "SyntaxError: Unexpected number in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Unexpected token 'x', \"trux\" is not valid JSON",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Unexpected end of JSON input",
    "SyntaxError: Unexpected non-whitespace character after JSON at position 9 (line 1 column 10)",
    'SyntaxError: "undefined" is not valid JSON',
    'SyntaxError: "[object Object]" is not valid JSON',
    'SyntaxError: Unexpected token \'}\', ..."ther": tru}" is not valid JSON',
    "SyntaxError: Unexpected token 'h', \"this is a l\"... is not valid JSON",
    'SyntaxError: Unexpected token \'}\', "{"a":1,\n"b":}" is not valid JSON',
    "SyntaxError: Unexpected token 'x', \"\n\n  x\" is not valid JSON",
    '"undefined" is not valid JSON',
    '"[object Object]" is not valid JSON',
    "parse 2",
    '{"a":[2,4,{"b":null}]}',
]


async def test_json_parse_errors_worded_like_v8(host):
    """JSON.parse failures give V8's messages (positions, context snippets); JSON.parse still works."""
    assert text_items(await host.run(JSON_PARSE_SOURCE)) == JSON_PARSE_EXPECTED
