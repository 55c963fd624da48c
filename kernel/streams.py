"""Coalescing ``stream`` output into few IOPub messages, as ipykernel's ``OutStream`` does.

One IOPub message per ``text()`` call made a 100 000-line cell send 100 000 messages: a slow
subscriber then lost some (ZeroMQ's high-water mark, see :mod:`codemode.kernel.app`) and a
Jupyter server stopped forwarding them ("IOPub message rate exceeded", its
``iopub_msg_rate_limit`` of 1000 messages per second). :class:`StreamCoalescer` keeps stream
text in order and sends consecutive text for the same request and stream name as one message
of at most :data:`MAX_MESSAGE_CHARS` characters (split after a newline where possible). It
sends what it holds when :meth:`flush` is called (the end of a delivery, before any other
message so the order of outputs is kept) and otherwise every :data:`FLUSH_INTERVAL_S`, like
ipykernel's ``OutStream.flush_interval``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

FLUSH_INTERVAL_S = 0.2
"""Longest time stream text waits before it is sent (ipykernel's ``flush_interval``)."""
MAX_MESSAGE_CHARS = 64 * 1024
"""Upper bound of the text of one ``stream`` message, in characters."""

Send = Callable[[str, dict[str, Any], dict[str, Any]], None]


@dataclass
class _Run:
    """Consecutive text for one request (``parent``) and stream ``name``."""

    parent: dict[str, Any]
    name: str
    parts: list[str] = field(default_factory=list)
    size: int = 0


def _msg_id(parent: dict[str, Any]) -> Any:
    return parent.get("header", {}).get("msg_id")


def chunks(text: str, limit: int = MAX_MESSAGE_CHARS) -> list[str]:
    """``text`` in pieces of at most ``limit`` characters, each ending after a newline where
    the piece has one (a longer line is split where the limit falls)."""
    pieces = []
    start = 0  # cut by index: slicing the rest off each time copied it, quadratic in the text
    while len(text) - start > limit:
        cut = text.rfind("\n", start, start + limit) + 1 or start + limit
        pieces.append(text[start:cut])
        start = cut
    if start < len(text):
        pieces.append(text[start:])
    return pieces


class StreamCoalescer:
    """Holds stream text until it is flushed (see the module docstring); ``send(msg_type,
    content, parent)`` publishes one message. Used on the kernel's event loop only."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self._runs: list[_Run] = []
        self._timer: asyncio.TimerHandle | None = None

    def write(self, parent: dict[str, Any], name: str, text: str) -> None:
        """Queue ``text`` for stream ``name`` under the request ``parent``."""
        if not text:
            return
        last = self._runs[-1] if self._runs else None
        if last is None or last.name != name or _msg_id(last.parent) != _msg_id(parent):
            last = _Run(parent, name)
            self._runs.append(last)
        last.parts.append(text)
        last.size += len(text)
        if last.size >= MAX_MESSAGE_CHARS:
            self.flush()
        elif self._timer is None:
            try:
                self._timer = asyncio.get_running_loop().call_later(FLUSH_INTERVAL_S, self.flush)
            except RuntimeError:  # no loop (tests, shutdown): send at once
                self.flush()

    def flush(self) -> None:
        """Send everything held, in order."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        runs, self._runs = self._runs, []
        for run in runs:
            for piece in chunks("".join(run.parts)):
                self._send("stream", {"name": run.name, "text": piece}, run.parent)


MESSAGE_BURST = 1000
"""Messages a delivery may send at once before :class:`Pacer` spreads the rest out."""
MESSAGES_PER_S = 500
"""Sustained message rate of a large delivery: half the Jupyter server's default
``iopub_msg_rate_limit`` (1000 per second, averaged over its 3 s ``rate_limit_window``)."""
STREAM_BYTES_BURST = 1_500_000
"""Stream text (UTF-8 bytes) a delivery may send at once."""
STREAM_BYTES_PER_S = 500_000
"""Sustained stream rate: half the Jupyter server's default ``iopub_data_rate_limit`` (1 MB/s)."""


class _Bucket:
    """A token bucket: ``capacity`` at once, refilled at ``rate`` per second."""

    def __init__(self, capacity: float, rate: float) -> None:
        self.capacity = capacity
        self.rate = rate
        self.level = capacity
        self.stamp = time.monotonic()

    def take(self, amount: float) -> float:
        """Take ``amount``; the seconds to wait before sending it (0 when it is there)."""
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now
        self.level -= amount
        return 0.0 if self.level >= 0 else -self.level / self.rate


class Pacer:
    """Spreads out a large delivery so that a Jupyter server between kernel and browser does
    not stop forwarding it ("IOPub message rate exceeded" / "IOPub data rate exceeded"):
    messages and stream bytes are drawn from token buckets (:data:`MESSAGE_BURST` at once,
    then :data:`MESSAGES_PER_S`; :data:`STREAM_BYTES_BURST`, then :data:`STREAM_BYTES_PER_S`).
    Small deliveries never wait."""

    def __init__(self) -> None:
        self._messages = _Bucket(MESSAGE_BURST, MESSAGES_PER_S)
        self._bytes = _Bucket(STREAM_BYTES_BURST, STREAM_BYTES_PER_S)

    def delay(self, msg_type: str, content: dict[str, Any]) -> float:
        """Seconds to wait before sending this message."""
        wait = self._messages.take(1)
        if msg_type == "stream":
            wait = max(wait, self._bytes.take(len(str(content.get("text", "")).encode("utf-8", "surrogatepass"))))
        return wait
