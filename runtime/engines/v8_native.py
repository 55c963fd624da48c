"""One V8 isolate, driven through mini-racer's native library, with a synchronous bridge.

mini-racer (PyPI ``mini-racer``: V8 with ICU) runs each context in an isolate of its own, on
a thread of its own, and hands every result to one C callback. Its Python API calls Python
from JavaScript only through async functions (promises), and its object accessors queue a
task on the isolate thread and wait for it, so they block while JavaScript runs. A
code-mode cell needs synchronous helpers (``load()``, ``store()``, the back-pressure of
``text()``) and a cell thread that never blocks on the isolate. This module therefore
uses the library's C functions directly (the ones ``py_mini_racer``'s ``Context`` wraps;
verified on mini-racer 0.14, the minor version ``pyproject.toml`` pins):

- tasks: :meth:`Isolate.eval` and :meth:`Isolate.call` queue a script or a function call
  on the isolate thread and return at once; the outcome reaches ``on_result(tag, result)``
  on the isolate thread;
- the bridge: the boot script (``v8_boot.js``) allocates a ``SharedArrayBuffer`` of
  :data:`BRIDGE_BYTES` and returns it; Python keeps a ``memoryview`` of its backing store.
  A JavaScript call writes its request (UTF-16 code units) into the buffer and calls a
  native function made with ``mr_make_js_callback``; the library runs the C callback on
  the isolate thread while JavaScript waits, so Python reads the request, runs
  ``on_call(request)`` and writes the reply into the buffer before JavaScript goes on.
  Long texts cross in chunks of the buffer's size.
- :meth:`Isolate.close` frees the context: it terminates whatever runs (also a busy loop
  in a promise job, which no task cancellation reaches) and joins the isolate's thread.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

BRIDGE_BYTES = 1 << 20
"""Size of the shared buffer: an 8-byte header, then UTF-16 code units."""
_HEADER = 8
_CAPACITY = (BRIDGE_BYTES - _HEADER) // 2
"""Code units per chunk."""
_BRIDGE_CALLBACK_ID = 1
_MORE, _LAST, _NULL, _CONTINUE = 1, 0, 2, 3
"""Header flags: a chunk with more to come, the last chunk, a null reply, "send the next chunk"."""

# Value types of mini-racer's ``BinaryValue`` (py_mini_racer._objects._MiniRacerTypes).
_T_UNDEFINED, _T_STRING, _T_FUNCTION, _T_SHARED_BUFFER, _T_ARRAY = 11, 5, 100, 101, 6
_T_PARSE_ERROR, _T_OUT_OF_MEMORY, _T_TERMINATED = 201, 202, 204
_ERROR_TYPES = range(200, 207)


@dataclass
class TaskResult:
    """What a task ended with: ``kind`` ``"value"`` (``text`` for a string), ``"handle"``
    (a function or an array, ``handle`` for :meth:`Isolate.call`), ``"error"`` (``text``:
    V8's message of an uncaught exception), ``"parse_error"``, ``"out_of_memory"`` or
    ``"terminated"``."""

    kind: str
    text: str | None = None
    handle: Any = None


V8_FLAGS = ("--single-threaded", "--stack-size=984", "--no-memory-protection-keys")
"""mini-racer's default flags, and V8's own default stack limit (KiB), which Codex's host
keeps: deep recursion and deeply nested JSON fail with ``RangeError`` where they fail there.

Without memory protection keys: on a CPU with them (``pku`` in ``/proc/cpuinfo``) V8 gives its
code space a key whose rights live in the thread that initialised V8; once that thread had
ended (the host's first isolate is booted on a thread that ends, ``v8_spare``), creating the
next isolate on another thread crashed the host (SIGSEGV in ``mr_init_context``, every time).
V8 then protects its code as on CPUs without them (by page permissions)."""


_CREATION = threading.Lock()
"""Isolates are created one at a time: V8 aborts the process (``Check failed:
!IsConfigurablePoolInitialized()``) when its first two isolates are created at once, as the
first cell and the spare made for the next one would be (about one host start in 300)."""


def _library() -> Any:
    from py_mini_racer._dll import init_mini_racer

    return init_mini_racer(flags=V8_FLAGS, ignore_duplicate_init=True)


def _callback_type() -> Any:
    from py_mini_racer._dll import MR_CALLBACK

    return MR_CALLBACK


class Isolate:
    """A V8 context (and isolate) of one cell. Value handles (scripts, results) belong to the
    context and are freed with it.

    ``on_call(request) -> reply | None`` serves the bridge (runs on the isolate thread,
    JavaScript waiting); ``on_result(tag, TaskResult)`` receives the outcome of each task
    (isolate thread). ``heap_limit``: bytes; past it V8 stops the running JavaScript at
    its next garbage collection (:meth:`heap_limit_reached` then answers True).
    """

    def __init__(
        self,
        *,
        on_call: Callable[[str], str | None],
        on_result: Callable[[object, TaskResult], None],
        heap_limit: int,
    ) -> None:
        self._dll = _library()
        self._on_call = on_call
        self._on_result = on_result
        self._tags: dict[int, object] = {}
        self._running: dict[int, int] = {}
        """Task ids by callback id, of the tasks whose outcome has not come back yet."""
        self._next_id = _BRIDGE_CALLBACK_ID + 1
        self._ids_lock = threading.Lock()
        self._buffer: memoryview | None = None
        self._request: list[str] = []
        self._reply = b""
        self._reply_at = 0
        self._undefined: Any = None
        self._closed = False
        self._callback = _callback_type()(self._native_callback)  # kept alive with the isolate
        with _CREATION:
            self._ctx = self._dll.mr_init_context(self._callback)
        self._dll.mr_set_hard_memory_limit(self._ctx, heap_limit)

    # ---- tasks ------------------------------------------------------------------

    def attach(
        self, *, on_call: Callable[[str], str | None], on_result: Callable[[object, TaskResult], None], heap_limit: int
    ) -> None:
        """Hand an idle isolate (no task in flight) to new callbacks and a new heap limit."""
        self._on_call = on_call
        self._on_result = on_result
        self._dll.mr_set_hard_memory_limit(self._ctx, heap_limit)

    def eval(self, code: str, tag: object) -> int:
        """Queue ``code`` as a classic script; its outcome goes to ``on_result(tag, ...)``."""
        data = code.encode("utf-8", "surrogatepass")
        handle = self._dll.mr_alloc_string_val(self._ctx, data, len(data), _T_STRING)
        callback_id = self._register(tag)
        return self._started(callback_id, self._dll.mr_eval(self._ctx, handle, callback_id))

    def call(self, function: Any, argv: Any, tag: object, *, this: Any = None) -> int:
        """Queue ``function(...argv)`` with ``this`` (undefined when None); handles come from earlier results."""
        if this is None:
            if self._undefined is None:
                self._undefined = self._dll.mr_alloc_int_val(self._ctx, 0, _T_UNDEFINED)
            this = self._undefined
        callback_id = self._register(tag)
        return self._started(callback_id, self._dll.mr_call_function(self._ctx, function, this, argv, callback_id))

    def native_callback(self) -> Any:
        """A handle of the JavaScript function that calls the bridge (see the module docstring)."""
        handle = self._dll.mr_make_js_callback(self._ctx, _BRIDGE_CALLBACK_ID)
        return handle

    def cancel_running(self) -> None:
        """Terminate the tasks whose outcome has not come back (any thread; a task that
        already ended ignores it)."""
        with self._ids_lock:
            running = list(self._running.values())
        for task_id in running:
            if not self._closed:
                self._dll.mr_cancel_task(self._ctx, task_id)

    def heap_limit_reached(self) -> bool:
        """True once V8 stopped JavaScript at the heap limit (any thread)."""
        return not self._closed and bool(self._dll.mr_hard_memory_limit_reached(self._ctx))

    def close(self) -> None:
        """Free the context: running JavaScript is terminated and the isolate thread joined."""
        if self._closed:
            return
        self._closed = True
        self._buffer = None
        self._dll.mr_free_context(self._ctx)

    def _register(self, tag: object) -> int:
        with self._ids_lock:
            callback_id = self._next_id
            self._next_id += 1
            self._tags[callback_id] = tag
        return callback_id

    def _started(self, callback_id: int, task_id: int) -> int:
        """Remember a task until its outcome comes back (it may have come back already)."""
        with self._ids_lock:
            if callback_id in self._tags:
                self._running[callback_id] = int(task_id)
        return int(task_id)

    # ---- the C callback (isolate thread) -----------------------------------------

    def _native_callback(self, callback_id: int, raw: Any) -> None:
        try:
            if callback_id == _BRIDGE_CALLBACK_ID:
                self._dll.mr_free_value(self._ctx, raw)
                self._serve_bridge()
                return
            with self._ids_lock:
                tag = self._tags.pop(callback_id, None)
                self._running.pop(callback_id, None)
            self._on_result(tag, self._result(raw))
        except Exception:  # noqa: BLE001 - an exception must never cross back into C
            log.exception("V8 callback failed")

    def _result(self, raw: Any) -> TaskResult:
        value = raw.contents
        kind = value.type
        if kind in _ERROR_TYPES:
            text = value.value.bytes_val[0 : value.len].decode("utf-8", "replace")
            self._dll.mr_free_value(self._ctx, raw)
            if kind == _T_OUT_OF_MEMORY:
                return TaskResult("out_of_memory", text)
            if kind == _T_TERMINATED:
                return TaskResult("terminated", text)
            return TaskResult("parse_error" if kind == _T_PARSE_ERROR else "error", text)
        if kind == _T_STRING:
            text = value.value.bytes_val[0 : value.len].decode("utf-8", "replace")
            self._dll.mr_free_value(self._ctx, raw)
            return TaskResult("value", text)
        if kind == _T_SHARED_BUFFER:
            cells = (ctypes.c_ubyte * value.len).from_address(value.value.value_ptr)
            self._buffer = memoryview(cells).cast("B")
            return TaskResult("value")
        if kind in (_T_FUNCTION, _T_ARRAY):
            return TaskResult("handle", handle=raw)
        self._dll.mr_free_value(self._ctx, raw)
        return TaskResult("value")

    def _serve_bridge(self) -> None:
        buffer = self._buffer
        if buffer is None:
            return
        count = int.from_bytes(buffer[0:4], "little")
        flag = int.from_bytes(buffer[4:8], "little")
        if flag == _CONTINUE:
            self._write_reply_chunk(buffer)
            return
        self._request.append(bytes(buffer[_HEADER : _HEADER + 2 * count]).decode("utf-16-le", "surrogatepass"))
        if flag == _MORE:
            return
        request = "".join(self._request)
        self._request = []
        try:
            reply = self._on_call(request)
        except Exception as exc:  # noqa: BLE001 - reported to the calling helper
            log.exception("V8 bridge call failed")
            reply = f"ecode-mode runtime error: {exc}"
        if reply is None:
            buffer[0:8] = (0).to_bytes(4, "little") + _NULL.to_bytes(4, "little")
            return
        self._reply = reply.encode("utf-16-le", "surrogatepass")
        self._reply_at = 0
        self._write_reply_chunk(buffer)

    def _write_reply_chunk(self, buffer: memoryview) -> None:
        # Code units cross, not characters: a chunk may end inside a surrogate pair, which
        # JavaScript joins again when it concatenates the chunks.
        data = self._reply[self._reply_at : self._reply_at + 2 * _CAPACITY]
        self._reply_at += len(data)
        more = self._reply_at < len(self._reply)
        buffer[_HEADER : _HEADER + len(data)] = data
        buffer[0:8] = (len(data) // 2).to_bytes(4, "little") + (_MORE if more else _LAST).to_bytes(4, "little")
        if not more:
            self._reply = b""
