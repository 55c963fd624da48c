"""codemode's extension ``session/bindings``: what a notebook realm's cells declared, for completion.

Granted with the capability :data:`BINDINGS_CAPABILITY` by a host whose profile is notebook
(Codex's host has neither the request nor the capability). The client asks
:func:`bindings_body` with a ``path`` of property names: ``[]`` for the global bindings the
session's cells declared, ``["rows", "0"]`` for the members (own and inherited) of the value
reached from a global through those data properties. The host answers :func:`bindings_listed`
with ``names``, ``[name, kind]`` pairs (``kind`` ``"function"`` or ``"property"``; identifier
names only, at most 2 000), ``[]`` when the path leads nowhere, or ``None`` when the realm did
not answer within ``timeoutMs`` (it was running JavaScript). No getter or proxy trap of the
cells' code runs (``runtime/prelude/realm_members.js``).
"""

from __future__ import annotations

from typing import Literal, NotRequired

from codemode.wire.results import MessageError
from codemode.wire.typeddict import TypedDict

BINDINGS_CAPABILITY = "codemode-session-bindings-v1"
DEFAULT_BINDINGS_TIMEOUT_MS = 200
"""How long the host waits for the realm's thread to list, unless the request says."""
MAX_BINDINGS_TIMEOUT_MS = 2_000
MAX_PATH_LENGTH = 32


class BindingsBody(TypedDict):
    method: Literal["session/bindings"]
    sessionId: str
    path: list[str]
    timeoutMs: NotRequired[int | None]


class BindingsListed(TypedDict):
    type: Literal["session/bindings"]
    names: list[list[str]] | None


def bindings_body(session_id: str, path: list[str], timeout_ms: int | None = None) -> BindingsBody:
    body: BindingsBody = {"method": "session/bindings", "sessionId": session_id, "path": list(path)}
    if timeout_ms is not None:
        body["timeoutMs"] = timeout_ms
    return body


def bindings_listed(names: list[list[str]] | None) -> BindingsListed:
    return {"type": "session/bindings", "names": names}


def parse_bindings_listed(value: object) -> list[tuple[str, str]] | None:
    """The ``(name, kind)`` pairs of a host's answer, None for a busy realm. Raises
    :class:`MessageError` for another shape."""
    if not isinstance(value, dict) or value.get("type") != "session/bindings" or "names" not in value:
        raise MessageError(f"invalid session/bindings answer: {value!r}")
    names = value["names"]
    if names is None:
        return None
    if not isinstance(names, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair) for pair in names
    ):
        raise MessageError(f"invalid session/bindings names: {names!r}")
    return [(name, kind) for name, kind in names]


__all__ = [
    "BINDINGS_CAPABILITY",
    "DEFAULT_BINDINGS_TIMEOUT_MS",
    "MAX_BINDINGS_TIMEOUT_MS",
    "MAX_PATH_LENGTH",
    "BindingsBody",
    "BindingsListed",
    "bindings_body",
    "bindings_listed",
    "parse_bindings_listed",
]
