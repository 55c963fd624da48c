"""How fast the candidate typings of the wire messages encode and decode (the numbers in
:mod:`codemode.wire.messages`): TypedDicts with constructor functions (what the project uses),
dataclasses with ``to_wire``/``from_wire``, and pydantic 2 models.

Two messages: a typical ``session/execute`` request (12 tool definitions, a 400-character
source) and an ``execute/initialResponse`` carrying a ``Result`` with 1 MB of text. "encode"
is building the message from its parts plus :func:`codemode.wire.framing.encode_frame` (pydantic:
``model_dump_json``); "decode" is :func:`codemode.wire.framing.decode_frames` plus checking the
message into its typed form (pydantic: ``model_validate_json``).

Run: ``python bench/wire_messages.py`` (prints microseconds per operation, best of 5).
"""

from __future__ import annotations

import timeit
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from codemode.responses import RuntimeResponse
from codemode.wire import messages
from codemode.wire.framing import decode_frames, encode_frame

TOOLS = [
    {
        "name": f"tool_{i}",
        "tool_name": {"name": f"tool-{i}", "namespace": "mcp__srv__"},
        "description": "Does a thing. " * 8,
        "kind": "function",
        "input_schema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
        "output_schema": None,
    }
    for i in range(12)
]
SOURCE = 'const r = await tools.tool_1({a: "x", b: 2}); text(JSON.stringify(r));\n' * 6
BIG = "x" * (1 << 20)


# -- TypedDict + constructors ---------------------------------------------------------------------
def td_execute_encode() -> bytes:
    request = messages.execute_request("call-1", TOOLS, SOURCE, 1000, None)
    return encode_frame(messages.operation_request(7, messages.execute_body("session-1", request)))


def td_big_encode() -> bytes:
    response = messages.result("1", [messages.input_text(BIG)], None)
    return encode_frame(messages.initial_response(7, messages.ok(response)))


def td_execute_decode(frame: bytes) -> Any:
    (message,), _ = decode_frames(frame)
    body = message["request"]
    assert body["method"] == "session/execute" and isinstance(body["request"]["source"], str)
    return body


def td_big_decode(frame: bytes) -> Any:
    (message,), _ = decode_frames(frame)
    return RuntimeResponse.from_wire(message["result"]["value"])


# -- dataclasses with to_wire -----------------------------------------------------------------
@dataclass
class DcToolName:
    name: str
    namespace: str | None


@dataclass
class DcTool:
    name: str
    tool_name: DcToolName
    description: str
    kind: str
    input_schema: Any
    output_schema: Any

    def to_wire(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "tool_name": {"name": self.tool_name.name, "namespace": self.tool_name.namespace},
            "description": self.description,
            "kind": self.kind,
            "input_schema": self.input_schema,
            "output_schema": self.output_schema,
        }

    @classmethod
    def from_wire(cls, w: dict[str, Any]) -> DcTool:
        return cls(
            w["name"], DcToolName(**w["tool_name"]), w["description"], w["kind"], w["input_schema"], w["output_schema"]
        )


@dataclass
class DcExecute:
    request_id: int
    session_id: str
    tool_call_id: str
    tools: list[DcTool]
    source: str
    yield_time_ms: int | None
    max_output_tokens: int | None

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": "operation/request",
            "id": self.request_id,
            "request": {
                "method": "session/execute",
                "sessionId": self.session_id,
                "request": {
                    "tool_call_id": self.tool_call_id,
                    "enabled_tools": [t.to_wire() for t in self.tools],
                    "source": self.source,
                    "yield_time_ms": self.yield_time_ms,
                    "max_output_tokens": self.max_output_tokens,
                },
            },
        }

    @classmethod
    def from_wire(cls, w: dict[str, Any]) -> DcExecute:
        body = w["request"]
        r = body["request"]
        tools = [DcTool.from_wire(t) for t in r["enabled_tools"]]
        return cls(
            w["id"],
            body["sessionId"],
            r["tool_call_id"],
            tools,
            r["source"],
            r["yield_time_ms"],
            r["max_output_tokens"],
        )


DC_TOOLS = [DcTool.from_wire(t) for t in TOOLS]


@dataclass
class DcText:
    text: str


