"""The V8 engine (``codemode-host --engine v8``): what differs in how it runs a cell.

The protocol, the helpers and their texts are shared with QuickJS and pinned by the Codex
cases on both engines (``test_codex_cases.py``); here: stopping JavaScript that never
yields (in the cell's first run and in a promise job), ``exit()``, the heap limit, the
bridge's large and astral texts, V8's own error texts and ``Intl``, and that the host's
isolates are freed.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from rt_client import body_of, start_host, text_items, without_duration


@pytest.fixture
async def v8():
    """A V8 host after a successful handshake, with session ``s1`` open (heap limit 32 MiB)."""
    client = await start_host(engine="v8")
    assert (await client.hello())["type"] == "connection/ready"
    assert (await client.open("s1", cellExecutionLimits={"maxHeapSizeBytes": 32 * 1024 * 1024}))["status"] == "ok"
    yield client
    if client.process.returncode is None:
        client.process.kill()
        await client.process.wait()


@pytest.mark.parametrize(
    "source",
    ["text('spinning'); while (true) {}", "text('spinning'); await null; for (;;) {}"],
    ids=["script", "promise-job"],
)
async def test_a_busy_cell_is_terminated_within_a_second(v8, source):
    """A loop that never yields, in the cell's first run or after an await, stops on terminate; the host goes on."""
    await v8.run("store('kept', 41)")
    cell_id, first = await v8.execute(source, yield_time_ms=100)
    assert "Yielded" in first and text_items(first) == ["spinning"]
    started = time.monotonic()
    outcome = await v8.terminate(cell_id)
    assert time.monotonic() - started < 1.0
    assert without_duration(outcome["LiveCell"]) == {"Terminated": {"cell_id": cell_id, "content_items": []}}
    assert text_items(await v8.run("text(load('kept') + 1)")) == ["42"]
    assert v8.process.returncode is None


@pytest.mark.parametrize("prefix", ["", "await null; "], ids=["script", "promise-job"])
async def test_exit_ends_the_cell_uncatchably(v8, prefix):
    """``exit()`` completes the cell at once: no catch, no finally, no output after it (as Codex's host)."""
    source = prefix + "text('before'); try { exit(); } catch (e) { text('caught'); } finally { text('finally'); }"
    body = body_of(await v8.run(source))
    assert (body["content_items"], body["error_text"]) == ([{"type": "input_text", "text": "before"}], None)
    assert text_items(await v8.run("text('next')")) == ["next"]


@pytest.mark.parametrize("prefix", ["", "await null; "], ids=["script", "promise-job"])
async def test_the_heap_limit_fails_only_the_cell(v8, prefix):
    """Past maxHeapSizeBytes the cell fails with the heap-limit text; stored values and the host stay."""
    await v8.run("store('kept', 'yes')")
    body = body_of(await v8.run(prefix + "const a = []; for (;;) a.push({n: a.length, s: 'x' + a.length});"))
    assert body["error_text"] == (
        "RangeError: out of memory: the cell exceeded its heap limit of 33554432 bytes (maxHeapSizeBytes)"
    )
    assert text_items(await v8.run("text(load('kept'))")) == ["yes"]


async def test_large_and_astral_texts_cross_the_bridge_unchanged(v8):
    """Texts longer than the bridge's buffer, with surrogate pairs across its chunk edges, arrive whole."""
    source = (
        "const unit = 'a\U0001f600é'; const big = unit.repeat(300000);"
        "text(big); const back = await tools.echo({big}); text(back.big === big); text(big.length)"
    )
    items = text_items(await v8.run(source))
    assert items == ["a\U0001f600é" * 300000, "true", "1200000"]


