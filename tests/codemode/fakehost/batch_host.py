"""A fake code-mode host that sends a cell's frames in batches, each in ONE write:
``python batch_host.py``, or as ``CODEMODE_HOST_BIN`` (it ignores its arguments).

A cell's source is its script: a JSON list of batches, each a list of steps. The first batch
is the answer to the execute, written at once; each later batch answers the next
``session/wait`` on the cell. Steps:

- ``started``: the execute's ``execution/started`` (cell ids are ``1, 2, …`` per session);
- ``yield:T`` / ``result:T``: a ``Yielded`` / ``Result`` with the text ``T``, as the
  ``execute/initialResponse`` in the first batch, else as the wait's answer;
- ``notify:T``: a ``notification/send`` delegate request with the text ``T``;
- ``tool:NAME``: a ``tool/invoke`` delegate request for the tool ``NAME`` with ``{}``;
- ``stored``: a ``session/storedValues`` frame (``{"k": 1}``);
- ``closed``: ``cell/closed``;
- ``hold`` (a batch of its own): the wait is not answered until an ``operation/yield`` for it.

A wait with no batch left is held too. An ``operation/yield`` answers the held wait with an
empty ``Yielded``; a terminate is answered with ``Terminated`` (then ``cell/closed``). Anything else the client
sends (delegate responses, cancels) is read and ignored.
"""

from __future__ import annotations

import json
import select
import sys

from codemode.wire import messages
from codemode.wire.framing import BINDINGS_CAPABILITY, CAPABILITIES, RAW_TEXT_CAPABILITY, decode_frames, encode_frame


class Cell:
    def __init__(self, session: str, cell_id: str, batches: list[list[str]]) -> None:
        self.session = session
        self.cell_id = cell_id
        self.batches = batches
        self.held_wait: int | None = None


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    buffer = b""
    counts: dict[str, int] = {}
    cells: dict[tuple[str, str], Cell] = {}
    delegate_ids = iter(range(1, 1 << 30))

    def write(frames: list[object]) -> None:
        stdout.write(b"".join(encode_frame(frame) for frame in frames))
        stdout.flush()

    def batch(cell: Cell, steps: list[str], execute_id: int | None, wait_id: int | None) -> list[object]:
        frames: list[object] = []
        for step in steps:
            kind, _, arg = step.partition(":")
            if kind == "started":
                assert execute_id is not None
                frames.append(
                    messages.operation_response(execute_id, messages.ok(messages.execution_started(cell.cell_id)))
                )
            elif kind in ("yield", "result"):
                items = [messages.input_text(arg)]
                response = (
                    messages.yielded(cell.cell_id, items)
                    if kind == "yield"
                    else messages.result(cell.cell_id, items, None)
                )
                if execute_id is not None:
                    frames.append(messages.initial_response(execute_id, messages.ok(response)))
                    execute_id = None
                else:
                    assert wait_id is not None
                    outcome = messages.wait_completed(messages.live_cell(response))
                    frames.append(messages.operation_response(wait_id, messages.ok(outcome)))
            elif kind == "notify":
                delegate_id = next(delegate_ids)
                frames.append(
                    messages.notification_send(delegate_id, cell.session, f"call-{delegate_id}", cell.cell_id, arg)
                )
            elif kind == "tool":
                delegate_id = next(delegate_ids)
                invocation = {
                    "cell_id": cell.cell_id,
                    "runtime_tool_call_id": f"tool-{delegate_id}",
                    "tool_name": {"name": arg, "namespace": None},
                    "tool_kind": "function",
                    "input": {},
                }
                frames.append(messages.tool_invoke(delegate_id, cell.session, invocation))  # type: ignore[arg-type]
            elif kind == "stored":
                frames.append(messages.stored_values(cell.session, {"k": 1}))
            elif kind == "closed":
                frames.append(messages.cell_closed(cell.session, cell.cell_id))
        return frames

    while True:
        select.select([stdin], [], [])
        chunk = stdin.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            return 0
        frames, buffer = decode_frames(buffer + chunk)
        for frame in frames:
            kind = frame.get("type")
            if kind == "connection/hello":
                write(
                    [
                        messages.ready(
                            1, [c for c in CAPABILITIES if c not in (RAW_TEXT_CAPABILITY, BINDINGS_CAPABILITY)]
                        )
                    ]
                )
                continue
            if kind == "operation/yield":
                for cell in cells.values():
                    if cell.held_wait == frame["id"]:
                        outcome = messages.wait_completed(messages.live_cell(messages.yielded(cell.cell_id, [])))
                        write([messages.operation_response(frame["id"], messages.ok(outcome))])
                        cell.held_wait = None
                continue
            if kind != "operation/request":
                continue
            request_id, body = frame["id"], frame["request"]
            method, session = body["method"], body["sessionId"]
            if method == "session/open":
                write([messages.operation_response(request_id, messages.ok(messages.session_ready(session)))])
            elif method == "session/execute":
                counts[session] = counts.get(session, 0) + 1
                batches = json.loads(body["request"]["source"])
                cell = cells[(session, str(counts[session]))] = Cell(session, str(counts[session]), batches)
                write(batch(cell, cell.batches.pop(0), request_id, None))
            elif method == "session/wait":
                cell = cells[(session, body["request"]["cell_id"])]
                steps = cell.batches.pop(0) if cell.batches else ["hold"]
                if steps == ["hold"]:
                    cell.held_wait = request_id
                else:
                    write(batch(cell, steps, None, request_id))
            elif method == "session/terminate":
                cell = cells[(session, body["cellId"])]
                outcome = messages.live_cell(messages.terminated(cell.cell_id, []))
                write(
                    [
                        messages.operation_response(request_id, messages.ok(messages.wait_completed(outcome))),
                        messages.cell_closed(session, cell.cell_id),
                    ]
                )
            elif method == "session/shutdown":
                write([messages.operation_response(request_id, messages.ok(messages.session_closed(session)))])


if __name__ == "__main__":
    sys.exit(main())
