"""What a Python tool prints, delivered per call instead of to the process's streams.

In the kernel, ``sys.stdout`` is ipykernel's ``OutStream``, which publishes with the parent
header of whatever request it last saw - for a tool running under a background cell, or in a
worker thread, usually none - so a tool's ``print()`` showed up in no cell. Here each Python
tool call runs inside :func:`route_output`: while any call runs, ``sys.stdout`` and
``sys.stderr`` are :class:`RoutingStream` proxies that send a write to the call it was made
from, and to the original stream otherwise (other code, or after the call).

The call is found through a context variable, which is copied into the call's task, the tasks
it starts, the task of an async tool on its own event loop (:mod:`codemode.tools.loops`) and
the thread of a sync tool (:mod:`codemode.tools.threads`). Python copies no context into the
threads a tool starts itself (``threading.Thread`` runs in an empty context;
``ThreadPoolExecutor`` workers are shared and run each task in their own), so what they
printed went out with an empty parent header, in no cell and in no saved notebook (ipykernel
issue #1370; ipykernel PR #1186 once tracked thread parents at ``Thread.start`` for the same
reason). While tools are loaded, :func:`_track_threads` therefore patches two places, once:

- ``threading.Thread.start`` records on the new thread the call of the thread that starts it
  (its context's, else the one its own thread recorded), so a thread started in a call, and
  the threads *it* starts, write to that call; a thread pool's worker records none, nor does a
  thread started with :func:`start_detached`;
- ``concurrent.futures.ThreadPoolExecutor.submit`` runs the task with the submitter's call
  set (``executor.map`` and ``loop.run_in_executor`` submit through it), whichever worker
  runs it.

A call found this way that has ended is not written to: the text goes to the original stream,
as everything written outside calls does. The lanes' own threads that serve many calls (an
async lane's loop and watchdog) are started with :func:`start_detached` and record no call.

A call's text is delivered as ``deliver(name, text)`` (``name`` is ``"stdout"`` or
``"stderr"``) on the event loop, in the order written: by complete lines as they are written,
the rest at ``flush()`` and when the call ends. The streams are put back when the last call
ends (unless something else replaced them meanwhile).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.thread
import contextlib
import contextvars
import functools
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

Deliver = Callable[[str, str], None]

_current: contextvars.ContextVar[CallOutput | None] = contextvars.ContextVar("codemode_tool_output", default=None)
_install_lock = threading.Lock()
_active_calls = 0
_installed: dict[str, RoutingStream] = {}
_THREAD_CALL = "_codemode_tool_call"
"""The attribute of a ``threading.Thread`` holding the call it was started in."""
_tracking = False


class CallOutput:
    """The output of one call: per stream, text written but not yet delivered (an unfinished
    line). Thread-safe; delivery always happens on ``loop``."""

    def __init__(self, deliver: Deliver, loop: asyncio.AbstractEventLoop) -> None:
        self._deliver = deliver
        self._loop = loop
        self._lock = threading.Lock()
        self._pending: dict[str, list[str]] = {"stdout": [], "stderr": []}
        self.closed = False

    def write(self, name: str, text: str) -> None:
        """Add ``text`` to stream ``name``; complete lines are delivered at once."""
        with self._lock:
            pending = self._pending[name]
            cut = text.rfind("\n")
            if cut < 0:
                pending.append(text)
                return
            pending.append(text[: cut + 1])
            ready = "".join(pending)
            self._pending[name] = [text[cut + 1 :]] if cut + 1 < len(text) else []
            self._send(name, ready)

    def flush(self, name: str | None = None) -> None:
        """Deliver what is pending on ``name`` (both streams when None)."""
        with self._lock:
            for stream in (name,) if name else ("stdout", "stderr"):
                text = "".join(self._pending[stream])
                self._pending[stream] = []
                if text:
                    self._send(stream, text)

    def _send(self, name: str, text: str) -> None:
        try:
            on_loop = asyncio.get_running_loop() is self._loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            self._deliver(name, text)
        elif not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._deliver, name, text)


def current_call() -> CallOutput | None:
    """The call the running code belongs to: its context's, else the one its thread was started
    in (module docstring), else None."""
    call = _current.get()
    if call is None:
        call = getattr(threading.current_thread(), _THREAD_CALL, None)
    return call


def _in_call(call: CallOutput, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    token = _current.set(call)
    try:
        return fn(*args, **kwargs)
    finally:
        _current.reset(token)


def _track_threads() -> None:
    """Patch ``Thread.start`` and ``ThreadPoolExecutor.submit`` (module docstring); once per
    process, under ``_install_lock``."""
    global _tracking
    if _tracking:
        return
    _tracking = True
    thread_start = threading.Thread.start
    submit: Any = concurrent.futures.ThreadPoolExecutor.submit
    pool_worker = concurrent.futures.thread._worker

    @functools.wraps(thread_start)
    def start(self: threading.Thread) -> None:
        call = current_call()
        if call is not None and not hasattr(self, _THREAD_CALL) and getattr(self, "_target", None) is not pool_worker:
            setattr(self, _THREAD_CALL, call)
        thread_start(self)

    @functools.wraps(submit)
    def submit_in_call(
        self: concurrent.futures.ThreadPoolExecutor, fn: Callable[..., Any], /, *args: Any, **kwargs: Any
    ) -> concurrent.futures.Future[Any]:
        call = current_call()
        if call is None:
            return submit(self, fn, *args, **kwargs)
        return submit(self, _in_call, call, fn, *args, **kwargs)

    threading.Thread.start = start  # type: ignore[method-assign]
    concurrent.futures.ThreadPoolExecutor.submit = submit_in_call  # type: ignore[assignment,method-assign]


def start_detached(thread: threading.Thread) -> None:
    """Start ``thread`` recording no call, whatever call starts it: for a thread that serves
    many calls (each of which brings its own context)."""
    setattr(thread, _THREAD_CALL, None)
    thread.start()


class RoutingStream:
    """A stand-in for ``sys.stdout`` / ``sys.stderr`` (``name``) that writes to the current
    call's :class:`CallOutput`, or to ``original`` outside calls. Other attributes
    (``encoding``, ``fileno``, ``isatty``, ...) are the original stream's."""

    def __init__(self, name: str, original: Any) -> None:
        self.name = name
        self.original = original

    def write(self, text: str) -> int:
        """Write ``text``; returns its length, as ``TextIO.write`` does."""
        call = current_call()
        if call is None or call.closed:
            return self.original.write(text)
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        call.write(self.name, text)
        return len(text)

    def writelines(self, lines: Any) -> None:
        """Write each of ``lines``."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Deliver the current call's pending text, or flush the original stream."""
        call = current_call()
        if call is None or call.closed:
            self.original.flush()
        else:
            call.flush(self.name)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.original, attr)


