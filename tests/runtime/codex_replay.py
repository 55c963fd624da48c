"""Replay a recorded Codex case against a host program and record what it does.

A case is ``codex_cases/NAME.js``: cells separated by ``// ---- cell ----`` lines (each
may carry a JSON object of cell options), after an optional first line ``// oracle:
{...}`` of options (session options and default cell options). :func:`replay` starts the
host program with ``--listen stdio``, opens one session, runs the cells as the options
say, shuts the session down and returns the recording: the lean form stored in
``codex_cases/NAME.expected.json`` (see ``codex_cases/README.md``), which
:mod:`codex_compare` compares.

Run as a script to re-record cases with Codex's own host::

    python tests/runtime/codex_replay.py --program PATH/TO/codex-code-mode-host [NAME ...]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

from rt_client import HostClient, ToolFailure, start_host

CASES = Path(__file__).resolve().parent / "codex_cases"
ELIDE_OVER = 4000
"""Strings longer than this are recorded as ``{"$elided": true, "length", "sha256"}``."""
CODEX_CAPABILITIES = [
    "bounded-output-v1",
    "delegate-capacity-4096",
    "session-cell-execution-resource-limits",
    "tool-catalog-revision-v1",
    "yield-observation",
]
"""What the recording client offered Codex's host 0.171 (all it knows)."""
SESSION_OPTIONS = {
    "session_id": "oracle-session-1",
    "max_yield_time_ms": None,
    "max_heap_size_bytes": None,
    "output_truncation": None,
    "optional_capabilities": None,
    "versions": None,
    "timeout_s": 60,
    "settle_ms": 150,
    "description": None,
    "grouping": None,
}
CELL_OPTIONS = {
    "tools": [],
    "yield_time_ms": None,
    "max_output_tokens": None,
    "wait_until_done": False,
    "wait_yield_ms": 1000,
    "wait_max_output_tokens": None,
    "max_waits": 60,
    "waits": None,
    "terminate_after_ms": None,
    "yield_after_ms": None,
    "wait_after_close": False,
    "target_cell": None,
}
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
"""The 1x1 PNG the ``image`` tool returned when the cases were recorded (part of the recorded URLs)."""


# ---- the case file ------------------------------------------------------------------

TAMPER = CASES / "tamper"
"""The ``tamper_*`` cases: one exercise (``exercise.js``, ``{{TAMPER}}`` where the change goes) and a
table of changes to the built-ins (``tampers.json``, name -> JavaScript)."""


def case_names() -> list[str]:
    """Every case: the ``.js`` files and ``tamper_<name>`` for each entry of the tamper table."""
    tampers = json.loads((TAMPER / "tampers.json").read_text())
    return sorted([p.stem for p in CASES.glob("*.js")] + [f"tamper_{name}" for name in tampers])


def case_source(name: str) -> str:
    """The text of case ``name`` (a tamper case is the exercise with its change put in)."""
    path = CASES / f"{name}.js"
    if path.exists():
        return path.read_text()
    tamper = json.loads((TAMPER / "tampers.json").read_text())[name.removeprefix("tamper_")]
    return (TAMPER / "exercise.js").read_text().replace("{{TAMPER}}", tamper)


