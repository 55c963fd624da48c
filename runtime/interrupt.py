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


PROBE_LOOP_STEPS = 1_000_000
"""Steps of the probe's loop: QuickJS polls the interrupt every 10 000 operations or so, so an
armed interrupt stops it at once; one that does not work lets it end on its own (about
0.1 s), and the probe fails instead of hanging the host."""


def probe() -> bool:
    """Verify at start-up that an armed interrupt stops a busy loop.

    Installs the handler in a fresh context, arms it, then runs a loop of
    :data:`PROBE_LOOP_STEPS` steps on this thread: the mechanism works when the loop ends
    with QuickJS's ``InternalError: interrupted`` (within microseconds). Arming is a store
    of one pointer that the engine reads at its next poll, whichever thread stored it, so
    arming before the loop starts tests what a terminate from another thread relies on,
    without a thread or a wait. Sets and returns :data:`AVAILABLE`.
    """
    global AVAILABLE
    import _quickjs as quickjs  # the binding itself, as engines/quickjs.py imports it

    AVAILABLE = False
    if not _load():
        return False
    ctx = quickjs.Context()
    switch = Interrupter(ctx)
    if not switch.usable:
        log.warning("QuickJS interrupt probe failed: runtime pointer not found")
        return False
    switch.install()
    switch.arm()
    try:
        ctx.eval(f"for (let i = 0; i < {PROBE_LOOP_STEPS}; i++) {{}}")
        error = "the loop ran to its end"
    except quickjs.JSException as exc:
        error = str(exc)
    AVAILABLE = "interrupted" in error
    if not AVAILABLE:
        log.warning("QuickJS interrupt probe failed: %s", error)
    return AVAILABLE
