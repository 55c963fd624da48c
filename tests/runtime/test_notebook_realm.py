"""The notebook profile's realm, through a real host (``codemode-host --profile notebook``).

Every cell of a session runs in one JavaScript context: top-level declarations persist,
cells running at the same time share bindings and keep their own output, and ending one
cell (terminate, ``exit()``, an error) leaves the others and the realm running.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from rt_client import body_of, start_host, text_items, tool_def

TOOLS = [tool_def(name) for name in ("echo", "sleep", "fail", "gate")]


@pytest.fixture
async def nb():
    """A notebook-profile host with session ``s1`` open and a ``gate`` tool that answers
    when the test sets ``nb.gate_open`` (an :class:`asyncio.Event`)."""
    client = await start_host(profile="notebook")
    assert (await client.hello())["type"] == "connection/ready"
    assert (await client.open("s1"))["status"] == "ok"
    gate = asyncio.Event()

    async def gate_tool(value: Any) -> Any:
        await gate.wait()
        return "opened"

    client.tools["gate"] = gate_tool
    client.gate_open = gate  # type: ignore[attr-defined]
    yield client
    if client.process.returncode is None:
        client.process.kill()
        await client.process.wait()


async def run(client: Any, source: str) -> dict[str, Any]:
    return await client.run(source, tools=TOOLS)


async def started(client: Any, source: str, yield_time_ms: int = 10_000) -> tuple[str, dict[str, Any]]:
    """Execute ``source`` and return (cell id, first response): a cell that yields with
    ``yield_control()`` answers at once."""
    return await client.execute(source, tools=TOOLS, yield_time_ms=yield_time_ms)


async def finish(client: Any, cell_id: str) -> dict[str, Any]:
    """Wait (up to 10 s) until the cell ends; its final response."""
    for _ in range(2):
        response = (await client.wait(cell_id, 5000))["LiveCell"]
        if "Yielded" not in response:
            return response
    raise AssertionError(f"cell {cell_id} still runs after 10 s")


async def test_declarations_persist_across_cells(nb):
    declared = "const c = 1\nlet l = 2\nvar v = 3\nfunction f(x) { return x * 10 }\nclass K { get k() { return 4 } }"
    assert body_of(await run(nb, declared))["error_text"] is None
    response = await run(nb, "text([c, l, v, f(1), new K().k].join(' '))")
    assert text_items(response) == ["1 2 3 10 4"] and body_of(response)["error_text"] is None


async def test_rerunning_a_declaring_cell_reassigns(nb):
    assert body_of(await run(nb, "const n = 1\nlet m = 'a'"))["error_text"] is None
    assert body_of(await run(nb, "const n = 2\nlet m = 'b'"))["error_text"] is None
    assert text_items(await run(nb, "text(n + m)")) == ["2b"]


async def test_a_yielded_cell_and_a_later_cell_share_bindings(nb):
    cell, first = await started(nb, "let shared = 1\nyield_control()\nawait tools.gate({})\ntext(shared)\nfromLater")
    assert "Yielded" in first
    later = await run(nb, "text(shared)\nshared = 2\nlet fromLater = 99")
    assert text_items(later) == ["1"]
    nb.gate_open.set()
    final = await finish(nb, cell)
    assert text_items(final) == ["2"]
    assert body_of(final)["content_items"][-1]["data"] == {"text/plain": "99"}


async def test_output_of_interleaved_cells_goes_to_its_own_cell(nb):
    source = (
        "yield_control()\n"
        "for (let i = 0; i < 3; i++) {\n"
        "  await new Promise((resolve) => setTimeout(() => { text('{0}' + i); console.log('{0}log'); resolve() }, 20))\n"
        "}"
    )
    a, _ = await started(nb, source.replace("{0}", "a"))
    b, _ = await started(nb, source.replace("{0}", "b"))
    final_a, final_b = await finish(nb, a), await finish(nb, b)
    assert text_items(final_a) == ["a0", "a1", "a2"] and text_items(final_b) == ["b0", "b1", "b2"]
    streams_a = [i["text"] for i in body_of(final_a)["content_items"] if i["type"] == "stream"]
    assert streams_a == ["alog\n"] * 3


async def test_a_function_of_an_ended_cell_prints_into_the_running_cell(nb):
    assert body_of(await run(nb, "function say(v) { text('said ' + v) }"))["error_text"] is None
    assert text_items(await run(nb, "say(1)")) == ["said 1"]


async def test_a_function_of_a_running_cell_prints_into_that_cell(nb):
    definer, _ = await started(nb, "function tell(v) { text('told ' + v) }\nyield_control()\nawait tools.gate({})")
    assert text_items(await run(nb, "tell(2)\ntext('mine')")) == ["mine"]
    nb.gate_open.set()
    assert text_items(await finish(nb, definer)) == ["told 2"]


async def test_a_tool_call_through_an_ended_cells_helpers_names_that_cell(nb):
    """It acts for the running cell, and says which ended cell's helper made it (the client
    then lets it ask no one); the running cell's own calls say nothing of the kind."""
    declaring, declared = await started(nb, "async function viaEnded(v) { return tools.echo(v) }")
    assert body_of(declared)["error_text"] is None
    before = len(nb.calls)
    code = "await viaEnded(1)\nawait tools.echo(2)\nawait viaEnded({toJSON() { return 3 }})"
    running, _ = await started(nb, code, yield_time_ms=0)
    await finish(nb, running)
    invocations = [call.request["invocation"] for call in nb.calls[before:]]
    assert [(i["cell_id"], i.get("via_ended_cell"), i["input"]) for i in invocations] == [
        (running, declaring, 1),
        (running, None, 2),
        (running, declaring, 3),
    ]


