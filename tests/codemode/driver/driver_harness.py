"""A scripted fake host for :class:`codemode.host.HostConnection`.

Codex's driver tests (``codex-rs/code-mode/src/remote_session/connection/driver_tests.rs``) talk to the connection driver through
two channels: host messages in, encoded frames out. This harness does the same with real
frames: :meth:`DriverHarness.send` feeds an encoded frame into the connection's reader, and the
connection's writer is a :class:`FrameSink` that decodes what the client writes into a queue.
Tokio's paused time becomes a short ``wait_transport_timeout_s`` (the deadline arithmetic itself
is checked separately against the 60 s default).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

from codemode.cancellation import CancellationToken
from codemode.cell_events import Closed, Notification, SessionEvent
from codemode.errors import ToolCallError
from codemode.host import WAIT_TRANSPORT_TIMEOUT_S, HostConnection
from codemode.responses import RuntimeResponse, WaitOutcome
from codemode.wire.framing import CAPABILITIES, decode_frames, encode_frame

SESSION = "session-1"
FRAME_TIMEOUT_S = 5.0
"""Bound on every wait for a frame or an event: a missing frame fails the test, never hangs it."""


class FrameSink:
    """The client's side of the host's stdin: decodes written frames into :attr:`frames`.

    :meth:`stall` makes ``drain`` block (a host that stopped reading) until :meth:`unstall`
    or :meth:`close`; ``closed`` tells whether the client tore the connection down.
    """

    def __init__(self) -> None:
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._buffer = b""
        self.closed = False
        self._flowing = asyncio.Event()
        self._flowing.set()

    def write(self, data: bytes) -> None:
        if self.closed:
            raise ConnectionResetError("fake host stdin is closed")
        self._buffer += data
        messages, self._buffer = decode_frames(self._buffer)
        for message in messages:
            self.frames.put_nowait(message)

    async def drain(self) -> None:
        await self._flowing.wait()
        if self.closed:
            raise ConnectionResetError("fake host stdin is closed")

    def stall(self) -> None:
        self._flowing.clear()

    def unstall(self) -> None:
        self._flowing.set()

    def close(self) -> None:
        self.closed = True
        self._flowing.set()

    def is_closing(self) -> bool:
        return self.closed


class DriverHarness:
    """One :class:`HostConnection` wired to a fake host; see the module docstring."""

    def __init__(
        self, *, wait_transport_timeout_s: float = WAIT_TRANSPORT_TIMEOUT_S, capabilities: list[str] | None = None
    ) -> None:
        self.reader = asyncio.StreamReader()
        self.sink = FrameSink()
        self.connection = HostConnection(
            self.reader,
            self.sink,
            capabilities=list(CAPABILITIES) if capabilities is None else capabilities,
            wait_transport_timeout_s=wait_transport_timeout_s,
        )
        self.connection.start()
        self._fence_id = 1_000_000_000

    async def __aenter__(self) -> DriverHarness:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.connection.close()

    # -- wire ---------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        """Deliver one host message to the client (as a frame on its stdout)."""
        self.reader.feed_data(encode_frame(message))

    async def next_frame(self, timeout: float = FRAME_TIMEOUT_S) -> dict[str, Any]:
        """The next message the client wrote."""
        return await asyncio.wait_for(self.sink.frames.get(), timeout)

    async def assert_no_frame(self) -> None:
        """Assert the client wrote nothing else: a delegate request for an unknown session
        is answered at once, so its answer must be the very next frame."""
        self._fence_id += 1
        self.send(
            {
                "type": "delegate/request",
                "id": self._fence_id,
                "sessionId": "fence-session",
                "request": {"type": "notification/send", "callId": "fence", "cellId": "1", "text": ""},
            }
        )
        frame = await self.next_frame()
        assert frame["type"] == "delegate/response" and frame["id"] == self._fence_id, f"unexpected frame {frame!r}"

    async def assert_no_frame_or_dead(self) -> None:
        """Return once the connection is dead, or once a fence request got its answer (the
        frames before it are discarded). For property tests where either outcome is fine."""
        if not self.connection.alive:
            return
        self._fence_id += 1
        fence = self._fence_id
        self.send(
            {
                "type": "delegate/request",
                "id": fence,
                "sessionId": "fence-session",
                "request": {"type": "notification/send", "callId": "fence", "cellId": "1", "text": ""},
            }
        )
        dead = asyncio.ensure_future(self.connection.closed.wait())
        try:
            while True:
                frame = asyncio.ensure_future(self.sink.frames.get())
                done, _ = await asyncio.wait({frame, dead}, return_when=asyncio.FIRST_COMPLETED)
                if frame not in done:
                    frame.cancel()
                    return
                message = frame.result()
                if message.get("type") == "delegate/response" and message.get("id") == fence:
                    return
        finally:
            dead.cancel()

    def respond(self, request_id: int, value: dict[str, Any]) -> None:
        self.send({"type": "operation/response", "id": request_id, "result": {"status": "ok", "value": value}})

    def respond_error(self, request_id: int, message: str) -> None:
        self.send({"type": "operation/response", "id": request_id, "result": {"status": "error", "message": message}})

    def started(self, request_id: int, cell_id: str) -> None:
        self.respond(request_id, {"type": "execution/started", "cellId": cell_id})

    def initial(self, request_id: int, kind: str, cell_id: str) -> None:
        self.send(
            {
                "type": "execute/initialResponse",
                "id": request_id,
                "result": {"status": "ok", "value": runtime_response(kind, cell_id)},
            }
        )

    def wait_completed(self, request_id: int, kind: str, cell_id: str, *, live: bool = True) -> None:
        outcome = {"LiveCell" if live else "MissingCell": runtime_response(kind, cell_id)}
        self.respond(request_id, {"type": "wait/completed", "outcome": outcome})

    def cell_closed(self, cell_id: str, session_id: str = SESSION) -> None:
        self.send({"type": "cell/closed", "sessionId": session_id, "cellId": cell_id})

    def delegate_cancel(self, delegate_id: int) -> None:
        self.send({"type": "delegate/cancel", "id": delegate_id})

    def tool_delegate(self, delegate_id: int, cell_id: str = "1", session_id: str = SESSION) -> None:
        self.send(
            {
                "type": "delegate/request",
                "id": delegate_id,
                "sessionId": session_id,
                "request": {
                    "type": "tool/invoke",
                    "invocation": {
                        "cell_id": cell_id,
                        "runtime_tool_call_id": "tool-1",
                        "tool_name": {"name": "slow", "namespace": None},
                        "tool_kind": "function",
                        "input": None,
                    },
                },
            }
        )

    def notify_delegate(self, delegate_id: int, cell_id: str, text: str = "hello", session_id: str = SESSION) -> None:
        self.send(
            {
                "type": "delegate/request",
                "id": delegate_id,
                "sessionId": session_id,
                "request": {
                    "type": "notification/send",
                    "callId": f"notify-{cell_id}",
                    "cellId": cell_id,
                    "text": text,
                },
            }
        )

    # -- steps ----------------------------------------------------------------------
    async def open(self, delegate: Any, session_id: str = SESSION) -> None:
        """Open ``session_id`` (request id 1 on a fresh connection) with ``delegate``."""
        task = asyncio.ensure_future(self.connection.open_session(session_id, delegate))
        frame = await self.next_frame()
        assert frame["request"]["method"] == "session/open"
        self.respond(frame["id"], {"type": "session/ready", "sessionId": session_id})
        await asyncio.wait_for(task, FRAME_TIMEOUT_S)

    def execute_task(
        self, session_id: str = SESSION, source: str = "await new Promise(() => {})", tool_call_id: str = "call"
    ) -> asyncio.Task:
        request = {
            "tool_call_id": tool_call_id,
            "enabled_tools": [],
            "source": source,
            "yield_time_ms": 1,
            "max_output_tokens": None,
        }
        return asyncio.ensure_future(self.connection.execute(session_id, request))

    async def start_cell(self, request_id: int, cell_id: str, session_id: str = SESSION) -> asyncio.Future:
        """Execute a cell the host admits as ``cell_id``; returns its initial-response future."""
        task = self.execute_task(session_id, tool_call_id=f"call-{request_id}")
        frame = await self.next_frame()
        assert (frame["id"], frame["request"]["method"]) == (request_id, "session/execute")
        self.started(request_id, cell_id)
        admitted, initial = await asyncio.wait_for(task, FRAME_TIMEOUT_S)
        assert admitted == cell_id
        return initial


def runtime_response(kind: str, cell_id: str) -> dict[str, Any]:
    body: dict[str, Any] = {"code_mode_host_duration_ns": 0, "cell_id": cell_id, "content_items": []}
    if kind == "Result":
        body["error_text"] = None
    return {kind: body}


class _Changes:
    def __init__(self) -> None:
        self._changed = asyncio.Event()

    def changed(self) -> None:
        self._changed.set()

    async def until(self, predicate: Any, timeout: float = FRAME_TIMEOUT_S) -> None:
        """Return once ``predicate()`` holds, re-checking on every recorded change."""
        async with asyncio.timeout(timeout):
            while not predicate():
                self._changed.clear()
                await self._changed.wait()


class RecordingDelegate(_Changes):
    """Counts calls; tool calls end (rejected) once cancelled, like the Rust fake."""

    def __init__(self) -> None:
        super().__init__()
        self.closed_cells: list[str] = []
        self.invocations = 0
        self.tool_calls_ended = 0
        self.notifications: Counter[str] = Counter()

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        self.invocations += 1
        self.changed()
        try:
            await cancellation.wait()
            raise ToolCallError("cancelled")
        finally:
            self.tool_calls_ended += 1
            self.changed()

    def report(self, event: SessionEvent) -> None:
        if isinstance(event, Notification):
            self.notifications[event.cell_id] += 1
        elif isinstance(event, Closed):
            self.closed_cells.append(event.cell_id)
        self.changed()


class HeldDelegate:
    """A tool call that reports ``started``, then ``cancelled`` when its token fires, then
    ``finished`` only after :attr:`release` is cancelled. Cell closes appear as
    ``("closed", cell_id)`` in the same event queue."""

    def __init__(self) -> None:
        self.events: asyncio.Queue[Any] = asyncio.Queue()
        self.release = CancellationToken()

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        self.events.put_nowait("started")
        await cancellation.wait()
        self.events.put_nowait("cancelled")
        await self.release.wait()
        self.events.put_nowait("finished")
        raise ToolCallError("cancelled")

    def report(self, event: SessionEvent) -> None:
        if isinstance(event, Closed):
            self.events.put_nowait(("closed", event.cell_id))

    async def next_event(self) -> Any:
        return await asyncio.wait_for(self.events.get(), 1.0)


class PanickingDelegate(RecordingDelegate):
    """A tool call whose handler crashes (Rust: the delegate task panics)."""

    async def invoke_tool(self, invocation: dict[str, Any], cancellation: CancellationToken) -> Any:
        raise RuntimeError("delegate panic probe")


# -- expectations shared by several tests ------------------------------------------------------


def terminated(cell_id: str) -> WaitOutcome:
    return WaitOutcome(live=True, response=RuntimeResponse(kind="Terminated", cell_id=cell_id))


async def expect_closed_before_cleanup(h: DriverHarness, delegate: HeldDelegate, call, answer) -> None:
    """The held delegate saw its cancellation and cell 1 closed; ``call`` answered ``answer``
    without waiting for the delegate's cleanup, which finishes only once released."""
    closure = {await delegate.next_event(), await delegate.next_event()}
    assert closure == {"cancelled", ("closed", "1")}
    assert await asyncio.wait_for(call, FRAME_TIMEOUT_S) == answer
    assert delegate.events.empty()

    delegate.release.cancel()
    assert await delegate.next_event() == "finished"
    assert delegate.events.empty()
    await h.assert_no_frame()
    assert h.connection.alive


async def expect_abandoned_execute_terminated(h: DriverHarness, delegate: RecordingDelegate) -> None:
    """Execute request 2 admitted cell 1 but its caller went away: the client cancels the
    request and terminates the cell, which then closes once."""
    assert await h.next_frame() == {"type": "operation/cancel", "id": 2}
    assert await h.next_frame() == {
        "type": "operation/request",
        "id": 3,
        "request": {"method": "session/terminate", "sessionId": SESSION, "cellId": "1"},
    }
    h.initial(2, "Terminated", "1")
    h.wait_completed(3, "Terminated", "1")
    h.cell_closed("1")
    await h.assert_no_frame()
    assert h.connection.alive
    assert delegate.closed_cells == ["1"]
    assert h.connection.pending_requests == 0
