"""store/load, tools, timers, exit and the settlement helpers, with Codex's exact texts.

Each test names the recorded Codex cases whose behaviour it pins."""

from __future__ import annotations

import json

from rt_client import body_of, text_items, tool_def


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


async def test_tool_results_of_every_kind_reach_the_cell_exactly(host):
    """A string result crosses into JavaScript as it is and anything else as JSON
    (``runtime/bridge.py``'s settlement): strings with NULs, astral characters, a lone surrogate
    the client wrote as an escape, non-ASCII text, 3 MB of ASCII, the empty string, and
    non-string results all reach the cell unchanged; a failure still rejects with its message."""
    results = {
        "nul": "a\x00b\x00",
        "astral": "\U0001f600\u00e9\u4e2d",
        "lone": "x\ud800y",
        "big": "q" * 3_000_000,
        "empty": "",
        "object": {"s": "v", "n": [1, 2.5, None, True]},
        "number": 7,
        "null": None,
    }

    async def answer(value):
        return results[value]

    host.tools["answer"] = answer
    source = (
        "for (const k of ['nul', 'astral', 'lone', 'big', 'empty', 'object', 'number', 'null']) {\n"
        "  const r = await tools.answer(k);\n"
        "  text(k + ' ' + typeof r + ' ' + (typeof r === 'string' ? r.length + ' ' + "
        "Array.from({length: Math.min(4, r.length)}, (_, i) => r.charCodeAt(i)).join(',') : JSON.stringify(r)));\n"
        "}\n"
        "try { await tools.fail({message: 'still a rejection'}); } catch (e) { text(e); }\n"
    )
    texts = text_items(await host.run(source, tools=[tool_def("answer"), tool_def("fail")]))
    assert texts == [
        "nul string 4 97,0,98,0",
        "astral string 4 55357,56832,233,20013",
        "lone string 3 120,55296,121",
        "big string 3000000 113,113,113,113",
        "empty string 0 ",
        'object object {"s":"v","n":[1,2.5,null,true]}',
        "number number 7",
        "null object null",
        "still a rejection",
    ]


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


async def test_tool_not_enabled_is_not_a_function(host):
    """Calling a tool that is not enabled: ``TypeError: tools.echo is not a function`` (all_tools_empty)."""
    body = body_of(await host.run("await tools.echo({});", tools=[]))
    assert body["error_text"].split("\n")[0] == "TypeError: tools.echo is not a function"


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


async def test_as_settled_takes_any_iterable_and_returns_an_async_generator(host):
    """A Map's keys are the indices; the result is an AsyncGenerator; a non-iterable throws at once (settled_helpers)."""
    source = (
        "const out = [];\n"
        "for await (const s of as_settled(new Map([['a', new Promise((r) => setTimeout(() => r(1), 20))],"
        " ['b', Promise.reject('no')]]))) out.push(JSON.stringify(s));\n"
        "text(out.join(' '));\n"
        "const it = as_settled(new Set([Promise.resolve('s'), 'later']));\n"
        "text(Object.prototype.toString.call(it) + ' ' + typeof it.throw);\n"
        "text(JSON.stringify([await it.next(), await it.return('early'), await it.next()]));\n"
        "for (const bad of [5, undefined]) {\n"
        "  try { as_settled(bad); } catch (e) { text(e.constructor.name + ': ' + e.message); }\n"
        "}\n"
    )
    assert text_items(await host.run(source)) == [
        '{"index":"b","status":"rejected","reason":"no"} {"index":"a","status":"fulfilled","value":1}',
        "[object AsyncGenerator] function",
        '[{"value":{"index":0,"status":"fulfilled","value":"s"},"done":false},{"value":"early","done":true},'
        '{"done":true}]',
        "TypeError: promises is not iterable",
        "TypeError: promises is not iterable",
    ]
