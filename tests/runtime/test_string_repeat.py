"""``String.prototype.repeat`` on QuickJS (``runtime/prelude/repeat.js``): a long result is
joined by doubling, as V8 builds it, and is the same string the built-in makes; a short one is
the built-in's. Its errors are V8's (the recorded Codex case ``string_repeat_errors``).

The parts run in a bare QuickJS context here (``intrinsics.js``, ``intl.js`` for the helper
that makes a function look built in, ``repeat.js``), with the built-in kept aside to compare
against; the recorded Codex case ``string_repeat_long`` pins the same through the host, and
the notebook profile's realm is checked through a real host.
"""

from __future__ import annotations

import json

import _quickjs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rt_client import start_host, text_items

from codemode.runtime.prelude_source import ENGINE_PARTS, assemble

LONG = 65536
"""From this many characters on, the result is joined (``__cm_repeat_joined_chars``)."""


def context(memory_limit: int = 256 * 1024 * 1024) -> _quickjs.Context:
    """A QuickJS context with the repeat part installed and the built-in as ``builtin``."""
    ctx = _quickjs.Context()
    ctx.set_memory_limit(memory_limit)
    ctx.eval("globalThis.builtin = String.prototype.repeat")
    ctx.eval(assemble(("intrinsics.js", "intl.js", "repeat.js"), "return 0;"))
    return ctx


CTX = context()


@pytest.mark.unit
@settings(max_examples=150, deadline=None)
@given(
    piece=st.text(max_size=6),  # any code points, lone surrogates included
    count=st.one_of(st.integers(0, 40), st.integers(LONG // 6, 3 * LONG)),
)
def test_same_string_as_the_builtin(piece, count):
    compared = CTX.eval(
        f"(() => {{ const p = {json.dumps(piece)}; const a = p.repeat({count}), b = builtin.call(p, {count});"
        " return JSON.stringify([a === b, a.length]); })()"
    )
    assert json.loads(compared) == [True, len(piece.encode("utf-16-le", "surrogatepass")) // 2 * count]


@pytest.mark.unit
def test_a_long_result_is_joined_lazily_as_in_v8():
    """100 M characters fit no 32 MB heap: the built-in fails at once, the joined string only
    when its characters are read (Codex's V8 gives the length too)."""
    ctx = context(32 * 1024 * 1024)
    assert ctx.eval("'x'.repeat(1e8).length") == 100_000_000
    assert ctx.eval("try { builtin.call('x', 1e8); 'built' } catch (e) { String(e) }") == "InternalError: out of memory"
    assert ctx.eval("try { 'x'.repeat(1e8).indexOf('y') } catch (e) { String(e) }") == "InternalError: out of memory"
    assert (
        ctx.eval("const s = 'ab'.repeat(1e6); s.slice(-3) + s.indexOf('ba', 999997) + s.charCodeAt(5)")
        == "bab999997" + "98"
    )


@pytest.mark.unit
def test_converted_counts_and_string_objects_repeat_as_before():
    assert (
        CTX.eval("'ab'.repeat(2.9) + '|' + 'ab'.repeat('3') + '|' + new String('ab').repeat(2)") == "abab|ababab|abab"
    )
    assert CTX.eval("String.prototype.repeat.call(12, 40000).length") == 80_000


@pytest.mark.unit
def test_shown_as_the_builtin():
    shape = CTX.eval(
        "JSON.stringify([String.prototype.repeat.name, String.prototype.repeat.length,"
        " Object.getOwnPropertyDescriptor(String.prototype, 'repeat'), Object.keys(String.prototype),"
        " 'prototype' in String.prototype.repeat])"
    )
    assert json.loads(shape) == ["repeat", 1, {"writable": True, "enumerable": False, "configurable": True}, [], False]


@pytest.mark.unit
def test_quickjs_only():
    """V8 joins long repeats itself; its prelude leaves the built-in alone."""
    assert "repeat.js" in ENGINE_PARTS["quickjs"]
    assert "repeat.js" not in ENGINE_PARTS["v8"]


async def test_the_notebook_realm_joins_long_repeats():
    client = await start_host(profile="notebook")
    try:
        assert (await client.hello())["type"] == "connection/ready"
        assert (await client.open("s1"))["status"] == "ok"
        result = await client.run("const huge = 'x'.repeat(5e8)\ntext(huge.length)")
        assert text_items(result) == ["500000000"], result
    finally:
        client.process.kill()
        await client.process.wait()
