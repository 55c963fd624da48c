"""Every Jupyter message the kernel sends is valid UTF-8, whatever its strings hold.

jupyter_client's packer (``Session.pack``) writes JSON and encodes it with
``errors="surrogateescape"``, which fails (``UnicodeEncodeError``) on a lone UTF-16 surrogate
outside that handler's range, e.g. ``"\\udfff"``. Such a string reaches the kernel from tool
code it does not control: a Python tool that prints one, a docstring or MCP description that
holds one. The send would then raise inside a handler: the request gets no reply and the cell's
output is lost. :func:`install_safe_packer` wraps the session's packer so that a message whose
JSON cannot be encoded is written again with each lone surrogate replaced by U+FFFD (the same
rule as the code-mode frames, :func:`codemode.wire.frame_json.well_formed`). Messages without lone
surrogates take the original packer unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from jupyter_client.jsonutil import json_clean, json_default
from jupyter_client.session import Session

from codemode.wire.frame_json import well_formed


def _well_formed_json(obj: Any) -> bytes:
    """``obj`` as UTF-8 JSON (jupyter_client's conventions), lone surrogates as U+FFFD."""
    try:
        text = json.dumps(obj, default=json_default, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        text = json.dumps(json_clean(obj), default=json_default, ensure_ascii=False, allow_nan=False)
    return well_formed(text).encode("utf-8")


def safe_packer(pack: Callable[[Any], bytes]) -> Callable[[Any], bytes]:
    """``pack`` that falls back to :func:`_well_formed_json` when it cannot encode a string."""

    def pack_well_formed(obj: Any) -> bytes:
        try:
            return pack(obj)
        except UnicodeEncodeError:
            return _well_formed_json(obj)

    pack_well_formed.__wrapped__ = pack  # type: ignore[attr-defined]
    return pack_well_formed


def install_safe_packer(session: Session) -> None:
    """Make ``session`` (the kernel's message signer and serialiser) send well-formed UTF-8."""
    if not hasattr(session.pack, "__wrapped__"):
        session.pack = safe_packer(session.pack)
