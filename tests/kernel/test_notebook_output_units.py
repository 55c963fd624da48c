"""The notebook profile's content items (``stream``, ``display_data``, ``execute_result``) on
their own: the IOPub messages they become (``kernel/render.py``, ``kernel/publish.py``) and how
the output budget counts and truncates them (``codemode/wire/truncation.py``, ``kernel/budget.py``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from codemode.kernel.budget import bound_delivery
from codemode.kernel.publish import Publisher, Request
from codemode.kernel.render import ErrorParts, item_messages

pytestmark = pytest.mark.unit

TABLE = {
    "text/plain": "[ { a: 1 }, { a: 2 } ]",
    "application/json": [{"a": 1}, {"a": 2}],
    "text/html": "<table><thead><tr><th>a</th></tr></thead><tbody><tr><td>1</td></tr><tr><td>2</td></tr></tbody></table>",
}


def _text(text: str) -> dict[str, str]:
    return {"type": "input_text", "text": text}


def _stream(name: str, text: str) -> dict[str, str]:
    return {"type": "stream", "name": name, "text": text}


def _display(data: dict[str, Any], metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "display_data", "data": data, "metadata": metadata or {}}


def _value(data: dict[str, Any]) -> dict[str, Any]:
    return {"type": "execute_result", "data": data, "metadata": {}}


def test_each_item_becomes_its_message_in_order():
    items = [
        _stream("stdout", "log 1\n"),
        _text("from text()"),
        _stream("stderr", "warned\n"),
        _display({"text/markdown": "# Hi", "text/plain": "# Hi"}, {"isolated": True}),
        _value(TABLE),
    ]
    assert item_messages(items, 7) == [
        ("stream", {"name": "stdout", "text": "log 1\n"}),
        ("stream", {"name": "stdout", "text": "from text()\n"}),
        ("stream", {"name": "stderr", "text": "warned\n"}),
        ("display_data", {"data": {"text/markdown": "# Hi", "text/plain": "# Hi"}, "metadata": {"isolated": True}}),
        ("execute_result", {"execution_count": 7, "data": TABLE, "metadata": {}}),
    ]


def test_the_value_shown_under_another_request_is_a_display_with_the_same_bundle():
    assert item_messages([_value(TABLE)], None) == [("display_data", {"data": TABLE, "metadata": {}})]


def test_malformed_items_still_show_something():
    assert item_messages([_stream("stdin", "x\n"), {"type": "display_data", "data": 5, "metadata": []}]) == [
        ("stream", {"name": "stdout", "text": "x\n"}),
        ("display_data", {"data": {"text/plain": "5"}, "metadata": {}}),
    ]


class _Session:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], str]] = []

    def send(self, socket: Any, msg_type: str, content: dict[str, Any], parent: dict[str, Any], ident: Any) -> None:
        self.sent.append((msg_type, content, parent["header"]["msg_id"]))


class _Kernel:
    def __init__(self) -> None:
        self.session = _Session()
        self.iopub_socket = object()
        self.last_execution_count = 3

    def _topic(self, msg_type: str) -> bytes:
        return msg_type.encode()


def _published(items: list[dict[str, Any]], execution_count: int | None) -> list[tuple[str, dict[str, Any], str]]:
    kernel = _Kernel()
    request = Request(parent={"header": {"msg_id": "req-1"}}, silent=False, execution_count=execution_count)
    asyncio.run(Publisher(kernel).emit_items(request, items))
    return kernel.session.sent


def test_the_publisher_joins_runs_of_one_stream_and_keeps_the_order():
    items = [
        _stream("stdout", "a\n"),
        _text("b"),
        _stream("stderr", "c\n"),
        _stream("stderr", "d\n"),
        _value({"text/plain": "3"}),
        _stream("stdout", "e\n"),
    ]
    assert _published(items, 4) == [
        ("stream", {"name": "stdout", "text": "a\nb\n"}, "req-1"),
        ("stream", {"name": "stderr", "text": "c\nd\n"}, "req-1"),
        ("execute_result", {"execution_count": 4, "data": {"text/plain": "3"}, "metadata": {}}, "req-1"),
        ("stream", {"name": "stdout", "text": "e\n"}, "req-1"),
    ]
    assert _published([_value({"text/plain": "3"})], None) == [
        ("display_data", {"data": {"text/plain": "3"}, "metadata": {}}, "req-1")
    ]


def test_a_long_run_of_lines_is_cut_after_newlines_and_empty_texts_keep_their_place():
    lines = [f"line {i}" for i in range(10_000)]
    items = [*map(_text, lines), _stream("stderr", ""), _text(""), _display({"text/plain": "d"}), _stream("stdout", "")]
    sent = _published(items, 2)
    pieces = [content["text"] for msg_type, content, _ in sent[:-2]]
    assert {msg_type for msg_type, _, _ in sent[:-2]} == {"stream"}
    assert "".join(pieces) == "".join(f"{line}\n" for line in lines)
    assert len(pieces) == 2 and all(len(p) <= 64 * 1024 and p.endswith("\n") for p in pieces)
    assert sent[-2:] == [
        ("stream", {"name": "stdout", "text": "\n"}, "req-1"),
        ("display_data", {"data": {"text/plain": "d"}, "metadata": {}}, "req-1"),
    ]


def test_a_huge_display_keeps_only_its_truncated_text_plain():
    huge = _display({"text/plain": "p" * 400, "text/html": "<b>" + "h" * 4000 + "</b>"})
    bounded = bound_delivery([_stream("stdout", "first\n"), huge, _display({"text/plain": "late"})], None, 22)
    # 22 tokens: "first\n" costs 2, the display's largest text (its HTML) does not fit in the
    # 20 left, so it keeps its text/plain middle-truncated to 20 tokens; nothing is left after.
    assert bounded.items == [
        _stream("stdout", "first\n"),
        {
            "type": "display_data",
            "data": {"text/plain": "p" * 40 + "\u202680 tokens truncated\u2026" + "p" * 40},
            "metadata": {},
        },
        _text("[omitted 1 display items ...]"),
        _text("[showed only the text/plain of 1 display items ...]"),
    ]


def test_a_table_that_does_not_fit_shows_its_whole_text_plain_when_that_fits():
    table = _value({"text/plain": "[ 2 items ]", "application/json": list(range(1000)), "text/html": "<table/>"})
    assert bound_delivery([table], None, 10).items == [
        {"type": "execute_result", "data": {"text/plain": "[ 2 items ]"}, "metadata": {}},
        _text("[showed only the text/plain of 1 display items ...]"),
    ]


def test_the_value_is_never_dropped_and_a_huge_stream_keeps_its_name():
    items = [_stream("stderr", "e" * 400), _stream("stdout", "more\n"), _value({"text/plain": "42"})]
    assert bound_delivery(items, None, 10).items == [
        _stream("stderr", "e" * 20 + "\u202690 tokens truncated\u2026" + "e" * 20),
        {"type": "execute_result", "data": {"text/plain": "\u20261 tokens truncated\u2026"}, "metadata": {}},
        _text("[omitted 1 text items ...]"),
        _text("[showed only the text/plain of 1 display items ...]"),
    ]


def test_a_console_flood_is_cut_in_the_middle_as_a_text_flood_is():
    """Only text-like items (console lines, text()): Codex's all-text rule keeps the head and
    the tail under its warning, whichever helper printed."""
    lines = [f"line {i}" for i in range(2000)]
    as_text = bound_delivery([_text(line) for line in lines], None, 100).items
    as_console = bound_delivery([_stream("stdout", line + "\n") for line in lines], None, 100).items
    mixed = [_stream("stdout", line + "\n") if i % 2 else _text(line) for i, line in enumerate(lines)]
    assert as_console == as_text == bound_delivery(mixed, None, 100).items
    (only,) = as_console
    assert only["text"].startswith(
        "Warning: truncated output (original token count: 4723)\nTotal output lines: 2000\n\n"
    )
    assert only["text"].endswith("line 1998\nline 1999")
    short = [_stream("stderr", "warn\n"), _text("fits")]
    assert bound_delivery(short, None, 100).items == short


def test_the_error_budget_counts_the_notebook_items():
    """The error (27 tokens) keeps what the output leaves of 30 tokens: the display's 8 count."""
    bounded = bound_delivery([_display({"text/plain": "d" * 32})], "Error: " + "e" * 100, 30)
    assert bounded.items == [_display({"text/plain": "d" * 32})]
    marker = "\u2026{} tokens truncated\u2026"
    assert bounded.error == ErrorParts(
        "Error", "e" * 44 + marker.format(3) + "e" * 44, ["Error: " + "e" * 37 + marker.format(5) + "e" * 44]
    )