@pytest.mark.parametrize("busy", ["while (true) {}", "await tools.echo(1)\nwhile (true) {}"])
async def test_terminating_a_busy_cell_leaves_a_cell_awaiting_a_tool(nb, busy):
    waiting, _ = await started(nb, "yield_control()\nconst r = await tools.gate({})\ntext('got ' + r)")
    spinning, first = await started(nb, busy, yield_time_ms=200)
    assert "Yielded" in first
    outcome = (await nb.terminate(spinning))["LiveCell"]
    assert "Terminated" in outcome
    # Stopped in the realm, not by the host's exit (the fallback for a cell that will not stop).
    assert not [event for event in nb.events if event.get("type") == "host/exiting"]
    nb.gate_open.set()
    assert text_items(await finish(nb, waiting)) == ["got opened"]
    assert text_items(await run(nb, "text('realm alive')")) == ["realm alive"]


async def test_terminating_a_cell_awaiting_a_tool_leaves_the_others(nb):
    waiting, _ = await started(nb, "yield_control()\nawait tools.gate({})\ntext('never')")
    timed, _ = await started(nb, "yield_control()\nawait new Promise((r) => setTimeout(r, 100))\ntext('timer done')")
    assert "Terminated" in (await nb.terminate(waiting))["LiveCell"]
    await nb.wait_for(lambda: any(call.cancelled for call in nb.calls))
    assert text_items(await finish(nb, timed)) == ["timer done"]
    nb.gate_open.set()
    assert text_items(await run(nb, "text('after')")) == ["after"]


async def test_exit_ends_only_its_cell(nb):
    waiting, _ = await started(nb, "yield_control()\nawait tools.gate({})\ntext('other done')")
    exited = await run(nb, "text('before')\nexit()\ntext('not shown')")
    assert text_items(exited) == ["before"] and body_of(exited)["error_text"] is None
    nb.gate_open.set()
    assert text_items(await finish(nb, waiting)) == ["other done"]


async def test_an_error_leaves_the_realm_usable(nb):
    assert body_of(await run(nb, "const kept = 'k'"))["error_text"] is None
    failed = await run(nb, "throw new Error('boom')")
    assert body_of(failed)["error_text"] == "Error: boom\n    at exec_main.mjs:1:7"
    assert body_of(await run(nb, "let broken = ;"))["error_text"] == "SyntaxError: Unexpected token ';'"
    assert text_items(await run(nb, "text(kept)")) == ["k"]


