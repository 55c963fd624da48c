"""An exhausted heap ends its cell with the heap-limit RangeError, whichever allocation fails.

Each shape runs in a session with a small ``maxHeapSizeBytes`` (so the tests are quick)
and must end as ``Result`` with exactly :data:`OOM_TEXT`; the next cell of the same
session then runs. Before the fix, several shapes stayed ``Yielded`` forever at 0% CPU
(the failure was swallowed while the runtime reported it).
"""

from __future__ import annotations

import pytest
from rt_client import body_of, start_host, text_items

from codemode.runtime.heap import out_of_memory_text, shared_out_of_memory_text

HEAP = 8 * 1024 * 1024
OOM_TEXT = f"RangeError: out of memory: the cell exceeded its heap limit of {HEAP} bytes (maxHeapSizeBytes)"

SHAPES = {
    # The input (run there under `// @exec: {"yield_time_ms": 1000}`).
    "array_push_of_strings": 'const a = []; while (true) a.push("x".repeat(1000) + a.length);',
    "string_doubling": 'let s = "x"; for (;;) { s = s + s; s.indexOf("y"); }',
    "objects_in_a_map": 'const m = new Map(); for (let i = 0; ; i++) m.set(i, {i, s: "v" + i});',
    "typed_arrays": "const k = []; while (true) k.push(new Float64Array(1 << 14));",
    "big_json_stringify": (
        'const big = []; for (let i = 0; i < 2000; i++) big.push({i, s: "abcdefghij".repeat(20)});\n'
        "const copies = []; for (;;) copies.push(JSON.stringify(big));"
    ),
    "text_of_a_value_too_big_to_serialise": (
        'const big = []; for (let i = 0; i < 12000; i++) big.push({i, s: "abcdefghij".repeat(40)});\ntext(big);'
    ),
    "inside_a_tool_result_handler": (
        "await tools.echo({}).then(() => { const a = []; while (true) a.push({i: a.length}); });"
    ),
    "after_a_tool_result": 'const r = await tools.echo({n: 1}); const a = []; while (true) a.push([r.n, "y" + a.length]);',
    "inside_a_timer_callback": (
        "setTimeout(() => { const a = []; while (true) a.push(new Array(64).fill(a.length)); }, 0);\n"
        "await new Promise(() => {});"
    ),
    "held_by_the_module_then_reported": 'const held = []; for (let i = 0; ; i++) held.push({i, s: "z" + i});',
}


@pytest.fixture
async def small_heap():
    client = await start_host()
    await client.hello()
    await client.open("s1", cellExecutionLimits={"maxHeapSizeBytes": HEAP})
    yield client
    await client.close()


async def _final(host, source: str) -> dict:
    """Execute and wait (a bounded number of times) for the final response."""
    cell_id, response = await host.execute(source, yield_time_ms=1000)
    for _ in range(30):
        if "Yielded" not in response:
            return response
        response = (await host.wait(cell_id, 1000))["LiveCell"]
    raise AssertionError(f"the cell never ended: {response}")


@pytest.mark.parametrize("shape", sorted(SHAPES))
async def test_out_of_memory_ends_the_cell_with_the_heap_limit_error(small_heap, shape):
    response = await _final(small_heap, SHAPES[shape])
    assert "Result" in response
    assert body_of(response)["error_text"] == OOM_TEXT
    assert text_items(await small_heap.run("text('next cell ' + [1, 2].length);")) == ["next cell 2"]


async def test_out_of_memory_keeps_earlier_output_and_stored_values(small_heap):
    """Output emitted before the allocation failure stays; the failed cell still commits its writes."""
    response = await _final(small_heap, "text('before'); store('k', 1); const a = []; while (true) a.push({});")
    assert body_of(response)["content_items"] == [{"type": "input_text", "text": "before"}]
    assert body_of(response)["error_text"] == OOM_TEXT
    assert text_items(await small_heap.run("text(load('k'));")) == ["1"]


async def test_a_thrown_null_is_not_taken_for_an_exhausted_heap(small_heap):
    """`throw null` with a small heap in use is a plain value: error_text "null" (Codex's text)."""
    assert body_of(await small_heap.run("throw null;"))["error_text"] == "null"
    texts = text_items(await small_heap.run("try { text({toJSON() { throw null; }}); } catch (e) { text(String(e)); }"))
    assert texts == ["null"]


async def test_cells_on_prepared_threads_keep_their_heap_limit():
    # Above 16 MB a cell takes the host's spare thread, whose context was made (and the
    # prelude compiled) with no limit; the cell's own limit must still bound it, for the first
    # cell (its spare was made at start-up) and the next (made after the first ended).
    heap = 24 * 1024 * 1024
    client = await start_host()
    try:
        await client.hello()
        await client.open("s1", cellExecutionLimits={"maxHeapSizeBytes": heap})
        for _ in range(2):
            response = await _final(client, "const a = new Array(8 * 1024 * 1024).fill(0); text(a.length);")
            assert body_of(response)["error_text"] == OOM_TEXT.replace(str(HEAP), str(heap))
        response = await _final(client, 'text("after")')
        assert text_items(response) == ["after"]
    finally:
        await client.close()


FILL_NEARLY = "globalThis.keep = [];\ntry { for (;;) keep.push(new Array(2048).fill(0)); } catch (e) {}\nkeep.pop();\n"
"""Fills the heap to within a few kilobytes of its limit (the cell catches the failure)."""


@pytest.mark.parametrize("profile", ["strict", "notebook"])
@pytest.mark.parametrize(
    "failing",
    [
        "const r = {items: 1};\ntry { r.items.map((x) => x) } catch (e) { text(e.stack.split('\\n')[0]) }",
        "const r = {items: 1};\nr.items.map((x) => x);",
        "const r = {items: 1};\nfor (const x of r.items) {}",
    ],
    ids=["caught", "uncaught call", "uncaught for-of"],
)
async def test_an_error_text_on_a_nearly_full_heap_ends_only_its_cell(profile, failing):
    """A TypeError whose V8 text needs the call-site readers, on a heap too full to compile them
    (they are compiled on first use): the cell ends with the heap-limit error, as for any
    allocation failure of the runtime's code, and the next cells run; in a notebook realm they
    still see its bindings (going on with the heap full left the realm unable to run them, or
    crashed QuickJS)."""
    heap = 16 * 1024 * 1024
    client = await start_host(profile=profile)
    try:
        await client.hello()
        await client.open("s1", cellExecutionLimits={"maxHeapSizeBytes": heap})
        response = await _final(client, FILL_NEARLY + failing)
        limit_text = out_of_memory_text(heap) if profile == "strict" else shared_out_of_memory_text(heap)
        assert (body_of(response)["error_text"], text_items(response)) == (limit_text, [])
        assert text_items(await _final(client, 'text("next")')) == ["next"]
        if profile == "notebook":
            after = body_of(await _final(client, "text(typeof keep); keep = null; const q = {m: 1}; q.m.z();"))
            assert [i["text"] for i in after["content_items"]] == ["object"]
            assert after["error_text"].split("\n")[0] == "TypeError: q.m.z is not a function"
    finally:
        await client.close()
