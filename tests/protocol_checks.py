"""Checks of the Jupyter protocol shared by the kernel tests and the end-to-end tests: a slow
second IOPub subscriber (does the kernel drop messages for a subscriber that reads slowly?) and
Python tools whose texts hold lone surrogates (does every message still leave?)."""

from __future__ import annotations

import base64
from typing import Any

WAIT_S = 60
"""Upper bound (seconds) for one wait on the kernel."""


SURROGATE_TOOLS = '''

@codemode.tool
def print_surrogate() -> str:
    """Prints lines holding lone surrogates on stdout and stderr, then returns ok."""
    print("printed \\udfff here", flush=True)
    print("warned \\ud800 here", file=sys.stderr, flush=True)
    return "ok"


@codemode.tool
def doc_surrogate() -> str:
    """Docstring with a lone surrogate \\udfff in it."""
    return "ok"
'''
"""Source of two Python tools whose texts hold lone surrogates: ``print_surrogate`` prints
``"printed \\udfff here"`` (stdout) and ``"warned \\ud800 here"`` (stderr) and returns ``"ok"``;
``doc_surrogate``'s description holds ``\\udfff`` (a tool module with ``sys`` and ``codemode``
imported appends it)."""


FLOOD_PAYLOAD = base64.b64encode(bytes(range(256)) * 32).decode()
"""The base64 of an 8 KiB "PNG" for :func:`display_flood`."""


def display_flood(count: int) -> str:
    """A cell that shows ``count`` images of :data:`FLOOD_PAYLOAD`, one ``display_data`` each
    (8 KiB each, more than the sockets' buffers hold for a slow reader)."""
    return (
        '// @exec: {"max_output_tokens": 1000000}\n'
        f'const url = "data:image/png;base64,{FLOOD_PAYLOAD}";\n'
        f"for (let i = 0; i < {count}; i++) image(url);"
    )


class SlowSubscriber:
    """A second IOPub subscriber that reads slowly: a raw ZeroMQ SUB socket with a receive
    high-water mark of one message and a small socket buffer, sleeping ``delay_s`` after each
    message (a busy frontend). :meth:`messages_until_idle` returns what it received for one
    request, in order."""

    def __init__(self, kernel: Any, delay_s: float) -> None:
        import zmq
        from jupyter_client.session import Session

        info = kernel.kc.get_connection_info()
        self._session = Session(key=info["key"], signature_scheme=info["signature_scheme"])
        self._context = zmq.Context()
        self._socket = self._context.socket(zmq.SUB)
        self._socket.setsockopt(zmq.RCVHWM, 1)
        self._socket.setsockopt(zmq.RCVBUF, 4096)
        self._socket.setsockopt(zmq.SUBSCRIBE, b"")
        self._socket.connect(f"{info['transport']}://{info['ip']}:{info['iopub_port']}")
        self._delay_s = delay_s

    def wait_subscribed(self, kc: Any) -> None:
        """Return once this subscriber receives IOPub messages (a kernel_info round trip's
        status messages reach it only after its subscription is in place)."""
        import zmq

        while True:
            kc.kernel_info()
            kc.get_shell_msg(timeout=WAIT_S)
            if self._socket.poll(1000, zmq.POLLIN):
                while self._socket.poll(200, zmq.POLLIN):
                    self._socket.recv_multipart()
                return

    def start(self, msg_id: str) -> None:
        """Read the messages of ``msg_id`` in a background thread (see :meth:`result`)."""
        import threading

        self._result: list[dict[str, Any]] | BaseException = []

        def run() -> None:
            try:
                self._result = self.messages_until_idle(msg_id)
            except BaseException as exc:  # handed to result()
                self._result = exc

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()

    def result(self, timeout: float = 300) -> list[dict[str, Any]]:
        """What the thread of :meth:`start` received (raises what it raised)."""
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the slow subscriber is still reading"
        if isinstance(self._result, BaseException):
            raise self._result
        return self._result

    def messages_until_idle(self, msg_id: str, timeout: float = 300) -> list[dict[str, Any]]:
        """The IOPub output messages of request ``msg_id`` (no status or execute_input) up
        to its idle status."""
        import time

        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self._socket.poll(int(WAIT_S * 1000)):
                break
            frames = self._socket.recv_multipart()
            time.sleep(self._delay_s)
            _, rest = self._session.feed_identities(frames)
            msg = self._session.deserialize(rest)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                return seen
            if msg["msg_type"] not in ("status", "execute_input"):
                seen.append(msg)
        raise AssertionError(f"no idle status for {msg_id} within {timeout} s; got {len(seen)} messages")

    def close(self) -> None:
        self._socket.close(linger=0)
        self._context.term()
