"""``session/bindings`` (codemode's extension, :mod:`codemode.wire.session_bindings`): a notebook
session's global bindings and their members, for the kernel's completion.

The session's realm (``runtime/realm.py``) lists them on its own thread between jobs
(``prelude/realm_members.js``: from property descriptors, proxies skipped, so no code of the
cells runs). A realm busy running JavaScript does not answer within the request's
``timeoutMs``: the answer then carries ``names: null`` and the listing, once the thread gets
to it, is dropped. A session with no realm yet (no cell ran) has no bindings.
"""

from __future__ import annotations

import asyncio
from typing import Any

from codemode.runtime import profile
from codemode.runtime.errors import ProtocolError
from codemode.wire import messages


async def list_bindings(realm: Any, request: messages.BindingsBody) -> messages.BindingsListed:
    """The answer to ``request`` (a validated ``session/bindings`` body) for the session whose
    realm is ``realm`` (None before its first cell). Raises :class:`ProtocolError` outside
    the notebook profile."""
    if not profile.notebook():
        raise ProtocolError("session/bindings needs the notebook profile: strict cells share no bindings")
    if realm is None or realm.lost is not None:
        return messages.bindings_listed([])
    timeout_ms = request.get("timeoutMs")
    timeout_s = (messages.DEFAULT_BINDINGS_TIMEOUT_MS if timeout_ms is None else timeout_ms) / 1000
    future = asyncio.wrap_future(realm.members(list(request["path"])))
    try:
        async with asyncio.timeout(timeout_s):
            return messages.bindings_listed(await future)
    except TimeoutError:
        return messages.bindings_listed(None)
