"""A scripted code-mode host for client tests: ``python scripted_host.py MODE``.

Speaks the protocol on stdin/stdout with :mod:`codemode.wire.framing` and :mod:`codemode.wire.messages`.
Cells are ids ``1, 2, …`` that run until terminated; an execute answers ``execution/started``
and an initial ``Yielded``; a wait answers ``Yielded`` at once; a wait on an unknown session
answers ``unknown code-mode session <id>`` (the liveness probe). Modes:

- ``exit-notice``: a terminate is answered with ``host/exiting``, then ``Terminated`` and
  ``cell/closed``; the host exits 1 s later (as our host does when it cannot stop a cell);
- ``block-after-open``: once a session is open, the host blocks its only thread (it reads
  and answers nothing more, like a host whose event loop is stuck).
"""

from __future__ import annotations

import select
import sys
import time

from codemode.wire import messages
from codemode.wire.framing import CAPABILITIES, decode_frames, encode_frame


def main() -> int:
    mode = sys.argv[1]
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    buffer = b""
    cells: dict[str, int] = {}
    exit_at: float | None = None

    def send(message: object) -> None:
        stdout.write(encode_frame(message))
        stdout.flush()

    while True:
        timeout = None if exit_at is None else exit_at - time.monotonic()
        if timeout is not None and timeout <= 0:
            return 0
        if not select.select([stdin], [], [], timeout)[0]:
            continue
        chunk = stdin.read1(65536)  # type: ignore[attr-defined]
        if not chunk:
            if exit_at is not None:
                time.sleep(max(0.0, exit_at - time.monotonic()))
            return 0
        frames, buffer = decode_frames(buffer + chunk)
        for frame in frames:
            kind = frame.get("type")
            if kind == "connection/hello":
                send(messages.ready(1, list(CAPABILITIES)))
                continue
            if kind != "operation/request":
                continue
            request_id, body = frame["id"], frame["request"]
            method, session = body["method"], body["sessionId"]
            if method == "session/open":
                send(messages.operation_response(request_id, messages.ok(messages.session_ready(session))))
                if mode == "block-after-open":
                    time.sleep(3600)
            elif method == "session/execute":
                cells[session] = cells.get(session, 0) + 1
                cell = str(cells[session])
                send(messages.operation_response(request_id, messages.ok(messages.execution_started(cell))))
                send(messages.initial_response(request_id, messages.ok(messages.yielded(cell, []))))
            elif method == "session/wait":
                cell = body["request"]["cell_id"]
                if session not in cells:
                    result = messages.error(f"unknown code-mode session {session}")
                else:
                    result = messages.ok(messages.wait_completed(messages.live_cell(messages.yielded(cell, []))))
                send(messages.operation_response(request_id, result))
            elif method == "session/terminate":
                cell = body["cellId"]
                if mode == "exit-notice":
                    send(messages.host_exiting(f"cell {cell} could not be stopped"))
                    exit_at = time.monotonic() + 1.0
                outcome = messages.live_cell(messages.terminated(cell, [messages.input_text("stopped")]))
                send(messages.operation_response(request_id, messages.ok(messages.wait_completed(outcome))))
                send(messages.cell_closed(session, cell))
            elif method == "session/shutdown":
                send(messages.operation_response(request_id, messages.ok(messages.session_closed(session))))


if __name__ == "__main__":
    sys.exit(main())