def test_notebook_helpers_complete_and_inspect_only_in_the_notebook_profile():
    from codemode.kernel import completion, inspection

    assert completion.complete("dis", 3, [], profile="notebook")["matches"] == ["display"]
    assert completion.complete("dis", 3, [])["matches"] == []
    assert completion.complete("console.", 8, [], profile="notebook")["matches"] == [
        "debug",
        "error",
        "info",
        "log",
        "warn",
    ]
    assert completion.complete("console.", 8, [])["matches"] == []
    found = inspection.inspect('markdown("# x")', 3, [], profile="notebook")
    assert found["data"]["text/plain"] == "markdown(markdown: string): void\n\nShow Markdown."
    assert inspection.inspect('markdown("# x")', 3, [])["found"] is False


def test_the_realms_bindings_complete_a_word_and_a_member_chain_in_the_notebook_profile():
    from codemode.kernel import completion
    from codemode.kernel.js_globals import EngineGlobals

    engine = EngineGlobals({"": [("Math", "instance")], "Math": [("floor", "function")]})
    assert completion.binding_query("const x = ro", None, engine) == []
    assert completion.binding_query("rows[0].na", None, engine) == ["rows", "0"]
    assert completion.binding_query('cfg["inner"].de', None, engine) == ["cfg", "inner"]
    assert completion.binding_query("Math.fl", None, engine) is None
    assert completion.binding_query("tools.ec", None, engine) is None
    assert completion.binding_query("f().x", None, engine) is None
    listed = [("rows", "property"), ("render", "function"), ("Math", "property")]
    word = completion.complete("r", None, [], engine=engine, profile="notebook", bindings=listed)
    assert word["matches"] == ["render", "rows"]
    assert completion.complete("M", None, [], engine=engine, profile="notebook", bindings=listed)["matches"] == ["Math"]
    members = [("map", "function"), ("length", "property")]
    chain = completion.complete("rows.ma", None, [], engine=engine, profile="notebook", bindings=members)
    assert (chain["matches"], chain["cursor_start"]) == (["map"], 5)
    assert completion.complete("Math.fl", None, [], engine=engine, profile="notebook", bindings=members)["matches"] == [
        "floor"
    ]
    assert completion.complete("rows.ma", None, [], engine=engine, profile="strict", bindings=members)["matches"] == []