async def test_errors_and_intl_are_v8s(v8):
    """Error texts are V8's own with the cell's positions; Intl is ICU's (QuickJS has neither)."""
    body = body_of(await v8.run("const o = {};\n[1, 2].x.y"))
    assert (
        body["error_text"] == "TypeError: Cannot read properties of undefined (reading 'y')\n    at exec_main.mjs:2:10"
    )
    body = body_of(await v8.run("for (const x of 5) {}"))
    assert body["error_text"] == "TypeError: 5 is not iterable\n    at exec_main.mjs:1:17"
    source = (
        "text(new Intl.DateTimeFormat('fr-FR', {dateStyle: 'full', timeZone: 'UTC'}).format(new Date(0)));"
        "text((1234567.891).toLocaleString('de-DE'));"
        "text(new Intl.NumberFormat('en-US', {style: 'currency', currency: 'EUR'}).format(-3.5));"
        "text(['b', 'A', 'a', 'B'].sort((x, y) => x.localeCompare(y)).join(''))"
    )
    assert text_items(await v8.run(source)) == ["jeudi 1 janvier 1970", "1.234.567,891", "-€3.50", "aAbB"]


async def test_module_semantics_of_the_cell(v8):
    """The cell behaves as Codex's module: top-level await, ``this`` undefined, strict, no return, no imports."""
    source = "await null; text(this === undefined); text((function () { return this; })() === undefined)"
    assert text_items(await v8.run(source)) == ["true", "true"]
    assert body_of(await v8.run("if (true) { return 1; }"))["error_text"] == "SyntaxError: Illegal return statement"
    assert body_of(await v8.run("import fs from 'fs';"))["error_text"] == "Unsupported import in exec: fs"
    assert body_of(await v8.run("const x = (1 +"))["error_text"] == "SyntaxError: Unexpected end of input"
    assert text_items(await v8.run("text(Object.getPrototypeOf(import.meta) === null)")) == ["true"]


async def test_the_host_exits_at_once_after_stopped_isolates(v8):
    """Every isolate is freed at its cell's end: a host that stopped busy cells still exits cleanly on EOF."""
    for _ in range(3):
        cell_id, _ = await v8.execute("await null; while (true) {}", yield_time_ms=50)
        await v8.terminate(cell_id)
    started = time.monotonic()
    assert await v8.close() == 0
    assert time.monotonic() - started < 5.0


@pytest.mark.unit
def test_isolates_are_closed_deterministically():
    """An isolate is freed when its cell ends, not by the garbage collector (mini-racer counts live contexts)."""
    from py_mini_racer._context import context_count

    from codemode.runtime.engines.v8_native import Isolate

    before = context_count()
    isolate = Isolate(on_call=lambda request: None, on_result=lambda tag, result: None, heap_limit=1 << 24)
    assert context_count() == before + 1
    isolate.close()
    isolate.close()
    assert context_count() == before


