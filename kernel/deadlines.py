"""How long the kernel gives the runtime host to answer before it checks that the host lives.

A host answers terminates and ``operation/yield`` within milliseconds, and one that cannot
stop a cell in-process answers within half a second. A host that was stopped (``kill -STOP``)
or deadlocked never answers; the client's own liveness probe would notice only after about
11 s. So where a user waits on the host (an interrupt, ``%terminate``, ``%wait``'s deadline),
the kernel waits :data:`ANSWER_S`, then probes the host itself
(``CodeModeSession.probe_host``, at most :data:`PROBE_S`): an unanswered probe fails the
connection at once, and every request pending on it with it. :func:`await_or_probe` does that
for one awaited answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

ANSWER_S = 0.5
"""How long the kernel waits for the host's answer before probing the host."""
PROBE_S = 0.4
"""How long the host may take to answer that probe before its connection fails."""
FAILED_S = 0.1
"""How long, after a failed probe, a caller may take to see the failure of its request."""


async def await_or_probe(
    answer: asyncio.Future[Any], probe: Callable[[float], Awaitable[bool]], *, wait_while_alive: bool
) -> None:
    """Wait for ``answer`` :data:`ANSWER_S`; if it has not come, ``probe(PROBE_S)`` the host.
    A failed probe has failed the connection's pending requests already: wait
    :data:`FAILED_S` for ``answer`` to see it. An answered probe (the host lives): wait until
    ``ANSWER_S + PROBE_S`` after the start when ``wait_while_alive``, else return. Returns
    within about ``ANSWER_S + PROBE_S`` seconds; ``answer`` may still be pending then (it is
    neither cancelled nor awaited)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + ANSWER_S + PROBE_S
    await asyncio.wait({answer}, timeout=ANSWER_S)
    if answer.done():
        return
    if not await probe(PROBE_S):
        await asyncio.wait({answer}, timeout=FAILED_S)
    elif wait_while_alive and not answer.done():
        await asyncio.wait({answer}, timeout=max(0.0, deadline - loop.time()))
