"""rt_client: a small asynchronous client of ``codemode-host`` for the runtime tests.

The host runs as a subprocess (``python -m codemode.runtime``) and is driven over the
real protocol (4-byte LE length + JSON frames on stdin/stdout). The client answers
delegate requests with the async tool functions given to it, records notifications,
``delegate/cancel`` ids, ``cell/closed`` and ``session/storedValues`` messages, and
exposes small helpers for open / execute / wait / terminate / shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import json
import os
import struct
import sys
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from codemode.wire import messages
from codemode.wire.framing import CAPABILITIES, RAW_TEXT_CAPABILITY, read_attached_payload, read_frame
from codemode.wire.raw_text import RAW_MEMBER, put_back

ToolFn = Callable[[Any], Awaitable[Any]]


class ToolFailure(Exception):
    """Raised by a test tool: answered as ``{"status": "error", "message": str(exc)}``."""


async def echo_tool(value: Any) -> Any:
    """Returns its input."""
    return value


async def sleep_tool(value: Any) -> Any:
    """Sleeps ``value["ms"]`` milliseconds."""
    await asyncio.sleep(value["ms"] / 1000)
    return {"slept_ms": value["ms"]}


async def fail_tool(value: Any) -> Any:
    """Always fails with ``message`` (default ``tool failed on purpose``)."""
    message = (
        (value or {}).get("message", "tool failed on purpose") if isinstance(value, dict) else "tool failed on purpose"
    )
    raise ToolFailure(message)


DEFAULT_TOOLS: dict[str, ToolFn] = {"echo": echo_tool, "sleep": sleep_tool, "fail": fail_tool}


def tool_def(
    name: str,
    *,
    namespace: str | None = None,
    wire_name: str | None = None,
    kind: str = "function",
    description: str = "",
) -> dict[str, Any]:
    """An ``enabled_tools`` entry as Codex sends it."""
    return {
        "name": name,
        "tool_name": {"name": wire_name if wire_name is not None else name, "namespace": namespace},
        "description": description or f"{name} tool",
        "kind": kind,
        "input_schema": {"type": "object"} if kind == "function" else None,
        "output_schema": None,
    }


@dataclass
class DelegateCall:
    """One tool/invoke or notification delegate request seen by the client."""

    id: int
    request: dict[str, Any]
    cancelled: bool = False
    answered: bool = False


@dataclass
class HostClient:
    """Drives one host subprocess over stdio."""

    process: asyncio.subprocess.Process
    tools: dict[str, ToolFn] = field(default_factory=lambda: dict(DEFAULT_TOOLS))
    notify_error: str | None = None
    answer_notifications: bool = True
    handshake: dict[str, Any] | None = None
    calls: list[DelegateCall] = field(default_factory=list)
    notifications: list[str] = field(default_factory=list)
    raw_texts: int = 0
    """How many strings the host sent beside their response (codemode-raw-text-v1)."""
    closed_cells: list[tuple[str, str]] = field(default_factory=list)
    stored_values: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    read_error: Exception | None = None
    _ids: itertools.count = field(default_factory=lambda: itertools.count(1))
    _responses: dict[int, asyncio.Future] = field(default_factory=dict)
    _initial: dict[int, asyncio.Future] = field(default_factory=dict)
    _tasks: dict[int, asyncio.Task] = field(default_factory=dict)
    _reader: asyncio.Task | None = None
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    _batch: list[bytes] | None = None

    # ---- transport -------------------------------------------------------------

    def send(self, message: dict[str, Any]) -> None:
        """Write one frame to the host (JSON with ASCII escapes, so any ``str`` makes a valid frame)."""
        assert self.process.stdin is not None
        payload = json.dumps(message, separators=(",", ":")).encode("ascii")
        if self._batch is not None:
            self._batch.append(frame_header(len(payload)) + payload)
        else:
            self.process.stdin.write(frame_header(len(payload)) + payload)

    @contextlib.contextmanager
    def one_write(self) -> Iterator[None]:
        """Frames sent inside the block reach the host's stdin in one write, so the host reads
        them in one batch (a pipe write of up to 64 KiB is atomic)."""
        self._batch = []
        try:
            yield
        finally:
            frames, self._batch = b"".join(self._batch), None
            assert self.process.stdin is not None
            self.process.stdin.write(frames)

    def send_raw(self, data: bytes) -> None:
        """Write raw bytes (for malformed-frame tests)."""
        assert self.process.stdin is not None
        self.process.stdin.write(data)

    async def recv(self) -> dict[str, Any] | None:
        """Read one frame (only before the reader task runs)."""
        assert self.process.stdout is not None
        return await read_frame(self.process.stdout)

    async def hello(
        self, versions: list[int] | None = None, required: list[str] | None = None, optional: list[str] | None = None
    ) -> dict[str, Any] | None:
        """Send ``connection/hello``; start the reader when the host is ready."""
        self.send(
            messages.hello(
                [1] if versions is None else versions, list(CAPABILITIES) if optional is None else optional, required
            )
        )
        self.handshake = await self.recv()
        if self.handshake and self.handshake.get("type") == "connection/ready":
            self._reader = asyncio.create_task(self._read_loop())
        return self.handshake

    def _granted(self, capability: str) -> bool:
        return capability in ((self.handshake or {}).get("capabilities") or [])

    async def _read_loop(self) -> None:
        assert self.process.stdout is not None
        while True:
            try:
                message = await read_frame(self.process.stdout)
                if message is not None and RAW_MEMBER in message and self._granted(RAW_TEXT_CAPABILITY):
                    self.raw_texts += len(message[RAW_MEMBER])
                    message = await put_back(message, functools.partial(read_attached_payload, self.process.stdout))
            except Exception as exc:  # noqa: BLE001 - the test sees the failure through futures
                self.read_error = exc
                message = None
            if message is None:
                for fut in list(self._responses.values()) + list(self._initial.values()):
                    if not fut.done():
                        fut.set_exception(ConnectionError("host closed its stdout"))
                return
            self.events.append(message)
            kind = message.get("type")
            if kind == "operation/response":
                fut = self._responses.get(message["id"])
                if fut is not None and not fut.done():
                    fut.set_result(message["result"])
            elif kind == "execute/initialResponse":
                fut = self._initial.setdefault(message["id"], asyncio.get_running_loop().create_future())
                if not fut.done():
                    fut.set_result(message["result"])
            elif kind == "delegate/request":
                self._on_delegate(message)
            elif kind == "delegate/cancel":
                for call in self.calls:
                    if call.id == message["id"]:
                        call.cancelled = True
                task = self._tasks.pop(message["id"], None)
                if task is not None:
                    task.cancel()
            elif kind == "cell/closed":
                self.closed_cells.append((message["sessionId"], message["cellId"]))
            elif kind == "session/storedValues":
                self.stored_values.append(message)
            async with self._changed:
                self._changed.notify_all()

    def answer_notification(self, delegate_id: int) -> None:
        """Answer one notification (for a client started with ``answer_notifications`` off)."""
        self.send(messages.delegate_response(delegate_id, messages.notification_delivered()))

    def _on_delegate(self, message: dict[str, Any]) -> None:
        call = DelegateCall(message["id"], message["request"])
        self.calls.append(call)
        request = message["request"]
        if request["type"] == "notification/send":
            self.notifications.append(request["text"])
            if not self.answer_notifications:
                return
            if self.notify_error is not None:
                result = messages.error(self.notify_error)
            else:
                result = messages.notification_delivered()
            self.send(messages.delegate_response(message["id"], result))
            return
        invocation = request["invocation"]
        name = invocation["tool_name"]["name"]
        self._tasks[message["id"]] = asyncio.create_task(self._run_tool(call, name, invocation["input"]))

    async def _run_tool(self, call: DelegateCall, name: str, tool_input: Any) -> None:
        fn = self.tools.get(name, echo_tool)
        try:
            value = await fn(tool_input)
            result = messages.tool_result(value)
        except ToolFailure as exc:
            result = messages.error(str(exc))
        except asyncio.CancelledError:
            return
        self._tasks.pop(call.id, None)
        if not call.cancelled:
            call.answered = True
            self.send(messages.delegate_response(call.id, result))

    async def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        """Wait until ``predicate()`` holds after some message arrived."""

        async def _wait() -> None:
            async with self._changed:
                await self._changed.wait_for(predicate)

        await asyncio.wait_for(_wait(), timeout)

    # ---- requests ---------------------------------------------------------------

    def start_request(self, request: dict[str, Any], request_id: int | None = None) -> tuple[int, asyncio.Future]:
        """Send an ``operation/request``; returns its id and the response future."""
        rid = next(self._ids) if request_id is None else request_id
        fut = asyncio.get_running_loop().create_future()
        self._responses[rid] = fut
        self.send(messages.operation_request(rid, request))  # any body, malformed ones too
        return rid, fut

    async def request(self, request: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """Send a request and await its ``result``."""
        _, fut = self.start_request(request)
        return await asyncio.wait_for(fut, timeout)

    async def open(self, session_id: str = "s1", **fields: Any) -> dict[str, Any]:
        """``session/open``; extra fields go into the request as given."""
        return await self.request({"method": "session/open", "sessionId": session_id, **fields})

    def start_execute(
        self,
        source: str,
        *,
        session_id: str = "s1",
        tools: list[dict[str, Any]] | None = None,
        yield_time_ms: int | None = None,
        max_output_tokens: int | None = None,
        tool_call_id: str = "call-1",
    ) -> tuple[int, asyncio.Future, asyncio.Future]:
        """Send ``session/execute``; returns (id, started future, initial response future)."""
        request = {
            "method": "session/execute",
            "sessionId": session_id,
            "request": {
                "tool_call_id": tool_call_id,
                "enabled_tools": tools if tools is not None else [tool_def(n) for n in ("echo", "sleep", "fail")],
                "source": source,
                "yield_time_ms": yield_time_ms,
                "max_output_tokens": max_output_tokens,
            },
        }
        rid, started = self.start_request(request)
        initial = self._initial.setdefault(rid, asyncio.get_running_loop().create_future())
        return rid, started, initial

    async def execute(self, source: str, **kwargs: Any) -> tuple[str, dict[str, Any]]:
        """Execute and return (cell id, initial runtime response, unwrapped)."""
        _, started, initial = self.start_execute(source, **kwargs)
        result = await asyncio.wait_for(started, 30)
        assert result["status"] == "ok", result
        cell_id = result["value"]["cellId"]
        first = await asyncio.wait_for(initial, 30)
        assert first["status"] == "ok", first
        return cell_id, first["value"]

    def start_wait(
        self, cell_id: str, yield_time_ms: int = 5000, *, session_id: str = "s1", max_output_tokens: int | None = None
    ) -> asyncio.Future:
        """Send ``session/wait`` (written before this returns); returns the response future."""
        request: dict[str, Any] = {
            "method": "session/wait",
            "sessionId": session_id,
            "request": {"cell_id": cell_id, "yield_time_ms": yield_time_ms},
        }
        if max_output_tokens is not None:
            request["maxOutputTokens"] = max_output_tokens
        return self.start_request(request)[1]

    async def wait(
        self, cell_id: str, yield_time_ms: int = 5000, *, session_id: str = "s1", max_output_tokens: int | None = None
    ) -> dict[str, Any]:
        """``session/wait``; returns the ``wait/completed`` outcome (or the error result)."""
        pending = self.start_wait(cell_id, yield_time_ms, session_id=session_id, max_output_tokens=max_output_tokens)
        result = await asyncio.wait_for(pending, 30.0)
        return result["value"]["outcome"] if result["status"] == "ok" else result

    async def terminate(self, cell_id: str, *, session_id: str = "s1") -> dict[str, Any]:
        """``session/terminate``; returns the outcome (or the error result)."""
        result = await self.request({"method": "session/terminate", "sessionId": session_id, "cellId": cell_id})
        return result["value"]["outcome"] if result["status"] == "ok" else result

    async def run(self, source: str, **kwargs: Any) -> dict[str, Any]:
        """Execute and wait until the cell finishes; returns the final unwrapped response."""
        cell_id, response = await self.execute(source, **kwargs)
        session_id = kwargs.get("session_id", "s1")
        while "Yielded" in response:
            outcome = await self.wait(cell_id, 5000, session_id=session_id)
            response = outcome["LiveCell"]
        return response

    async def close(self) -> int:
        """Close stdin and wait for the host to exit; returns its status."""
        if self.process.stdin is not None and not self.process.stdin.is_closing():
            self.process.stdin.close()
        try:
            return await asyncio.wait_for(self.process.wait(), 15)
        except TimeoutError:
            self.process.kill()
            return await self.process.wait()


async def start_host(
    program: str | None = None, env: dict[str, str] | None = None, engine: str | None = None, profile: str | None = None
) -> HostClient:
    """Spawn ``python -m codemode.runtime --listen stdio`` (or ``program --listen stdio``).

    ``engine``: ``--engine`` for our host (``quickjs`` when None); ``profile``: ``--profile``
    (``strict`` when None).
    """
    command = [program] if program else [sys.executable, "-m", "codemode.runtime"]
    if engine is not None:
        command += ["--engine", engine]
    if profile is not None:
        command += ["--profile", profile]
    process = await asyncio.create_subprocess_exec(
        *command,
        "--listen",
        "stdio",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        limit=2**31 - 1,
    )
    return HostClient(process)


def text_items(response: dict[str, Any]) -> list[str]:
    """The texts of an unwrapped runtime response (``{"Result": {...}}``)."""
    (body,) = response.values()
    return [item["text"] for item in body["content_items"] if item["type"] == "input_text"]


def without_duration(response: dict[str, Any]) -> dict[str, Any]:
    """An externally tagged response without ``code_mode_host_duration_ns`` (the one field that varies)."""
    ((kind, body),) = response.items()
    return {kind: {k: v for k, v in body.items() if k != "code_mode_host_duration_ns"}}


def body_of(response: dict[str, Any]) -> dict[str, Any]:
    """The body of an externally tagged runtime response."""
    (body,) = response.values()
    return body


def frame_header(length: int) -> bytes:
    """A 4-byte little-endian frame length prefix."""
    return struct.pack("<I", length)
