"""Client frames for the serde tests (``test_serde_texts.py``, ``test_serde_host.py``): the
JSON text of each client message with chosen fields changed (``GONE`` leaves one out)."""

from __future__ import annotations

import json

VARIANTS = "`connection/hello`, `operation/request`, `operation/cancel`, `operation/yield`, `delegate/response`"
GONE = object()


def _present(fields: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in fields.items() if v is not GONE}


def hello_text(**fields: object) -> str:
    hello = {
        "type": "connection/hello",
        "supportedVersions": [1],
        "requiredCapabilities": [],
        "optionalCapabilities": [],
    }
    return json.dumps(_present({**hello, **fields}))


def request_text(body: object, **fields: object) -> str:
    return json.dumps({"type": "operation/request", "id": 2, "request": body, **fields})


def open_text(**fields: object) -> str:
    return request_text({"method": "session/open", "sessionId": "s2", **fields})


def execute_text(**fields: object) -> str:
    body = {
        "tool_call_id": "c",
        "enabled_tools": [],
        "source": "text(1)",
        "yield_time_ms": 100,
        "max_output_tokens": None,
    }
    return request_text({"method": "session/execute", "sessionId": "s1", "request": {**body, **fields}})


def tool_text(**fields: object) -> str:
    tool = {
        "name": "echo",
        "tool_name": {"name": "echo", "namespace": None},
        "description": "echo",
        "kind": "function",
        "input_schema": {"type": "object"},
        "output_schema": None,
    }
    return execute_text(enabled_tools=[_present({**tool, **fields})])


def wait_text(body: object = None, **fields: object) -> str:
    body = {"cell_id": "1", "yield_time_ms": 10} if body is None else body
    return request_text({"method": "session/wait", "sessionId": "s1", "request": body, **fields})


def delegate_text(result: object, **fields: object) -> str:
    return json.dumps({"type": "delegate/response", "id": 999, "result": result, **fields})