def _install() -> None:
    global _active_calls
    with _install_lock:
        _track_threads()
        _active_calls += 1
        if _active_calls > 1:
            return
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if not isinstance(stream, RoutingStream):
                proxy = RoutingStream(name, stream)
                _installed[name] = proxy
                setattr(sys, name, proxy)


def _uninstall() -> None:
    global _active_calls
    with _install_lock:
        _active_calls -= 1
        if _active_calls > 0:
            return
        for name, proxy in list(_installed.items()):
            if getattr(sys, name) is proxy:
                setattr(sys, name, proxy.original)
            del _installed[name]


@contextlib.contextmanager
def route_output(deliver: Deliver) -> Iterator[CallOutput]:
    """Route this context's (and its worker threads' and tasks') writes to ``sys.stdout`` /
    ``sys.stderr`` to ``deliver(name, text)`` until the block ends; then deliver what is left.
    Writes of the threads started in the block, and of the thread-pool tasks submitted in it,
    count as the block's (module docstring). Must be entered on the running event loop
    (deliveries are made there). Writes made after the block by a thread it started (a sync
    tool that outlived its cancelled call, a worker the tool left running) go to the original
    streams."""
    call = CallOutput(deliver, asyncio.get_running_loop())
    _install()
    token = _current.set(call)
    try:
        yield call
    finally:
        _current.reset(token)
        call.flush()
        call.closed = True
        _uninstall()
