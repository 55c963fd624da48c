"""Compare a host's recording of a case with Codex's, by what the recordings mean.

Both recordings have the lean form of ``codex_cases/NAME.expected.json``. Compared:
the handshake's answer type, rejection reason and version; whether ``session/open`` and
``session/shutdown`` succeeded (or their error texts); per step, each response's kind,
liveness (``LiveCell``/``MissingCell``), cell id, content items and ``error_text`` or
error message; every tool call (tool name and namespace, kind, cell, input, whether it
was cancelled); every notification (text, call id, cell); the closed cells (as a set);
frames no request accounted for; whether the connection ended early. Times, ids and the
capability list are not compared.

Two normalisations: a text whose lines include a stack frame (four spaces and ``at``) is
compared by the lines before its first indented line (V8 and QuickJS differ in frames,
not in the ``Name: message`` header), or, with ``frames=True`` (our V8 engine), by those
lines and the frames in the cell's own code (``exec_main.mjs``: name, line and column),
leaving out the frames of each runtime's own JavaScript (``<anonymous>``); a string longer than 4000 characters by its length
and SHA-256. A case marked ``"grouping": "loose"`` on its ``// oracle:`` line (timers
racing the waits) accepts responses split differently, when their kinds and errors run
the same and each cell's items, joined across its responses, are equal.

Accepted differences (``tests/runtime/accept/NAME.accept.json``) are rules
``{"why": ..., "match": {"<path>": <pattern>}}``: when every pattern holds for the
actual recording, differences at or below those paths are accepted. Paths are
dot-separated keys and list indices into the view (``steps.0.responses.0.error_text``);
patterns are JSON values with ``{"$regex": ...}``, ``{"$one_of": [...]}`` and
``{"$any": true}`` allowed inside.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import re
from dataclasses import dataclass
from typing import Any

LONG = 4000
_FRAME = re.compile(r"^ {4}at \S", re.M)
_MISSING = object()
_CELL_FRAMES = contextvars.ContextVar("cell_frames", default=False)


def text(value: Any) -> Any:
    """A compared string: the header of a stack text, a token for a long or elided string."""
    if isinstance(value, dict) and value.get("$elided"):
        return f"<{value['length']} chars, sha256 {value['sha256']}>"
    if not isinstance(value, str):
        return value
    if len(value) > LONG:
        return f"<{len(value)} chars, sha256 {hashlib.sha256(value.encode('utf-8', 'surrogatepass')).hexdigest()}>"
    if not _FRAME.search(value):
        return value
    lines = value.split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("    "))
    kept = lines[:first]
    if _CELL_FRAMES.get():
        kept += [line for line in lines[first:] if _FRAME.match(line) and "exec_main.mjs" in line]
    return "\n".join(kept)


def _deep(value: Any) -> Any:
    """A JSON value (tool input, non-text item) with long or elided strings as tokens."""
    if isinstance(value, dict) and value.get("$elided"):
        return text(value)
    if isinstance(value, dict):
        return {k: _deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v) for v in value]
    return text(value) if isinstance(value, str) and len(value) > LONG else value


def _operation(value: Any) -> Any:
    if isinstance(value, dict) and "error" in value:
        return {"error": text(value["error"])}
    return _deep(value)


def _response(entry: dict[str, Any]) -> dict[str, Any]:
    kind = entry["kind"]
    if kind == "error":
        return {"via": entry["via"], "kind": kind, "message": text(entry["message"])}
    if kind not in ("Result", "Yielded", "Terminated"):
        return {k: _deep(v) for k, v in entry.items()}
    items = []
    for item in entry["content_items"]:
        if item.get("type") == "input_text":
            items.append({"type": "input_text", "text": text(item.get("text"))})
        else:
            items.append(_deep(item))
    return {
        "via": entry["via"],
        "kind": kind,
        "cell": entry.get("cell"),
        "cell_id": entry.get("cell_id"),
        "content_items": items,
        "error_text": text(entry.get("error_text")),
    }


def view(doc: dict[str, Any]) -> dict[str, Any]:
    """What is compared of a lean recording."""
    session = doc["session"]
    return {
        "handshake": doc["handshake"],
        "session": {k: _operation(session[k]) for k in ("open", "shutdown")},
        "steps": [
            {
                "cell_id": s["cell_id"],
                "host_closed": s["host_closed"],
                "responses": [_response(r) for r in s["responses"]],
            }
            for s in doc["steps"]
        ],
        "tool_calls": _deep(doc["tool_calls"]),
        "notifications": [{**n, "text": text(n["text"])} for n in doc["notifications"]],
        "cell_closed": sorted(doc["cell_closed"], key=lambda c: (not c.isdigit(), c.zfill(20))),
        "unexpected_messages": doc["unexpected_messages"],
        "host_closed_early": doc["host_closed_early"],
        "harness_errors": doc["harness_errors"],
    }


@dataclass
class Difference:
    path: str
    expected: Any
    actual: Any
    accepted_by: str | None = None

    def __str__(self) -> str:
        show = lambda v: "<missing>" if v is _MISSING else json.dumps(v, ensure_ascii=False)[:300]  # noqa: E731
        return f"{self.path}: expected {show(self.expected)}, actual {show(self.actual)}"


def differences(expected: Any, actual: Any, path: str = "") -> list[Difference]:
    """Every place where ``actual`` differs; lists of different lengths differ as a whole."""
    join = (lambda key: f"{path}.{key}") if path else str
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for key in list(expected) + [k for k in actual if k not in expected]:
            out += differences(expected.get(key, _MISSING), actual.get(key, _MISSING), join(key))
        return out
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        return [d for i, (e, a) in enumerate(zip(expected, actual, strict=True)) for d in differences(e, a, join(i))]
    same = expected == actual and (type(expected) is bool) == (type(actual) is bool)
    return [] if same else [Difference(path, expected, actual)]


def _at(data: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and part.isdigit() and int(part) < len(data):
            data = data[int(part)]
        else:
            return _MISSING
    return data


def matches(pattern: Any, value: Any) -> bool:
    """Whether ``value`` (from the actual view) fits an accept-rule pattern."""
    if isinstance(pattern, dict) and len(pattern) == 1 and next(iter(pattern)).startswith("$"):
        ((op, arg),) = pattern.items()
        if op == "$any":
            return True
        if op == "$regex":
            return isinstance(value, str) and re.search(arg, value) is not None
        if op == "$one_of":
            return any(matches(p, value) for p in arg)
        raise ValueError(f"unknown matcher {op}")
    if value is _MISSING:
        return False
    if isinstance(pattern, dict):
        return (
            isinstance(value, dict)
            and set(pattern) == set(value)
            and all(matches(pattern[k], value[k]) for k in pattern)
        )
    if isinstance(pattern, list):
        return isinstance(value, list) and len(pattern) == len(value) and all(map(matches, pattern, value))
    return text(pattern) == value and (type(pattern) is bool) == (type(value) is bool)


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + ".")


def _shape(step: dict[str, Any]) -> list[dict[str, Any]]:
    shape: list[dict[str, Any]] = []
    for response in step["responses"]:
        entry = {k: v for k, v in response.items() if k != "content_items"}
        if not shape or shape[-1] != entry:
            shape.append(entry)
    return shape


def _joined(v: dict[str, Any]) -> dict[Any, list[Any]]:
    out: dict[Any, list[Any]] = {}
    for step in v["steps"]:
        for response in step["responses"]:
            out.setdefault(response.get("cell_id", step["cell_id"]), []).extend(response.get("content_items", []))
    return out


def compare(
    expected: dict[str, Any], actual: dict[str, Any], *, loose: bool, rules: list[dict[str, Any]], frames: bool = False
) -> list[Difference]:
    """The differences between two recordings of a case that no rule accepts (``frames``: see the module docstring)."""
    token = _CELL_FRAMES.set(frames)
    try:
        want, got = view(expected), view(actual)
    finally:
        _CELL_FRAMES.reset(token)
    found = differences(want, got)
    if loose:
        joined_want, joined_got = _joined(want), _joined(got)
        for index, (w, g) in enumerate(zip(want["steps"], got["steps"], strict=False)):
            cells = {r.get("cell_id") for r in w["responses"] + g["responses"]} | {w["cell_id"], g["cell_id"]}
            if _shape(w) == _shape(g) and all(joined_want.get(c) == joined_got.get(c) for c in cells):
                for d in found:
                    if _under(d.path, f"steps.{index}.responses"):
                        d.accepted_by = "grouping loose"
    for number, rule in enumerate(rules, start=1):
        if all(matches(pattern, _at(got, path)) for path, pattern in rule["match"].items()):
            for d in found:
                if d.accepted_by is None and any(_under(d.path, path) for path in rule["match"]):
                    d.accepted_by = f"rule {number}: {rule['why']}"
    return [d for d in found if d.accepted_by is None]
