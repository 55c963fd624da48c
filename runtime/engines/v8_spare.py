"""Booted V8 isolates kept ready: creating an isolate and evaluating the bridge costs a few
milliseconds, so the host prepares the next cell's isolate while the current one runs.

:func:`take` returns a :class:`Booted` isolate (made now, or the spare made in the
background after the previous take) and starts making the next spare. At most one spare
exists; it holds no cell state (only the bridge of ``v8_boot.js``), and the host process
ends with ``os._exit``, so an unused spare never keeps it alive.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

from codemode.runtime.engines.v8_native import BRIDGE_BYTES, Isolate, TaskResult

log = logging.getLogger(__name__)

BOOT_TIMEOUT_S = 30.0
"""Start-up tasks run on an idle isolate; this only guards against a broken library."""
SPARE_HEAP_LIMIT = 1 << 30
"""The heap limit of a spare until a cell takes it (:meth:`Isolate.attach` sets the cell's)."""


@functools.cache
def _boot_source() -> str:
    # A plain read of the package data next to this module (as prelude_source reads the prelude).
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "v8_boot.js"), encoding="utf-8") as file:
        text = file.read()
    return text.replace("BRIDGE_BYTES", str(BRIDGE_BYTES))


class Waiter:
    """The outcome of one task that its caller waits for (the tag of the task)."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: TaskResult | None = None

    def settle(self, result: TaskResult) -> None:
        self.result = result
        self.done.set()


def wait_for(launch: Any) -> TaskResult:
    """Run one task (``launch(tag)`` queues it and returns its id) and wait for its outcome."""
    waiter = Waiter()
    launch(waiter)
    if not waiter.done.wait(BOOT_TIMEOUT_S) or waiter.result is None:
        return TaskResult("error", "the V8 isolate did not start")
    return waiter.result


def _settle(tag: object, result: TaskResult) -> None:
    if isinstance(tag, Waiter):
        tag.settle(result)


@dataclass
class Booted:
    """An isolate whose bridge is installed: ``empty`` is an empty argument list for calls."""

    isolate: Isolate
    empty: Any


def boot() -> Booted:
    """Create an isolate and install the bridge (the isolate thread runs the three tasks)."""
    isolate = Isolate(on_call=lambda request: None, on_result=_settle, heap_limit=SPARE_HEAP_LIMIT)
    empty = wait_for(lambda tag: isolate.eval("[]", tag)).handle
    bridge = wait_for(lambda tag: isolate.eval(_boot_source(), tag)).handle
    wait_for(lambda tag: isolate.call(bridge, empty, tag, this=isolate.native_callback()))
    return Booted(isolate, empty)


class _Spares:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready: Booted | None = None
        self._making = False

    def take(self) -> Booted:
        with self._lock:
            ready, self._ready = self._ready, None
            start = not self._making
            self._making = True
        if start:
            threading.Thread(target=self._make, name="codemode-v8-spare", daemon=True).start()
        return ready if ready is not None else boot()

    def _make(self) -> None:
        try:
            booted: Booted | None = boot()
        except Exception:  # noqa: BLE001 - the next take boots its own isolate
            log.exception("could not prepare a spare V8 isolate")
            booted = None
        with self._lock:
            # Only one spare is made at a time and take() empties the slot before it starts
            # one, so the slot is empty here.
            self._ready = booted
            self._making = False


_SPARES = _Spares()


def take() -> Booted:
    """A booted isolate for a new cell (see the module docstring)."""
    return _SPARES.take()