@dataclass
class DcInitial:
    request_id: int
    cell_id: str
    items: list[DcText]
    error_text: str | None

    def to_wire(self) -> dict[str, Any]:
        body = {
            "cell_id": self.cell_id,
            "content_items": [{"type": "input_text", "text": i.text} for i in self.items],
            "error_text": self.error_text,
        }
        return {
            "type": "execute/initialResponse",
            "id": self.request_id,
            "result": {"status": "ok", "value": {"Result": body}},
        }

    @classmethod
    def from_wire(cls, w: dict[str, Any]) -> DcInitial:
        body = w["result"]["value"]["Result"]
        return cls(w["id"], body["cell_id"], [DcText(i["text"]) for i in body["content_items"]], body["error_text"])


# -- pydantic -----------------------------------------------------------------------------------
class PToolName(BaseModel):
    name: str
    namespace: str | None


class PTool(BaseModel):
    name: str
    tool_name: PToolName
    description: str
    kind: str
    input_schema: Any
    output_schema: Any


class PExecuteRequest(BaseModel):
    tool_call_id: str
    enabled_tools: list[PTool]
    source: str
    yield_time_ms: int | None
    max_output_tokens: int | None


class PExecuteBody(BaseModel):
    method: Literal["session/execute"]
    sessionId: str
    request: PExecuteRequest


class PRequest(BaseModel):
    type: Literal["operation/request"]
    id: int
    request: PExecuteBody


class PText(BaseModel):
    type: Literal["input_text"]
    text: str


class PResultBody(BaseModel):
    cell_id: str
    content_items: list[PText]
    error_text: str | None


class PResponse(BaseModel):
    Result: PResultBody


class POk(BaseModel):
    status: Literal["ok"]
    value: PResponse


class PInitial(BaseModel):
    type: Literal["execute/initialResponse"]
    id: int
    result: POk


P_TOOLS = [PTool.model_validate(t) for t in TOOLS]


def p_execute_encode() -> bytes:
    body = PExecuteBody(
        method="session/execute",
        sessionId="session-1",
        request=PExecuteRequest(
            tool_call_id="call-1", enabled_tools=P_TOOLS, source=SOURCE, yield_time_ms=1000, max_output_tokens=None
        ),
    )
    data = PRequest(type="operation/request", id=7, request=body).model_dump_json().encode()
    return len(data).to_bytes(4, "little") + data


def p_big_encode() -> bytes:
    body = PResultBody(cell_id="1", content_items=[PText(type="input_text", text=BIG)], error_text=None)
    message = PInitial(type="execute/initialResponse", id=7, result=POk(status="ok", value=PResponse(Result=body)))
    data = message.model_dump_json().encode()
    return len(data).to_bytes(4, "little") + data


def best_us(fn: Any, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def main() -> None:
    execute_frame = td_execute_encode()
    big_frame = td_big_encode()
    rows = {
        "TypedDict + constructors": (
            best_us(td_execute_encode, 2000),
            best_us(lambda: td_execute_decode(execute_frame), 2000),
            best_us(td_big_encode, 20),
            best_us(lambda: td_big_decode(big_frame), 20),
        ),
        "dataclasses with to_wire": (
            best_us(
                lambda: encode_frame(DcExecute(7, "session-1", "call-1", DC_TOOLS, SOURCE, 1000, None).to_wire()), 2000
            ),
            best_us(lambda: DcExecute.from_wire(decode_frames(execute_frame)[0][0]), 2000),
            best_us(lambda: encode_frame(DcInitial(7, "1", [DcText(BIG)], None).to_wire()), 20),
            best_us(lambda: DcInitial.from_wire(decode_frames(big_frame)[0][0]), 20),
        ),
        "pydantic 2 models": (
            best_us(p_execute_encode, 2000),
            best_us(lambda: PRequest.model_validate_json(execute_frame[4:]), 2000),
            best_us(p_big_encode, 20),
            best_us(lambda: PInitial.model_validate_json(big_frame[4:]), 20),
        ),
    }
    print(f"{'candidate':28} {'execute enc':>12} {'execute dec':>12} {'1 MB enc':>12} {'1 MB dec':>12}  (us)")
    for name, values in rows.items():
        print(f"{name:28} " + " ".join(f"{v:12.1f}" for v in values))


if __name__ == "__main__":
    main()
