"""The handshake: ``connection/hello``, ``connection/ready``, ``connection/rejected``."""

from __future__ import annotations

from typing import Any, Literal

from codemode.wire.typeddict import TypedDict

# -- handshake ----------------------------------------------------------------------------------


class Hello(TypedDict):
    type: Literal["connection/hello"]
    supportedVersions: list[int]
    requiredCapabilities: list[str]
    optionalCapabilities: list[str]


class Ready(TypedDict):
    type: Literal["connection/ready"]
    selectedVersion: int
    capabilities: list[str]


class Rejected(TypedDict):
    type: Literal["connection/rejected"]
    reason: dict[str, Any]


def hello(versions: list[int], optional: list[str], required: list[str] | None = None) -> Hello:
    return {
        "type": "connection/hello",
        "supportedVersions": list(versions),
        "requiredCapabilities": list(required or []),
        "optionalCapabilities": list(optional),
    }


def ready(version: int, capabilities: list[str]) -> Ready:
    return {"type": "connection/ready", "selectedVersion": version, "capabilities": list(capabilities)}


def rejected(reason: dict[str, Any]) -> Rejected:
    """``reason``: ``{"type": "noCompatibleVersion", "supportedVersions": [1]}``,
    ``{"type": "missingRequiredCapability", "capability": …}`` or ``{"type": "invalidHello"}``."""
    return {"type": "connection/rejected", "reason": reason}


__all__ = [
    "Hello",
    "Ready",
    "Rejected",
    "hello",
    "ready",
    "rejected",
]