def parse_case(text: str) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """Session options and the cells (source, options) of a case file; unknown options raise."""
    lines = text.split("\n")
    head: dict[str, Any] = {}
    if lines and lines[0].startswith("// oracle:"):
        head = json.loads(lines.pop(0)[len("// oracle:") :])
    unknown = set(head) - set(SESSION_OPTIONS) - set(CELL_OPTIONS)
    if unknown:
        raise ValueError(f"unsupported case options {sorted(unknown)}")
    session = {**SESSION_OPTIONS, **{k: v for k, v in head.items() if k in SESSION_OPTIONS}}
    defaults = {**CELL_OPTIONS, **{k: v for k, v in head.items() if k in CELL_OPTIONS}}
    cells: list[tuple[str, dict[str, Any]]] = []
    source: list[str] = []
    options = dict(defaults)
    for line in lines:
        m = re.match(r"^// ---- cell ----(.*)$", line)
        if m is None:
            source.append(line)
            continue
        cells.append(("\n".join(source), options))
        extra = json.loads(m.group(1)) if m.group(1).strip() else {}
        if set(extra) - set(CELL_OPTIONS):
            raise ValueError(f"unsupported cell options {sorted(set(extra) - set(CELL_OPTIONS))}")
        source, options = [], {**defaults, **extra}
    cells.append(("\n".join(source), options))
    if len(cells) > 1 and cells[0][0].strip("\n") == "":
        cells.pop(0)  # a file opening with a separator has no empty first cell
    return session, cells


# ---- the tools the cases call (as the recording client served them) -----------------


