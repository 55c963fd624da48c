"""In-process interruption of a running QuickJS context (terminate, ``exit()``).

Codex interrupts its V8 isolate to stop even a CPU-bound ``while (true) {}`` (a
terminate, or ``exit()``, which is uncatchable there). The ``quickjs-ng`` binding offers
only a CPU time limit (``set_time_limit``), which is copied at the start of every call
and forbids calls into Python, so it cannot stop a call that is already running.

This module installs QuickJS's own interrupt handler (``JS_SetInterruptHandler``,
exported by the binding's shared library) through :mod:`ctypes`. The handler is
libc's ``pthread_equal(rt, opaque)``: it answers non-zero exactly when ``opaque``
equals the runtime pointer. Arming the interrupt is therefore one call that swaps
``opaque`` from ``NULL`` to the runtime pointer; it is safe from any thread, needs no
GIL inside the engine and costs nothing while disarmed. QuickJS then raises the
uncatchable ``InternalError: interrupted`` at its next interrupt poll (loops and calls).

The mechanism depends on the binding's object layout (verified on quickjs-ng 0.17, the
minor version ``pyproject.toml`` pins), so :func:`runtime_pointer` checks the object's
type and size before it reads memory and :func:`probe` verifies the whole mechanism once
at start-up by interrupting a real busy loop. When the probe fails,
:data:`AVAILABLE` is false and the host falls back to Codex's catchable ``exit()``
sentinel and, for a CPU-bound cell that will not stop, to exiting the host process
(the client then starts a new host).
"""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from typing import Any

log = logging.getLogger(__name__)

_lib: Any = None
_handler: int | None = None
AVAILABLE = False
"""True once :func:`probe` has shown that an armed interrupt stops a busy loop."""


def _load() -> bool:
    """Resolve the QuickJS and libc symbols; False when any is missing."""
    global _lib, _handler
    if _lib is not None:
        return _handler is not None
    try:
        import _quickjs

        lib = ctypes.CDLL(_quickjs.__file__)
        libc = ctypes.CDLL(None)
        lib.JS_SetInterruptHandler.restype = None
        lib.JS_SetInterruptHandler.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        lib.JS_GetRuntime.restype = ctypes.c_void_p
        lib.JS_GetRuntime.argtypes = [ctypes.c_void_p]
        _handler = ctypes.cast(libc.pthread_equal, ctypes.c_void_p).value
        _lib = lib
        return True
    except (OSError, AttributeError, ImportError) as exc:  # pragma: no cover - platform specific
        log.warning("QuickJS interrupt handler unavailable: %s", exc)
        _lib = False
        return False


def _layout_fits(ctx: Any) -> bool:
    """True when ``ctx`` is the binding's ``Context`` and its object holds the two pointers.

    Checked before any raw memory is read, so a binding release with another type or a
    smaller object makes the probe fail (and the host fall back) instead of crashing.
    """
    import _quickjs

    kind = type(ctx)
    if kind is not _quickjs.Context:
        return False
    return kind.__basicsize__ >= _HEAD_BYTES + 2 * ctypes.sizeof(ctypes.c_void_p)


_HEAD_BYTES = ctypes.sizeof(ctypes.c_ssize_t) + ctypes.sizeof(ctypes.c_void_p)
"""``PyObject_HEAD``: the reference count and the type pointer."""


def runtime_pointer(ctx: Any) -> int | None:
    """The ``JSRuntime*`` of a ``quickjs.Context``, checked against ``JS_GetRuntime``.

    The binding's object (quickjs-ng 0.17) starts with ``PyObject_HEAD`` followed by the
    runtime and the context pointers. Returns None when the object is not the binding's
    ``Context``, is too small to hold them, or the pointers do not check out.
    """
    if not _load() or not _layout_fits(ctx):
        return None
    base = id(ctx)
    rt = ctypes.c_void_p.from_address(base + _HEAD_BYTES).value
    cx = ctypes.c_void_p.from_address(base + _HEAD_BYTES + ctypes.sizeof(ctypes.c_void_p)).value
    if not rt or not cx or _lib.JS_GetRuntime(cx) != rt:
        return None
    return rt


class Interrupter:
    """The interrupt switch of one context.

    ``install()`` must run on the context's thread before JS runs; ``arm()`` may be
    called from any thread and makes the running JS throw ``InternalError:
    interrupted`` at its next poll; ``disarm()`` lets JS run again.
    """

    def __init__(self, ctx: Any) -> None:
        self._rt = runtime_pointer(ctx)
        self._ctx = ctx  # keeps the runtime alive while the switch exists

    @property
    def usable(self) -> bool:
        """True when this context's runtime was found."""
        return self._rt is not None

    def install(self) -> None:
        """Install the (disarmed) handler."""
        if self._rt is not None:
            _lib.JS_SetInterruptHandler(self._rt, _handler, None)

    def arm(self) -> None:
        """Request the interruption of whatever JS runs now or later."""
        if self._rt is not None:
            _lib.JS_SetInterruptHandler(self._rt, _handler, self._rt)

    def disarm(self) -> None:
        """Let JS run again."""
        if self._rt is not None:
            _lib.JS_SetInterruptHandler(self._rt, _handler, None)


def probe(timeout_s: float = 2.0) -> bool:
    """Verify at start-up that an armed interrupt stops ``while (true) {}``.

    Runs a busy loop on a thread, arms the interrupt from this thread and waits up to
    ``timeout_s`` seconds. Sets and returns :data:`AVAILABLE`. A failed probe leaves a
    spinning thread behind only if the engine ignores the interrupt entirely, which is
    the case the fallback exists for; the thread is a daemon.
    """
    global AVAILABLE
    import quickjs

    if not _load():
        AVAILABLE = False
        return False
    started = threading.Event()
    outcome: dict[str, Any] = {}
    holder: dict[str, Interrupter] = {}

    def spin() -> None:
        ctx = quickjs.Context()
        switch = Interrupter(ctx)
        if not switch.usable:
            outcome["error"] = "runtime pointer not found"
            started.set()
            return
        switch.install()
        holder["switch"] = switch
        started.set()
        try:
            ctx.eval("for (;;) {}")
        except Exception as exc:  # noqa: BLE001 - any JS exception is the expected end
            outcome["error"] = str(exc)
        outcome["done"] = True

    thread = threading.Thread(target=spin, name="codemode-interrupt-probe", daemon=True)
    thread.start()
    started.wait(timeout_s)
    switch = holder.get("switch")
    if switch is None:
        log.warning("QuickJS interrupt probe failed: %s", outcome.get("error"))
        AVAILABLE = False
        return False
    time.sleep(0.01)
    switch.arm()
    thread.join(timeout_s)
    AVAILABLE = bool(outcome.get("done")) and "interrupted" in str(outcome.get("error", ""))
    if not AVAILABLE:
        log.warning("QuickJS interrupt probe failed: %r", outcome)
    return AVAILABLE