def test_the_publisher_cleans_every_bundle_it_sends():
    """``kernel/sanitize.py`` on the way out: displays, values, display updates; not streams."""
    hostile = {"text/html": "<b>x</b><script>alert(1)</script>", "text/plain": "x"}
    kernel = _Kernel()
    publisher = Publisher(kernel)
    request = Request(parent={"header": {"msg_id": "req-1"}}, silent=False, execution_count=3)
    items = [_display(hostile), _value({"text/markdown": "<script>alert(1)</script>"})]
    asyncio.run(publisher.emit_items(request, items))
    update = {"data": hostile, "metadata": {}, "transient": {"display_id": "d"}}
    publisher.send("update_display_data", update, request.parent)
    publisher.send("stream", {"name": "stdout", "text": "<script>alert(1)</script>\n"}, request.parent)
    publisher.flush()
    assert kernel.session.sent == [
        ("display_data", {"data": {"text/html": "<b>x</b>", "text/plain": "x"}, "metadata": {}}, "req-1"),
        ("execute_result", {"execution_count": 3, "data": {"text/html": "\n\n"}, "metadata": {}}, "req-1"),
        ("update_display_data", {**update, "data": {"text/html": "<b>x</b>", "text/plain": "x"}}, "req-1"),
        ("stream", {"name": "stdout", "text": "<script>alert(1)</script>\n"}, "req-1"),
    ]


def test_a_delivery_after_the_interrupt_ends_where_its_pacing_would_wait():
    """The output an interrupted request still shows (its terminated cell's) goes out up to the
    pacing's burst, then one notice counts the rest: an interrupt that came before the delivery
    ends it as one during its wait does, instead of pacing megabytes out for minutes."""
    from codemode.kernel.streams import STREAM_BYTES_BURST, chunks

    kernel = _Kernel()
    request = Request(parent={"header": {"msg_id": "req-1"}}, silent=False, execution_count=3)
    request.interrupted = True
    total = 4 * STREAM_BYTES_BURST
    asyncio.run(Publisher(kernel).emit_items(request, [_text("a" * total)]))
    *streams, (kind, notice, parent) = kernel.session.sent
    shown = "".join(content["text"] for _, content, _ in streams)
    assert 0 < len(shown) <= STREAM_BYTES_BURST and shown == "a" * len(shown)
    left = len(list(chunks("a" * total + "\n"))) - len(streams)
    assert (kind, parent) == ("stream", "req-1")
    assert notice == {
        "name": "stderr",
        "text": f"\nThe interrupt stopped this output here; {left} more output message(s) were not shown.\n",
    }


@given(st.text(alphabet="ab\n", max_size=300), st.integers(min_value=1, max_value=40))
def test_chunks_cut_after_the_last_newline_within_the_limit(text, limit):
    """Pieces of at most ``limit`` characters that join back into the text; each but the last
    ends after the last newline its ``limit`` characters hold, or holds none and is full."""
    from codemode.kernel.streams import chunks

    pieces = chunks(text, limit)
    assert "".join(pieces) == text and all(0 < len(piece) <= limit for piece in pieces)
    start = 0
    for piece in pieces[:-1]:
        window = text[start : start + limit]
        assert piece == window[: window.rfind("\n") + 1 or limit]
        start += len(piece)
