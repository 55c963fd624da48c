"""A cell that changes the built-ins: the runtime's own code is not steered by it.

The prelude captures every intrinsic it calls before cell code runs; what Codex's host
honours (a toJSON on Object.prototype reaching JSON.stringify of the cell's own values)
still counts. The full table of tamperings, each compared with Codex's recording, is
replayed by ``test_codex_cases.py`` (``codex_cases/tamper_*.js``).
"""

from __future__ import annotations

from rt_client import body_of, text_items, without_duration


async def test_prototype_tojson_is_honoured_for_cell_values_only(host):
    """`Object.prototype.toJSON` returning "P": text({a:1}) prints "P" with quotes, as Codex does."""
    response = await host.run('Object.prototype.toJSON = function () { return "P"; };\ntext({a: 1}); text("plain");')
    assert body_of(response)["content_items"] == [
        {"type": "input_text", "text": '"P"'},
        {"type": "input_text", "text": "plain"},
    ]
    assert body_of(response)["error_text"] is None
    assert text_items(await host.run("text({b: 2});")) == ['{"b":2}']


async def test_replaced_json_stringify_does_not_reach_store_or_tools(host):
    """`JSON.stringify` replaced or deleted: store(), tools and text() use the intrinsic one."""
    source = (
        'JSON.stringify = function () { return "S"; };\n'
        'store("k", {v: [1, 2]}); text(await tools.echo({x: 1})); text(load("k")); text("after");'
    )
    assert text_items(await host.run(source)) == ['{"x":1}', '{"v":[1,2]}', "after"]
    assert host.calls[-1].request["invocation"]["input"] == {"x": 1}
    deleted = await host.run('delete JSON.stringify; delete JSON.parse; store("j", [3]); text(load("j"));')
    assert text_items(deleted) == ["[3]"]
    assert text_items(await host.run('text(JSON.stringify(load("k")));')) == ['{"v":[1,2]}']


async def test_failure_is_reported_when_the_formatting_built_ins_are_broken(host):
    """An uncaught error after String, Array and RegExp methods were replaced still ends the cell with its text."""
    source = (
        'for (const k of ["split", "slice", "replace", "startsWith"]) String.prototype[k] = () => { throw "S"; };\n'
        'for (const k of ["push", "join", "map", "concat"]) Array.prototype[k] = () => { throw "A"; };\n'
        'RegExp.prototype.exec = () => { throw "R"; };\n'
        'Function.prototype.call = () => { throw "C"; };\n'
        'throw new TypeError("still reported");'
    )
    body = body_of(await host.run(source))
    assert body["error_text"] == "TypeError: still reported\n    at exec_main.mjs:5:7"
    assert text_items(await host.run("text('next');")) == ["next"]


async def test_promise_species_getter_that_throws_leaves_a_cell_that_terminates(host):
    """A throwing `Promise.prototype.constructor` getter: QuickJS's await never resumes (V8's throws).

    The runtime's own promise handling is immune (it shadows the property on its promises);
    the awaiting cell stays pending, can be terminated, and the next cell runs.
    """
    cell_id, first = await host.execute(
        'Object.defineProperty(Promise.prototype, "constructor", {get() { throw new Error("species"); }});\n'
        'text("before"); await tools.echo(1); text("never");',
        yield_time_ms=300,
    )
    assert "Yielded" in first and text_items(first) == ["before"]
    assert without_duration((await host.terminate(cell_id))["LiveCell"]) == {
        "Terminated": {"cell_id": cell_id, "content_items": []}
    }
    assert text_items(await host.run("text(await tools.echo('next'));")) == ["next"]