def _arg(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


async def _sleep(value: Any) -> Any:
    ms = _arg(value).get("ms", 1000)
    await asyncio.sleep(min(float(ms), 120_000.0) / 1000)
    return {"slept_ms": ms}


async def _fail(value: Any) -> Any:
    raise ToolFailure(str(_arg(value).get("message", "tool failed on purpose")))


async def _big(value: Any) -> Any:
    size = max(0, min(int(_arg(value).get("size", 100_000)), 32 * 1024 * 1024))
    char = str(_arg(value).get("char", "x")) or "x"
    return (char * (size // len(char) + 1))[:size]


async def _image(value: Any) -> Any:
    block: dict[str, Any] = {"type": "image", "data": PNG_1X1, "mimeType": "image/png"}
    if "detail" in _arg(value):
        block["_meta"] = {"codex/imageDetail": value["detail"]}
    return {"content": [block], "isError": False}


async def _echo(value: Any) -> Any:
    return value


TOOLS: dict[str, Any] = {
    "echo": _echo,
    "sleep": _sleep,
    "fail": _fail,
    "big": _big,
    "image": _image,
    "mcp_text": lambda v: _value({"content": [{"type": "text", "text": str(_arg(v).get("text", "hello from mcp"))}]}),
    "mcp__srv__get-thing": lambda v: _value(
        {"thing": v, "tool_name": {"name": "get-thing", "namespace": "mcp__srv__"}}
    ),
    "raw": lambda v: _value(f"raw tool got {json.dumps(v, ensure_ascii=False)}"),
    "string_result": lambda v: _value("a plain string result"),
    "null_result": lambda v: _value(None),
}
DESCRIPTIONS = {
    # As the recording client described its tools (ALL_TOOLS shows them to the cell).
    "echo": "Returns its input unchanged.",
    "sleep": "Sleeps for `ms` milliseconds, then returns {slept_ms}.",
    "fail": "Always fails with `message` (default: 'tool failed on purpose').",
    "big": "Returns a string of `size` characters (default 100000).",
    "image": "Returns an MCP CallToolResult with one 1x1 PNG image block.",
    "mcp_text": "Returns an MCP CallToolResult with one text block.",
    "mcp__srv__get-thing": "MCP-style namespaced tool; returns {thing: input}.",
    "raw": "Freeform tool; returns a string describing its input.",
    "string_result": "Returns a plain string.",
    "null_result": "Returns JSON null.",
}
KINDS = {"raw": "freeform"}
WIRE = {"mcp__srv__get-thing": ("get-thing", "mcp__srv__")}


async def _value(value: Any) -> Any:
    return value


def _tool_defs(specs: list[Any], host: HostClient) -> list[dict[str, Any]]:
    """``enabled_tools`` for a cell; registers each tool's implementation under its wire name."""
    defs = []
    for spec in specs:
        if isinstance(spec, str):
            spec = {"name": spec, "impl": spec}
        name, impl = spec["name"], spec.get("impl", "echo")
        wire, namespace = WIRE.get(name, (spec.get("wire_name") or name, spec.get("namespace")))
        host.tools[wire] = TOOLS[impl]
        defs.append(
            {
                "name": name,
                "tool_name": {"name": wire, "namespace": namespace},
                "description": spec.get("description", DESCRIPTIONS[impl]),
                "kind": spec.get("kind", KINDS.get(impl, "function")),
                "input_schema": spec.get("input_schema", None if KINDS.get(impl) else {"type": "object"}),
                "output_schema": None,
            }
        )
    return defs


# ---- recording ---------------------------------------------------------------------


def summary(via: str, result: Any) -> dict[str, Any]:
    """One response as recorded: ``{via, kind, cell, cell_id, content_items, error_text}``."""
    if not isinstance(result, dict):
        return {"via": via, "kind": "no response"}
    if result.get("status") == "error":
        return {"via": via, "kind": "error", "message": result.get("message")}
    value, cell = result.get("value"), None
    if isinstance(value, dict) and value.get("type") == "wait/completed":
        ((cell, value),) = value["outcome"].items()
    if not isinstance(value, dict) or len(value) != 1 or "type" in value:
        return {"via": via, "kind": "operation", "value": value}
    ((kind, body),) = value.items()
    return {
        "via": via,
        "kind": kind,
        "cell": cell,
        "cell_id": body.get("cell_id"),
        "content_items": body.get("content_items", []),
        "error_text": body.get("error_text"),
    }


def elide(value: Any) -> Any:
    """Long strings as ``{"$elided": true, "length", "sha256"}`` (UTF-8, surrogates passed)."""
    if isinstance(value, str) and len(value) > ELIDE_OVER:
        digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
        return {"$elided": True, "length": len(value), "sha256": digest}
    if isinstance(value, list):
        return [elide(v) for v in value]
    if isinstance(value, dict):
        return {k: elide(v) for k, v in value.items()}
    return value


class _Step:
    """One cell step being run: its responses, and whether the host went away."""

    def __init__(self, host: HostClient, session_id: str, opts: dict[str, Any], deadline: float) -> None:
        self.host, self.session_id, self.opts, self.deadline = host, session_id, opts, deadline
        self.responses: list[tuple[float, dict[str, Any]]] = []
        self.cell_id: str | None = opts["target_cell"]
        self.executing = False

    async def answer(self, fut: asyncio.Future) -> Any:
        return await asyncio.wait_for(asyncio.shield(fut), max(0.1, self.deadline - time.monotonic()))

    async def request(self, via: str, request: dict[str, Any]) -> dict[str, Any]:
        _, fut = self.host.start_request(request)
        entry = summary(via, await self.answer(fut))
        self.responses.append((time.monotonic(), entry))
        return entry

    async def wait(self, via: str, yield_ms: int) -> dict[str, Any]:
        request: dict[str, Any] = {
            "method": "session/wait",
            "sessionId": self.session_id,
            "request": {"cell_id": self.cell_id, "yield_time_ms": yield_ms},
        }
        if self.opts["wait_max_output_tokens"] is not None:
            request["maxOutputTokens"] = self.opts["wait_max_output_tokens"]
        return await self.request(via, request)

    async def after(self, delay_ms: float, started: float, action: Any) -> None:
        await asyncio.sleep(max(0.0, started + delay_ms / 1000 - time.monotonic()))
        await action()


async def _run_step(step: _Step, source: str, index: int) -> None:
    host, session_id, opts, deadline = step.host, step.session_id, step.opts, step.deadline
    started = time.monotonic()
    side: list[asyncio.Task] = []
    execute_id = None
    last: dict[str, Any] | None = None
    if opts["target_cell"] is None:
        request = {
            "method": "session/execute",
            "sessionId": session_id,
            "request": {
                "tool_call_id": f"oracle-call-{index + 1}",
                "enabled_tools": _tool_defs(opts["tools"], host),
                "source": source,
                "yield_time_ms": opts["yield_time_ms"],
                "max_output_tokens": opts["max_output_tokens"],
            },
        }
        execute_id, started_fut = host.start_request(request)
        initial = host._initial.setdefault(execute_id, asyncio.get_running_loop().create_future())
        if opts["yield_after_ms"] is not None:
            side.append(asyncio.create_task(step.after(opts["yield_after_ms"], started, _control(host, execute_id))))
    if opts["terminate_after_ms"] is not None:
        side.append(asyncio.create_task(step.after(opts["terminate_after_ms"], started, _terminate(step))))
    if execute_id is not None:
        step.executing = True
        result = await step.answer(started_fut)
        if result.get("status") == "ok":
            step.cell_id = result["value"]["cellId"]
            result = await step.answer(initial)
        last = summary("execute", result)
        step.executing = False
        step.responses.append((time.monotonic(), last))
    if step.cell_id is not None:
        if opts["waits"] is not None:
            for yield_ms in opts["waits"]:
                await step.wait("wait", int(yield_ms))
        elif opts["wait_until_done"] and (last is None or _live_yield(last)):
            for _ in range(int(opts["max_waits"])):
                if any(e["via"] == "terminate" for _, e in step.responses):
                    break
                if not _live_yield(await step.wait("wait", int(opts["wait_yield_ms"]))):
                    break
    for task in side:
        await asyncio.wait_for(task, max(0.1, deadline - time.monotonic()))
    if opts["wait_after_close"] and step.cell_id is not None:
        try:
            await host.wait_for(lambda: (session_id, step.cell_id) in host.closed_cells, 2.0)
        except TimeoutError:
            pass
        await step.wait("wait_after_close", 100)


def _live_yield(entry: dict[str, Any]) -> bool:
    return entry["kind"] == "Yielded" and entry.get("cell") in (None, "LiveCell")


def _control(host: HostClient, request_id: int) -> Any:
    async def send() -> None:
        host.send({"type": "operation/yield", "id": request_id})

    return send


def _terminate(step: _Step) -> Any:
    async def send() -> None:
        while step.cell_id is None:
            await asyncio.sleep(0.005)
        await step.request(
            "terminate", {"method": "session/terminate", "sessionId": step.session_id, "cellId": step.cell_id}
        )

    return send


def _ordered(step: _Step) -> list[dict[str, Any]]:
    order = {"execute": 0, "wait": 1, "terminate": 2, "wait_after_close": 3}
    return [entry for _, entry in sorted(step.responses, key=lambda te: (order[te[1]["via"]], te[0]))]


def _operation(result: Any) -> Any:
    if not isinstance(result, dict):
        return "no response"
    if result.get("status") == "ok":
        return "ok"
    return {"error": result.get("message")}


async def replay(source_text: str, name: str, program: str | None = None, engine: str | None = None) -> dict[str, Any]:
    """Run one case against ``program`` (our host on ``engine`` when None); returns its lean recording."""
    session, cells = parse_case(source_text)
    deadline = time.monotonic() + float(session["timeout_s"])
    host = await start_host(program, engine=engine)
    doc: dict[str, Any] = {"case": name, "handshake": None, "session": {"open": None, "shutdown": None}, "steps": []}
    early = False
    try:
        offered = session["optional_capabilities"]
        ready = await asyncio.wait_for(
            host.hello(versions=session["versions"], optional=CODEX_CAPABILITIES if offered is None else offered), 15
        )
        if ready is not None:
            reason = ready.get("reason")
            doc["handshake"] = {
                "type": ready.get("type"),
                "reason": reason.get("type") if isinstance(reason, dict) else reason,
                "selected_version": ready.get("selectedVersion"),
            }
        if ready is not None and ready.get("type") == "connection/ready":
            early = await _run_session(host, session, cells, doc, deadline)
    finally:
        if host.process.stdin is not None and not host.process.stdin.is_closing():
            host.process.stdin.close()
        try:
            await asyncio.wait_for(host.process.wait(), 10)
        except TimeoutError:
            host.process.kill()
            await host.process.wait()
    return elide({**doc, **_traffic(host), "host_closed_early": early, "harness_errors": False})


async def _run_session(
    host: HostClient, session: dict[str, Any], cells: list, doc: dict[str, Any], deadline: float
) -> bool:
    """Open, run the cells, shut down; returns True when the host closed the connection early."""
    session_id = session["session_id"]
    limits = {
        k: session[o]
        for k, o in (("maxYieldTimeMs", "max_yield_time_ms"), ("maxHeapSizeBytes", "max_heap_size_bytes"))
        if session[o] is not None
    }
    request: dict[str, Any] = {"method": "session/open", "sessionId": session_id}
    if limits:
        request["cellExecutionLimits"] = limits
    if session["output_truncation"] is not None:
        request["outputTruncation"] = session["output_truncation"]
    try:
        opened = await host.request(request, timeout=max(0.1, deadline - time.monotonic()))
    except ConnectionError:
        doc["session"]["open"] = "no response"
        return True
    doc["session"]["open"] = _operation(opened)
    if opened.get("status") != "ok":
        return False
    for index, (source, opts) in enumerate(cells):
        step = _Step(host, session_id, opts, deadline)
        try:
            await _run_step(step, source, index)
        except ConnectionError:
            if step.executing:  # the execute itself got no answer
                step.responses.append((time.monotonic(), {"via": "execute", "kind": "no response"}))
            doc["steps"].append({"cell_id": step.cell_id, "host_closed": True, "responses": _ordered(step)})
            return True
        doc["steps"].append({"cell_id": step.cell_id, "host_closed": False, "responses": _ordered(step)})
    await asyncio.sleep(session["settle_ms"] / 1000)
    try:
        shutdown = await host.request({"method": "session/shutdown", "sessionId": session_id}, timeout=10)
    except ConnectionError:
        return True
    doc["session"]["shutdown"] = _operation(shutdown)
    await asyncio.sleep(0.05)
    return False


def _traffic(host: HostClient) -> dict[str, Any]:
    """Tool calls, notifications, closed cells and frames no request accounts for."""
    tool_calls = [
        {
            "tool": c.request["invocation"]["tool_name"],
            "kind": c.request["invocation"]["tool_kind"],
            "cell_id": c.request["invocation"]["cell_id"],
            "input": c.request["invocation"]["input"],
            "cancelled": c.cancelled,
        }
        for c in host.calls
        if c.request["type"] == "tool/invoke"
    ]
    notifications = [
        {"text": c.request["text"], "call_id": c.request["callId"], "cell_id": c.request["cellId"]}
        for c in host.calls
        if c.request["type"] == "notification/send"
    ]
    known = {"operation/response", "execute/initialResponse", "delegate/request", "delegate/cancel", "cell/closed"}
    seen: set[tuple[str, Any]] = set()
    unexpected = []
    for message in host.events:
        key = (message["type"], message.get("id"))
        if message["type"] not in known or (
            message["type"] != "delegate/request" and key in seen and message["type"] != "cell/closed"
        ):
            unexpected.append(message["type"])
        seen.add(key)
    return {
        "tool_calls": tool_calls,
        "notifications": notifications,
        "cell_closed": [cell for _, cell in host.closed_cells],
        "unexpected_messages": unexpected,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Re-record codex_cases/NAME.expected.json with a host program.")
    parser.add_argument("--program", required=True, help="the host program, e.g. Codex's codex-code-mode-host")
    parser.add_argument("names", nargs="*", help="case names (default: every case)")
    args = parser.parse_args(argv)
    for name in args.names or case_names():
        doc = asyncio.run(replay(case_source(name), name, args.program))
        (CASES / f"{name}.expected.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
        print(name, [r["kind"] for s in doc["steps"] for r in s["responses"]])
    return 0


if __name__ == "__main__":
    sys.exit(main())
