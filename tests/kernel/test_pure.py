"""Unit tests of the kernel's pure helpers: rendering, magics, is_complete, completion."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pytest

from codemode.kernel import completion, inspection, is_complete, magics, render

pytestmark = pytest.mark.unit

# ---------------------------------------------------------------- render


def test_text_item_is_one_stdout_line():
    assert render.item_message({"type": "input_text", "text": "hi"}) == (
        "stream",
        {"name": "stdout", "text": "hi\n"},
    )


def test_png_data_url_becomes_image_display_with_text_fallback():
    payload = base64.b64encode(b"\x89PNG fake").decode()
    kind, content = render.item_message(
        {"type": "input_image", "image_url": f"data:image/png;base64,{payload}", "detail": "high"}
    )
    assert kind == "display_data"
    assert content["data"]["image/png"] == payload
    assert content["data"]["text/plain"] == "<image image/png, 9 bytes>"


def test_image_mime_type_comes_from_the_data_url():
    payload = base64.b64encode(b"GIF89a").decode()
    _, content = render.item_message({"type": "input_image", "image_url": f"data:image/gif;base64,{payload}"})
    assert set(content["data"]) == {"image/gif", "text/plain"}


def test_undecodable_image_is_reported_as_text():
    _, content = render.item_message({"type": "input_image", "image_url": "data:image/png;base64,@@@"})
    assert content["data"] == {"text/plain": "image content omitted because it could not be processed"}


def test_audio_gets_its_mime_type_and_an_html_player():
    payload = base64.b64encode(b"RIFF....WAVE").decode()
    _, content = render.item_message({"type": "input_audio", "audio_url": f"data:audio/wav;base64,{payload}"})
    assert content["data"]["audio/wav"] == payload
    assert content["data"]["text/html"].startswith("<audio controls")
    assert "text/plain" in content["data"]


@pytest.mark.parametrize(
    ("error_text", "ename", "evalue"),
    [
        ("Error: boom\n    at exec_main.mjs:2:7", "Error", "boom"),
        ("TypeError: x is not a function\n    at exec_main.mjs:1:1", "TypeError", "x is not a function"),
        ("MyError: custom\n    at exec_main.mjs:3:9", "MyError", "custom"),
        ("SyntaxError: Unexpected token '='", "SyntaxError", "Unexpected token '='"),
        ("Error\n    at exec_main.mjs:1:7", "Error", ""),
        ("store key must be a string", "Error", "store key must be a string"),
        ("42", "Error", "42"),
        ("Error: two\nlines\n    at f (exec_main.mjs:1:1)", "Error", "two\nlines"),
    ],
)
def test_error_text_is_split_into_name_value_and_stack(error_text, ename, evalue):
    parts = render.parse_error_text(error_text)
    assert (parts.ename, parts.evalue) == (ename, evalue)
    assert parts.traceback == error_text.splitlines()


def test_terminated_error_is_named_cell_terminated():
    parts = render.terminated_error("3")
    assert parts.ename == "CellTerminated"
    assert "3" in parts.evalue


# ---------------------------------------------------------------- magics


def test_wait_magic_with_id_and_options():
    m = magics.parse_magic("%wait 3 --yield-time-ms 500 --max-tokens=20")
    assert (m.name, m.cell_id, m.yield_time_ms, m.max_tokens) == ("wait", "3", 500, 20)


def test_wait_magic_without_id_targets_the_latest_cell():
    assert magics.parse_magic("%wait").cell_id is None


@pytest.mark.parametrize(
    "line",
    [
        "%wait --yield-time-ms",
        "%wait --yield-time-ms -1",
        "%wait --bogus",
        "%wait 1 2",
        "%nope",
        "%",
        "%terminate 1 2",
        "%cells x",
        "%config yield_time_ms",
    ],
)
def test_bad_magics_are_usage_errors_with_sentences(line):
    with pytest.raises(magics.MagicError) as info:
        magics.parse_magic(line)
    assert str(info.value).endswith(".")


def test_unknown_magic_names_the_known_ones():
    with pytest.raises(magics.MagicError, match="%wait"):
        magics.parse_magic("%whatever")


def test_magic_cells_must_be_one_line():
    with pytest.raises(magics.MagicError, match="one line"):
        magics.parse_magic("%cells\ntext(1)")


def test_tools_filter_and_config_assignments():
    assert magics.parse_magic("%tools sleep").filter == "sleep"
    assert magics.parse_magic("%config yield_time_ms=5").assignments == {"yield_time_ms": "5"}


def test_recording_takes_no_arguments():
    assert magics.parse_magic("%recording") == magics.Magic("recording")
    with pytest.raises(magics.MagicError) as raised:
        magics.parse_magic("%recording replay")
    assert str(raised.value) == ("%recording takes no arguments; set the mode in codemode.toml's [recording] section.")


def test_is_magic_only_for_a_leading_percent():
    assert magics.is_magic("  %wait")
    assert not magics.is_magic("text('%wait')")


# ---------------------------------------------------------------- is_complete


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("text('hi')", "complete"),
        ("const x = {", "incomplete"),
        ("await tools.echo({a: [1, 2", "incomplete"),
        ("const s = `a ${b", "incomplete"),
        ("const s = `a ${ {x: 1}.x } b`", "complete"),
        ("/* open comment", "incomplete"),
        ("const x = 1 +", "incomplete"),
        ("const f = (a) =>", "incomplete"),
        ("x++", "complete"),
        ('// @exec: {"yield_time_ms": 100}', "incomplete"),
        ("// just a comment with ( and {", "complete"),
        ("const r = /[)}]/g; text(r)", "complete"),
        ("const q = a / b / c", "complete"),
        ("foo())", "invalid"),
        ("'unterminated\n", "invalid"),
        ("%wait 3", "complete"),
        ("text('}')", "complete"),
    ],
)
def test_is_complete(code, status):
    assert is_complete.scan(code)["status"] == status


def test_incomplete_indent_follows_open_brackets():
    assert is_complete.scan("if (a) {\n  foo([")["indent"] == "      "


# ---------------------------------------------------------------- completion / inspect


@dataclass
class FakeTool:
    js_name: str
    description: str
    declaration: str
    input_schema: dict | None = None


TOOLS = [
    FakeTool("echo", "Echo the input.", "declare const tools: { echo(args: object): Promise<object>; };"),
    FakeTool(
        "sleep",
        "Sleep.",
        "declare const tools: { sleep(args: { ms: number }): Promise<unknown>; };",
        {"type": "object", "properties": {"ms": {"type": "number"}}},
    ),
]


def test_tools_dot_completes_tool_names():
    code = "await tools.sl"
    reply = completion.complete(code, len(code), TOOLS)
    assert reply["matches"] == ["sleep"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (len(code) - 2, len(code))
    types = reply["metadata"]["_jupyter_types_experimental"]
    assert types[0]["type"] == "function" and "sleep" in types[0]["signature"]


def test_completion_offsets_are_code_points():
    code = "text('𝒳𝒴𝒵'); tools."
    reply = completion.complete(code, len(code), TOOLS)
    assert reply["matches"] == ["echo", "sleep"]
    assert reply["cursor_start"] == len(code)


def test_bare_words_complete_globals():
    assert completion.complete("sto", 3, TOOLS)["matches"] == ["store"]
    assert "text" in completion.complete("te", 2, TOOLS)["matches"]


def test_percent_completes_magics_and_wait_completes_cell_ids():
    assert completion.complete("%wa", 3, TOOLS)["matches"] == ["%wait"]
    reply = completion.complete("%wait ", 6, TOOLS, live_cells=["4", "12"])
    assert reply["matches"] == ["4", "12"]


def test_completion_never_crashes_on_odd_cursors():
    assert completion.complete("abc", 99, TOOLS)["status"] == "ok"
    assert completion.complete("", None, TOOLS)["status"] == "ok"


def test_inspect_tool_shows_description_and_declaration():
    code = "await tools.sleep({ms: 1})"
    reply = inspection.inspect(code, code.index("sleep") + 2, TOOLS)
    assert reply["found"]
    assert "Sleep." in reply["data"]["text/plain"]
    assert "declare const tools" in reply["data"]["text/plain"]
    detailed = inspection.inspect(code, code.index("sleep") + 2, TOOLS, detail_level=1)
    assert '"ms"' in detailed["data"]["text/plain"]


def test_inspect_global_and_unknown():
    assert "store(key" in inspection.inspect("store", 2, TOOLS)["data"]["text/plain"]
    assert inspection.inspect("nothing_here", 3, TOOLS)["found"] is False


def test_members_of_engine_globals_complete():
    from codemode.kernel.js_globals import EngineGlobals

    engine = EngineGlobals(
        {
            "": [("Math", "instance"), ("Map", "class")],
            "Math": [("floor", "function"), ("fround", "function"), ("PI", "instance")],
            "Array.prototype": [("map", "function"), ("__proto__", "property"), ("at", "function")],
        }
    )
    code = "const x = Math.fl"
    reply = completion.complete(code, len(code), TOOLS, engine=engine)
    assert reply["matches"] == ["floor"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (len(code) - 2, len(code))
    assert completion.complete("Array . prototype.", 18, TOOLS, engine=engine)["matches"] == ["at", "map", "__proto__"]
    assert completion.complete("globalThis.Ma", 13, TOOLS, engine=engine)["matches"] == ["Map", "Math"]
    # Helpers first, then the engine's globals; a member of something unknown completes nothing.
    assert completion.complete("Ma", 2, TOOLS, engine=engine)["matches"] == ["Map", "Math"]
    assert completion.complete("foo.Math.fl", 11, TOOLS, engine=engine)["matches"] == []
    assert completion.complete("f().fl", 6, TOOLS, engine=engine)["matches"] == []


def test_inspect_finds_the_call_whose_arguments_hold_the_cursor():
    code = 'await tools.sleep({ms: 1, note: "(", t: `${x}`}); text(1)'
    inside = code.index("1,")
    reply = inspection.inspect(code, inside, TOOLS)
    assert reply["found"] and reply["data"]["text/plain"].startswith("tools.sleep\n\nSleep.")
    assert inspection.inspect(code, code.index("x}"), TOOLS)["data"]["text/plain"].startswith("tools.sleep")
    assert inspection.inspect(code, len(code) - 1, TOOLS)["data"]["text/plain"].startswith("text(value")
    assert inspection.inspect('tools["echo"]({a: 1})', 17, TOOLS)["data"]["text/plain"].startswith("tools.echo")
    # After the call's closing parenthesis the cursor is in no call.
    assert inspection.inspect("tools.sleep({ms: 1}); ", 22, TOOLS)["found"] is False


def test_enclosing_calls_ignore_brackets_in_strings_and_comments():
    code = 'text(JSON.stringify({a: ")"}, /* ) */ null, `)${ Math.max(1'
    assert inspection.enclosing_calls(code, len(code)) == ["Math.max", "JSON.stringify", "text"]


# ---------------------------------------------------------------- host loss


def test_host_loss_sentences_name_reason_cell_and_stored_values():
    from codemode.kernel.host_loss import HostLoss

    crash = HostLoss("code-mode host closed its stdout", 1, None, True)
    assert crash.sentence("3") == (
        "The code-mode runtime host stopped (code-mode host closed its stdout); cell 3 was lost. "
        "The next cell starts a new host; values stored with store() are kept."
    )
    restart = HostLoss("code-mode host exited with status 3", 2, "g2:4", False)
    parts = restart.error(None)
    assert parts.ename == "HostStopped"
    assert parts.evalue.startswith(
        "The code-mode runtime host was restarted to stop cell g2:4, which did not respond to termination"
    )
    assert "the cell was not started" in parts.evalue
    assert parts.evalue.endswith("values stored with store() were lost with the host.")
    notebook = HostLoss("code-mode host closed its stdout", 1, None, True, bindings_lost=True)
    assert notebook.sentence("3") == (
        "The code-mode runtime host stopped (code-mode host closed its stdout); cell 3 was lost. "
        "The next cell starts a new host; the bindings of earlier cells are gone, values stored with store() "
        "are kept."
    )


def test_status_of_a_cell_lost_with_its_host_does_not_say_its_output_was_shown():
    """A followed cell whose host died: what it wrote after its last answer went with the host,
    so its status says it failed and why, not that its output was shown."""
    from codemode.kernel.cells import CellRecord, status_bundle
    from codemode.kernel.host_loss import HostLoss
    from codemode.responses import RuntimeResponse

    record = CellRecord("2", {}, 1, started_at=100.0)
    record.lost = HostLoss("code-mode host closed its stdout", 1, None, True)
    record.finish(RuntimeResponse("Result", "2", [], error_text="code-mode host closed its stdout"))
    record.ended_at, record.state = 101.2, "closed"
    assert status_bundle(record)["text/plain"] == (
        "Cell 2 failed after 1.2 s.\n"
        "The code-mode runtime host stopped (code-mode host closed its stdout); cell 2 was lost. "
        "The next cell starts a new host; values stored with store() are kept."
    )
    record.lost = None
    assert status_bundle(record)["text/plain"] == "Cell 2 failed after 1.2 s; its output was shown."


def test_termination_log_attributes_only_slow_recent_terminates_of_that_generation(monkeypatch):
    from codemode.kernel import host_loss

    now = [100.0]
    monkeypatch.setattr(host_loss.time, "monotonic", lambda: now[0])
    log = host_loss.TerminationLog(lambda cid: int(cid[1:].split(":")[0]) if cid.startswith("g") else 1)
    with log.terminating("2"):
        assert log.cause(1) == "2"  # still in flight
        now[0] += 0.1
    assert log.cause(1) is None  # answered fast: stopped in-process
    with log.terminating("3"):
        now[0] += 1.0
    assert (log.cause(1), log.cause(2)) == ("3", None)
    now[0] += host_loss.RESTART_ATTRIBUTION_S + 0.1
    assert log.cause(1) is None


@pytest.mark.parametrize("value", ["99999999999999999999", "9007199254740992", "-1", "+5", "²", "1.5", ""])
def test_wait_and_config_numbers_are_whole_and_within_the_pragma_limit(value):
    with pytest.raises(magics.MagicError, match="from 0 to 9007199254740991"):
        magics.parse_magic(f"%wait --yield-time-ms {value}" if value else "%wait --yield-time-ms=")
    with pytest.raises(magics.MagicError, match="from 0 to 9007199254740991"):
        magics.non_negative("yield_time_ms", value)


def test_the_largest_safe_integer_is_accepted():
    assert magics.parse_magic("%wait --max-tokens 9007199254740991").max_tokens == 9007199254740991
