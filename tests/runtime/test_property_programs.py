"""Property test: generated programs keep the delivery and store invariants (issue "Runtime fidelity").

Programs are sequences of ``text`` / ``store`` / ``load`` / ``notify`` / ``yield_control``
and tool calls (awaited or not) with random JSON values. Invariants against a reference
model: every text item is delivered exactly once and in order across all responses of
the cell; notifications and tool inputs arrive as sent; stored values equal the model
in the next cell. The test runs on both engines of our host (``codemode-host --engine``).
When ``CODEMODE_REFERENCE_HOST`` names Codex's host program, every program also runs there
and both hosts must give the same observations. ``CODEMODE_PROPERTY_EXAMPLES`` sets the
number of programs per engine (default 25; e.g. 2000 with ``-k v8`` against Codex's host).
"""

from __future__ import annotations

import asyncio
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rt_client import start_host, tool_def

REFERENCE = os.environ.get("CODEMODE_REFERENCE_HOST")
ENGINES = ("quickjs", "v8")
COMPARED = {engine: {"programs": 0, "agreed": 0} for engine in ENGINES}

_keys = st.text(alphabet="abcxyz_", min_size=1, max_size=6)
_strings = st.text(alphabet=st.characters(blacklist_categories=("Cs",), max_codepoint=0x2FFF), max_size=12)
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | _strings,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_keys, children, max_size=4),
    max_leaves=10,
)
_ops = st.one_of(
    st.tuples(st.just("text"), _json),
    st.tuples(st.just("store"), _keys, _json),
    st.tuples(st.just("load"), _keys),
    st.tuples(st.just("notify"), _strings.filter(lambda s: s.strip() != "")),
    st.tuples(st.just("yield")),
    st.tuples(st.just("tool"), _json, st.booleans()),
)


def _js(value) -> str:
    return json.dumps(value, ensure_ascii=False)


def _as_text(value) -> str:
    """JS ``text()`` of a JSON value (ints only, so String() matches Python's str)."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def build(ops):
    """The program source and the model's expectations."""
    lines, texts, notes, inputs, store = [], [], [], [], {}
    for op in ops:
        kind = op[0]
        if kind == "text":
            lines.append(f"text({_js(op[1])});")
            texts.append(_as_text(op[1]))
        elif kind == "store":
            lines.append(f"store({_js(op[1])}, {_js(op[2])});")
            store[op[1]] = op[2]
        elif kind == "load":
            lines.append(f"text(JSON.stringify(load({_js(op[1])})));")
            texts.append(
                _as_text(store[op[1]])
                if op[1] in store and not isinstance(store[op[1]], str)
                else (json.dumps(store[op[1]], ensure_ascii=False) if op[1] in store else "undefined")
            )
        elif kind == "notify":
            lines.append(f"notify({_js(op[1])});")
            notes.append(op[1])
        elif kind == "yield":
            lines.append("yield_control();")
        else:
            _, value, awaited = op
            if awaited:
                lines.append(f"text(await tools.echo({_js(value)}));")
                texts.append(_as_text(value))
            else:
                lines.append(f"tools.echo({_js(value)});")
            inputs.append(value)
    return "\n".join(lines), texts, notes, inputs, store


async def observe(program: str | None, source: str, keys: list[str], engine: str | None = None):
    """What a host did with ``source`` (texts, error, notifications, tool inputs, stored values
    of ``keys`` in the next cell): Codex's host when ``program`` is given, else ours on ``engine``."""
    host = await start_host(program, engine=engine)
    try:
        await host.hello()
        await host.open("prop")
        cell_id, response = await host.execute(source, session_id="prop", tools=[tool_def("echo")], yield_time_ms=0)
        items = []
        while True:
            ((kind, body),) = response.items()
            items.extend(body["content_items"])
            if kind != "Yielded":
                break
            response = (await host.wait(cell_id, 5000, session_id="prop"))["LiveCell"]
        error = body.get("error_text")
        dump = await host.run(
            f"text(JSON.stringify(Object.fromEntries({_js(keys)}.map((k) => [k, load(k)]))));",
            session_id="prop",
            tools=[],
        )
        (dump_body,) = dump.values()
        stored = json.loads(dump_body["content_items"][0]["text"])
        tool_inputs = [c.request["invocation"]["input"] for c in host.calls if c.request["type"] == "tool/invoke"]
        return {
            "texts": [i["text"] for i in items if i["type"] == "input_text"],
            "error": error,
            "notes": list(host.notifications),
            "inputs": tool_inputs,
            "stored": stored,
        }
    except ConnectionError as exc:
        # The host died (a crash, not a disagreement): say how, with its stderr.
        assert host.process.stderr is not None
        status = await host.process.wait()
        stderr = (await host.process.stderr.read()).decode("utf-8", "replace")
        if len(stderr) > 2000:  # V8 names the failure first, a Python traceback last
            stderr = f"{stderr[:1000]}\n[...]\n{stderr[-1000:]}"
        raise AssertionError(f"the host ended with status {status}; its stderr:\n{stderr}") from exc
    finally:
        await host.close()


EXAMPLES = int(os.environ.get("CODEMODE_PROPERTY_EXAMPLES", "25"))
TIMEOUT_S = max(300, EXAMPLES)
"""pytest-timeout's limit for all of an engine's programs: a program takes about 0.16 s on V8
and Codex's host together (2-core machine), so a larger count needs more than the default 300 s."""


@pytest.mark.timeout(TIMEOUT_S)
@pytest.mark.parametrize("engine", ENGINES)
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_ops, min_size=1, max_size=12))
def test_generated_programs_keep_invariants(engine, ops):
    source, texts, notes, inputs, store = build(ops)
    keys = sorted({op[1] for op in ops if op[0] in ("store", "load")})
    ours = asyncio.run(observe(None, source, keys, engine))
    assert ours["error"] is None, ours["error"]
    assert ours["texts"] == texts
    assert ours["notes"] == notes
    assert ours["inputs"] == inputs
    assert ours["stored"] == {k: v for k, v in store.items()}
    if REFERENCE:
        reference = asyncio.run(observe(REFERENCE, source, keys))
        compared = COMPARED[engine]
        compared["programs"] += 1
        assert reference == ours
        compared["agreed"] += 1
        print(
            f"{engine}: compared with the reference host: {compared['agreed']}/{compared['programs']} programs agreed"
        )
