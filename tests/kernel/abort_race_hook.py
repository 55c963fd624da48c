"""Imported into a test kernel's process before the kernel starts (``start_kernel(preload=...)``):
holds ipykernel's "stop aborting" marker at the race of ipykernel issue #609.

When ipykernel asks the shell channel thread to queue the marker after a failed execute's
reply has already been sent, the marker is held until the next shell message has been
forwarded to the main thread: the client's request sent on that reply then deterministically
reaches the queue before the marker, as it does by chance in a few percent of tries. A kernel
that queues the marker before the reply is sent never meets the hold.
"""

from __future__ import annotations

import threading
from typing import Any

from ipykernel.kernelbase import Kernel
from jupyter_client.session import Session

_error_replied = threading.Event()
_held: list[str | None] = []
_send = Session.send
_post_marker = Kernel._post_dummy_stop_aborting_message
_forward = Kernel.shell_channel_thread_main


def _noting_send(self: Session, stream: Any, msg_or_type: Any, *args: Any, **kwargs: Any) -> Any:
    msg = _send(self, stream, msg_or_type, *args, **kwargs)
    if isinstance(msg, dict) and msg["header"]["msg_type"] == "execute_reply" and msg["content"]["status"] == "error":
        _error_replied.set()
    return msg


def _holding_post_marker(self: Kernel, subshell_id: str | None) -> None:
    if _error_replied.is_set():
        _held.append(subshell_id)
        return
    _post_marker(self, subshell_id)


async def _forward_then_release(self: Kernel, msg: Any) -> None:
    await _forward(self, msg)
    _error_replied.clear()
    while _held:
        _post_marker(self, _held.pop(0))


Session.send = _noting_send  # type: ignore[method-assign]
Kernel._post_dummy_stop_aborting_message = _holding_post_marker  # type: ignore[method-assign]
Kernel.shell_channel_thread_main = _forward_then_release  # type: ignore[method-assign]
