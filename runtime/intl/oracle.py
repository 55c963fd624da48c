"""V8 with ICU (the ``mini-racer`` package) as the authority for Intl in QuickJS cells.

One MiniRacer context per host process, created on the first Intl request (the import and
the isolate take about 80 ms, so a host whose cells never use Intl never pays them) and
closed at interpreter exit. It runs only ``oracle.js``; requests are JSON data (see that
file), so no cell code ever runs in it. Calls are serialised by a lock (about 0.3 ms each).

:func:`ask` returns the reply's value or raises :class:`IntlError` with the JavaScript
error V8 threw (name and message, as a cell on V8 would see them), or with a ``TypeError``
naming what is missing when V8 cannot be loaded here.
"""

from __future__ import annotations

import atexit
import json
import logging
import threading
from importlib import resources
from typing import Any

log = logging.getLogger(__name__)

CALL_TIMEOUT_SEC = 10.0
"""Bound on one request; formatting takes microseconds, so only a broken isolate hits it."""
MEMORY_LIMIT_BYTES = 256 * 1024 * 1024
"""Hard heap limit of the isolate (a request past it fails; the context is then replaced)."""


class IntlError(Exception):
    """A JavaScript error for the cell: ``name`` (``"RangeError"``, ...) and ``message``."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


_lock = threading.Lock()
_racer: Any = None


def ask(request: dict[str, Any]) -> Any:
    """Send one request (see ``oracle.js``) and return its value; raises :class:`IntlError`."""
    text = json.dumps(request)
    with _lock:
        racer = _start()
        try:
            reply_text = racer.eval(f"__codemode_intl({json.dumps(text)})", timeout_sec=CALL_TIMEOUT_SEC)
        except Exception as exc:  # noqa: BLE001 - the isolate failed, not the request's JavaScript
            log.warning("the V8 Intl context failed (%s); it is replaced", exc)
            _close_locked()
            raise IntlError("Error", f"Intl request failed in the V8 engine: {exc}") from exc
    reply = json.loads(reply_text)
    if "error" in reply:
        raise IntlError(reply["error"]["name"], reply["error"]["message"])
    return reply["ok"]


def _start() -> Any:
    global _racer
    if _racer is None:
        try:
            from py_mini_racer import MiniRacer
        except ImportError as exc:
            raise IntlError(
                "TypeError",
                f'Intl needs the mini-racer package (V8 with ICU), which cannot be loaded here ({exc}); use engine = "v8"',
            ) from exc
        racer = MiniRacer()
        racer.set_hard_memory_limit(MEMORY_LIMIT_BYTES)
        racer.eval(resources.files(__package__).joinpath("oracle.js").read_text("utf-8"))
        _racer = racer
    return _racer


def _close_locked() -> None:
    global _racer
    racer, _racer = _racer, None
    if racer is not None:
        try:
            racer.close()
        except Exception:  # noqa: BLE001 - closing a broken context
            log.debug("closing the V8 Intl context failed", exc_info=True)


def close() -> None:
    """Close the V8 context (an open one would keep its thread until interpreter exit)."""
    with _lock:
        _close_locked()


atexit.register(close)