async def test_a_static_import_is_refused_as_in_strict(nb):
    response = await run(nb, "import fs from 'node:fs'\nfs")
    assert body_of(response)["error_text"] == "Unsupported import in exec: node:fs"


@pytest.mark.parametrize("source", ["return 42", "const early = 1;\nif (early) return 'early';"])
async def test_a_return_outside_functions_is_refused_as_in_strict_and_declares_nothing(nb, source):
    response = await run(nb, source)
    assert body_of(response)["error_text"] == "SyntaxError: Illegal return statement"
    assert text_items(await run(nb, "text(typeof early)")) == ["undefined"]


async def test_store_and_load_work_across_cells(nb):
    assert body_of(await run(nb, "store('k', {a: 1})"))["error_text"] is None
    assert text_items(await run(nb, "text(load('k'))")) == ['{"a":1}']


async def test_an_exhausted_heap_ends_the_running_cells_and_the_realm_goes_on():
    client = await start_host(profile="notebook")
    try:
        await client.hello()
        await client.open("s1", cellExecutionLimits={"maxHeapSizeBytes": 16 * 1024 * 1024})
        waiting, _ = await client.execute("yield_control()\nawait tools.sleep({ms: 30000})", yield_time_ms=10_000)
        text = (
            "RangeError: out of memory: the session's cells exceeded their heap limit of 16777216 bytes "
            "(maxHeapSizeBytes). The notebook profile's cells share one heap, and what earlier cells declared "
            "keeps its memory: set a large binding to null to free it."
        )
        grown = await client.run("const big = []\nfor (;;) big.push(new Array(1e5).fill(1))")
        assert body_of(grown)["error_text"] == text
        assert body_of((await client.wait(waiting, 5000))["LiveCell"])["error_text"] == text
        assert text_items(await client.run("big.length = 0\ntext('still here')")) == ["still here"]
    finally:
        client.process.kill()
        await client.process.wait()


async def test_each_session_has_its_own_realm_closed_with_it(nb):
    assert (await nb.open("s2"))["status"] == "ok"
    assert body_of(await nb.run("const onlyInS1 = 1", session_id="s1"))["error_text"] is None
    assert text_items(await nb.run("text(typeof onlyInS1)", session_id="s2")) == ["undefined"]
    running, _ = await nb.execute("yield_control()\nawait tools.sleep({ms: 30000})", session_id="s2")
    await nb.wait_for(lambda: len(nb.calls) == 1)
    closed = await nb.request({"method": "session/shutdown", "sessionId": "s2"})
    assert closed == {"status": "ok", "value": {"type": "session/closed", "sessionId": "s2"}}
    assert ("s2", running) in nb.closed_cells and nb.calls[-1].cancelled
    assert text_items(await nb.run("text(onlyInS1)", session_id="s1")) == ["1"]


SHAPE_PROBE = (
    "text(JSON.stringify(Object.fromEntries(%s.map((n) => {\n"
    "  const f = globalThis[n] ?? eval(n);\n"
    "  return [n, [typeof f, f.name, f.length, String(f), Object.getPrototypeOf(f) === Function.prototype,"
    " Object.hasOwn(f, 'prototype')]];\n"
    "}))))"
)


async def test_helpers_look_the_same_in_both_profiles(nb, host):
    """Every helper function both profiles share shows the same ``typeof``, ``name``, ``length``,
    source text and prototype in a notebook cell as in a strict one: a cell cannot tell the
    profiles apart by a helper, nor see the prelude's internal names (``__cm_as_settled``)."""
    from codemode.runtime.helper_table import helpers_of

    shared = [
        h.name
        for h in helpers_of("strict")
        if h.form == "function" and h.name in {n.name for n in helpers_of("notebook")}
    ]
    probe = SHAPE_PROBE % json.dumps(shared)
    strict = json.loads(text_items(await host.run(probe))[0])
    notebook = json.loads(text_items(await run(nb, probe))[0])
    assert set(strict) == set(shared) and "as_settled" in strict and "stream_settled" in strict
    assert notebook == strict
    assert not any("__cm" in str(shape) for shape in strict.values())
