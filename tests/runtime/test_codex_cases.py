"""Every recorded Codex case, replayed against ``codemode-host`` and compared with the recording.

``codex_cases/`` holds the cases and what Codex's host 0.171 did with them (see its
README); ``codex_replay`` runs a case against our host and records it the same way;
``codex_compare`` compares by meaning, accepting only the differences documented in
``accept/`` (see its README). A case that differs fails with every difference listed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from codex_compare import compare
from codex_replay import CASES, case_names, case_source, parse_case, replay

ACCEPT = Path(__file__).resolve().parent / "accept"
NAMES = case_names()


ENGINES = ("quickjs", "v8")


def _accept_folder(engine: str) -> Path:
    """Accepted differences: ``accept/`` for QuickJS, ``accept/v8/`` for V8."""
    return ACCEPT if engine == "quickjs" else ACCEPT / engine


def _rules(name: str, engine: str = "quickjs") -> list[dict]:
    path = _accept_folder(engine) / f"{name}.accept.json"
    return json.loads(path.read_text())["rules"] if path.exists() else []


@pytest.mark.unit
def test_every_case_has_its_recording():
    assert len(NAMES) >= 80
    assert sorted(p.name.removesuffix(".expected.json") for p in CASES.glob("*.expected.json")) == NAMES
    for engine in ENGINES:
        assert {p.name.removesuffix(".accept.json") for p in _accept_folder(engine).glob("*.accept.json")} <= set(NAMES)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", NAMES)
async def test_codex_case(name, engine):
    source = case_source(name)
    session, _ = parse_case(source)
    expected = json.loads((CASES / f"{name}.expected.json").read_text())
    actual = await replay(source, name, engine=engine)
    loose = session["grouping"] == "loose"
    found = compare(expected, actual, loose=loose, rules=_rules(name, engine), frames=engine == "v8")
    assert not found, "\n".join(str(d) for d in found)


def _recording(name: str) -> dict:
    return json.loads((CASES / f"{name}.expected.json").read_text())


@pytest.mark.unit
def test_comparison_reports_any_changed_value_but_not_stack_frames():
    """A changed text, kind or tool input is a difference; different stack frames are not."""
    expected = _recording("throw_error")
    same = json.loads(json.dumps(expected))
    step = same["steps"][0]["responses"][0]
    step["error_text"] = step["error_text"].split("\n")[0] + "\n    at elsewhere (exec_main.mjs:9:9)"
    assert compare(expected, same, loose=False, rules=[]) == []
    changed = json.loads(json.dumps(expected))
    changed["steps"][0]["responses"][0]["error_text"] = "Error: something else"
    assert [d.path for d in compare(expected, changed, loose=False, rules=[])] == ["steps.0.responses.0.error_text"]
    tools = _recording("tool_inputs")
    other = json.loads(json.dumps(tools))
    other["tool_calls"][0]["input"] = {"changed": True}
    assert [d.path for d in compare(tools, other, loose=False, rules=[])] == ["tool_calls.0.input"]


@pytest.mark.unit
def test_accept_rules_cover_only_what_they_match():
    """A rule accepts differences under its paths only when its patterns hold for the actual recording."""
    expected = _recording("throw_error")
    actual = json.loads(json.dumps(expected))
    actual["steps"][0]["responses"][0]["error_text"] = "Error: different"
    actual["cell_closed"] = []
    rule = {"why": "test", "match": {"steps.0.responses.0.error_text": {"$regex": "^Error: diff"}}}
    assert [d.path for d in compare(expected, actual, loose=False, rules=[rule])] == ["cell_closed"]
    wrong = {"why": "test", "match": {"steps.0.responses.0.error_text": "Error: other"}}
    assert len(compare(expected, actual, loose=False, rules=[wrong])) == 2
