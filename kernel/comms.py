"""Comm messages: the kernel has no comm targets, so every ``comm_open`` is closed at once.

The Jupyter messaging specification ("Custom Messages", "Opening a Comm"): "If the
``target_name`` key is not found on the receiving side, then it should immediately reply with
a ``comm_close`` message to avoid an inconsistent state." ipykernel's comm manager does so for
a target it does not know (``comm.base_comm.CommManager.comm_open`` closes the comm it made);
ipykernel's ``Kernel`` base class, which this kernel extends, has no comm handlers at all, so a
``comm_open`` was only logged as an unknown message type and the frontend kept a comm nobody
served. :func:`install` adds shell handlers for the three comm messages: ``comm_open`` gets a
``comm_close`` on IOPub (its parent the ``comm_open``, ``{"comm_id": <the same id>, "data":
{}}``); ``comm_msg`` and ``comm_close`` name a comm that cannot exist and are only logged, as
ipykernel logs them for an unknown comm id. A ``comm_open`` whose ``comm_id`` is not a string
is logged and answered with nothing (there is no comm to close).
"""

from __future__ import annotations

import logging
from typing import Any

from codemode.kernel.publish import Publisher

log = logging.getLogger(__name__)


def install(kernel: Any, publisher: Publisher) -> None:
    """Add the comm handlers to ``kernel.shell_handlers`` (module docstring)."""

    async def comm_open(stream: Any, ident: Any, parent: dict[str, Any]) -> None:
        content = parent.get("content")
        comm_id = content.get("comm_id") if isinstance(content, dict) else None
        target = content.get("target_name") if isinstance(content, dict) else None
        if not isinstance(comm_id, str):
            log.warning("comm_open without a comm_id string: %r", comm_id)
            return
        log.info("no comm target %r: closing comm %s", target, comm_id)
        publisher.send("comm_close", {"comm_id": comm_id, "data": {}}, parent)

    async def unknown_comm(stream: Any, ident: Any, parent: dict[str, Any]) -> None:
        content = parent.get("content")
        comm_id = content.get("comm_id") if isinstance(content, dict) else None
        log.info("%s for comm %r, which is not open", parent["header"]["msg_type"], comm_id)

    kernel.shell_handlers["comm_open"] = comm_open
    kernel.shell_handlers["comm_msg"] = unknown_comm
    kernel.shell_handlers["comm_close"] = unknown_comm