def test_isolates_boot_on_threads_after_the_first_ones_thread_ended():
    """The host boots its first isolate on a thread that ends (the spare's), and the next ones on
    other threads. On a CPU with memory protection keys V8 crashed the process at the second
    (SIGSEGV in ``mr_init_context``) until ``V8_FLAGS`` turned the keys off; run in a process of
    its own, which the crash would end."""
    import subprocess
    import sys

    script = (
        "import threading\n"
        "from codemode.runtime.engines import v8_spare\n"
        "for _ in range(3):\n"
        "    t = threading.Thread(target=v8_spare.boot)\n"
        "    t.start()\n"
        "    t.join()\n"
        "print('booted')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "booted\n"), done.stderr[-2000:]


async def test_an_unknown_engine_is_refused():
    """``--engine`` names one of the engines; anything else stops the host before the handshake."""
    client = await start_host(engine="spidermonkey")
    status = await asyncio.wait_for(client.process.wait(), 30)
    stderr = (await client.process.stderr.read()).decode()
    assert status == 2 and "invalid choice: 'spidermonkey'" in stderr


async def test_the_heap_limit_is_noticed_while_a_timer_is_pending(v8):
    """A promise job that exhausts the heap ends the cell although a timer would wake it much later."""
    source = "setTimeout(() => text('late'), 60000); await null; const a = []; for (;;) a.push([a.length]);"
    started = time.monotonic()
    body = body_of(await v8.run(source))
    assert body["error_text"].startswith("RangeError: out of memory: the cell exceeded its heap limit")
    assert time.monotonic() - started < 30


@pytest.mark.parametrize(
    "source",
    [
        "text(1)\n}\nglobalThis.L = {native, sab, host}; // return\n{",
        "}; })()); }, function () { globalThis.L = this; return this((function () { return async () => {",
    ],
    ids=["check", "wrapper"],
)
async def test_a_source_cannot_close_what_the_runtime_wraps_it_in(v8, source):
    """Unbalanced braces are the SyntaxError a module gives, never code outside the cell's body."""
    assert body_of(await v8.run(source))["error_text"] == "SyntaxError: Unexpected token '}'"
    assert text_items(await v8.run("text(typeof globalThis.L)")) == ["undefined"]


async def test_a_return_inside_for_await_is_refused(v8):
    body = body_of(await v8.run("for await (const x of [1]) { text('in loop'); return; }"))
    assert (body["content_items"], body["error_text"]) == ([], "SyntaxError: Illegal return statement")


async def test_what_v8_prints_itself_never_reaches_the_protocol(v8):
    """V8 prints an exception thrown by a FinalizationRegistry callback on descriptor 1: the
    host sends its frames on a private descriptor, so the connection and other cells go on."""
    source = (
        "let fired = 0;\n"
        "const registry = new FinalizationRegistry(() => { fired++; throw new Error('boom'); });\n"
        "(() => { for (let i = 0; i < 300; i++) registry.register({}, i); })();\n"
        "for (let k = 0; k < 300 && fired === 0; k++) {\n"
        "  const junk = []; for (let i = 0; i < 1e5; i++) junk.push({a: i});\n"
        "  await new Promise((r) => setTimeout(r, 5));\n"
        "}\n"
        "text('fired ' + (fired > 0));"
    )
    assert text_items(await v8.run(source)) == ["fired true"]
    assert text_items(await v8.run("text('next')")) == ["next"]
    assert v8.process.returncode is None


async def test_text_crosses_the_bridge_unchanged_after_tampering(v8):
    """The bridge's fast copy is used only while charCodeAt is the built-in's data property: a
    cell that replaces it, makes it an accessor, or puts a ``value`` getter on Object.prototype
    still gets its text out unchanged, and none of its code runs inside the bridge."""
    replaced = "String.prototype.charCodeAt = function () { return 65; };"
    accessor = (
        "const original = String.prototype.charCodeAt; let reads = 0;"
        "Object.defineProperty(String.prototype, 'charCodeAt', { get() { return original; }, configurable: true });"
        "Object.defineProperty(Object.prototype, 'value', { get() { reads++; return undefined; }, configurable: true });"
    )
    for tamper in (replaced, accessor):
        items = text_items(
            await v8.run(tamper + "text('xyz'.repeat(400000)); text(typeof reads === 'number' ? reads : 0);")
        )
        assert items == ["xyz" * 400000, "0"]
    assert text_items(await v8.run("text('plain')")) == ["plain"]


@pytest.mark.parametrize("late", ["text('late')", "store('late', 1)", "tools.echo({again: true})", "notify('late')"])
async def test_a_tool_answer_delivered_before_the_end_runs_nothing_observable_after_it(v8, late):
    """A tool's answer delivered while the cell's last task still runs is queued as a task
    of its own behind it; once the cell has ended that task takes no message, so the answer's
    ``.then`` never runs: no output, stored value, tool call or notification (as in Codex's
    unawaited_tool_promises case, where the answer comes after the end)."""
    source = (
        f"tools.echo({{}}).then(() => {late});\n"
        "const until = Date.now() + 500; while (Date.now() < until) {}  // the answer arrives meanwhile\n"
        "text('end');"
    )
    assert text_items(await v8.run(source)) == ["end"]
    assert v8.calls[0].answered
    assert text_items(await v8.run("text(String(load('late')))")) == ["undefined"]
    assert [c.request.get("invocation", {}).get("input") for c in v8.calls] == [{}]
    assert v8.notifications == []
