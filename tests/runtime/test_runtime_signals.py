"""Values a cell throws are never taken for the runtime's own signals (``runtime_signals_not_forgeable``).

``exit()`` ends a cell because it ran (the prelude's closure and the cell thread record
that), not because of what was thrown; an exhausted heap is judged from the engine's own
failure, not from the text of a thrown value. Codex's host 0.171 shows such values as the
ordinary errors they are.
"""

from __future__ import annotations

import pytest
from rt_client import body_of, start_host, text_items

EXIT_TEXT = "__codex_code_mode_exit__"
"""What ``exit()`` throws when the context cannot be interrupted (and earlier Codex hosts threw)."""

FORGED = [
    # (source, content texts, error_text): each thrown value stays an ordinary error.
    ('text("a"); throw "__codex_code_mode_exit__";', ["a"], EXIT_TEXT),
    ('text("b"); await Promise.reject("__codex_code_mode_exit__");', ["b"], EXIT_TEXT),
    ('throw new String("__codex_code_mode_exit__");', [], EXIT_TEXT),
    (
        'throw {name: "__codex_code_mode_exit__", message: "__codex_code_mode_exit__",'
        ' toString() { return "__codex_code_mode_exit__"; }};',
        [],
        EXIT_TEXT,
    ),
    (
        'text("c"); setTimeout(() => { throw "__codex_code_mode_exit__"; }, 0);\n'
        'await new Promise((resolve) => setTimeout(resolve, 50)); text("not reached");',
        ["c"],
        EXIT_TEXT,
    ),
    ('text({toJSON() { throw "__codex_code_mode_exit__"; }});', [], EXIT_TEXT),
    ('await stream_settled([1], () => { throw "__codex_code_mode_exit__"; });', [], EXIT_TEXT),
    ('await tools.fail({message: "__codex_code_mode_exit__"});', [], EXIT_TEXT),
    ('throw "InternalError: out of memory";', [], "InternalError: out of memory"),
    (
        'class InternalError extends Error {}\nInternalError.prototype.name = "InternalError";\n'
        'throw new InternalError("out of memory");',
        [],
        "InternalError: out of memory\n    at exec_main.mjs:3:7",
    ),
    (
        'throw "code-mode runtime error: InternalError: out of memory";',
        [],
        "code-mode runtime error: InternalError: out of memory",
    ),
]


@pytest.mark.parametrize(("source", "texts", "error_text"), FORGED)
async def test_a_thrown_look_alike_is_an_ordinary_error(host, source, texts, error_text):
    body = body_of(await host.run(source))
    assert [item["text"] for item in body["content_items"]] == texts
    assert body["error_text"] == error_text


async def test_exit_still_ends_the_cell_uncaught(host):
    """exit() ends the cell as a success: no catch, no finally, also from a timer."""
    source = (
        'text("before");\n'
        'try { exit(); } catch (e) { text("caught " + e); } finally { text("finally"); }\n'
        'text("after");\n'
    )
    body = body_of(await host.run(source))
    assert (body["content_items"], body["error_text"]) == ([{"type": "input_text", "text": "before"}], None)
    timer = 'text("t"); setTimeout(() => { exit(); }, 0); await new Promise(() => {});'
    assert body_of(await host.run(timer))["error_text"] is None
    assert text_items(await host.run('text("next");')) == ["next"]


async def test_without_interrupt_only_exit_itself_ends_the_cell():
    """With the catchable fallback, exit() ends the cell; the same text thrown by a cell fails it."""
    host = await start_host(env={"CODEMODE_HOST_NO_INTERRUPT": "1"})
    try:
        await host.hello()
        await host.open("s1")
        forged = await host.run('text("a"); throw "__codex_code_mode_exit__";')
        assert (text_items(forged), body_of(forged)["error_text"]) == (["a"], EXIT_TEXT)
        rejected = body_of(await host.run('await Promise.reject("__codex_code_mode_exit__");'))
        assert rejected["error_text"] == EXIT_TEXT
        # The real exit(): caught here (the fallback is catchable), the cell still ends
        # as a success, even when it throws something else afterwards.
        real = await host.run('try { exit(); } catch (e) { text("caught " + e); }\nthrow new Error("later");')
        assert (text_items(real), body_of(real)["error_text"]) == ([f"caught {EXIT_TEXT}"], None)
    finally:
        await host.close()
