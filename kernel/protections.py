"""What the kernel's process needs, applied by the kernel class itself however it was launched.

codemode's kernelspec starts ``python -E -P -m codemode.kernel``, which runs
:class:`codemode.kernel.app.CodeModeKernelApp`. Other launchers start ipykernel's plain
``IPKernelApp`` with this kernel class: Jupyter Enterprise Gateway's Python kernel launcher
(``launch_ipykernel.py --kernel-class-name codemode.kernel.kernel.CodeModeKernel``, which calls
``IPKernelApp.instance(kernel_class=...)``), ``python -m ipykernel_launcher
--IPKernelApp.kernel_class=codemode.kernel.kernel.CodeModeKernel``, a kernelspec written by hand.
:func:`apply`, called when the kernel is created (``IPKernelApp.init_kernel``, after the app made
the session, bound the IOPub socket, started its thread and replaced ``sys.stdout``/``sys.stderr``),
gives such a kernel what codemode's own launch gives it. Each step is idempotent: the kernel of
:class:`~codemode.kernel.app.CodeModeKernelApp` goes through it too.

- IOPub never drops a message: a high-water mark of :data:`IOPUB_HIGH_WATER_MARK` messages per
  subscriber and ``ZMQ_XPUB_NODROP`` (:data:`IOPUB_OPTIONS`). The app sets them before the socket
  is bound; here they are set on the bound socket, on the IOPub thread that owns it (a ZeroMQ socket
  is used by one thread at a time). libzmq 4.3 applies a high-water mark set later to the
  connections already made too, and ``XPUB_NODROP`` is read at every send.
- The session's packer writes lone surrogates as U+FFFD instead of failing the send
  (:mod:`codemode.kernel.packing`).
- ``sys.stdout``/``sys.stderr`` flush only when written to (:mod:`codemode.kernel.outstream`):
  ipykernel built them as its ``OutStream`` before the kernel existed, and
  :class:`~codemode.kernel.outstream.KernelOutStream` only overrides ``flush``, so each becomes one
  by its class.
- The working folder leaves ``sys.path`` (:mod:`codemode.kernel.import_path`): ``python -m``
  without ``-P`` puts it first, and an empty ``PYTHONPATH`` entry adds it. And the app is told not
  to add it back: IPython's ``InteractiveShellApp.init_path``, which ``IPKernelApp.initialize`` runs
  right after creating the kernel, inserts ``""`` before ``site-packages`` unless Python runs with
  ``-P`` or the app's ``ignore_cwd`` is set. What the kernel imports later (the services built at
  the first request: the MCP SDK, ``anyio``, ``jsonschema``) then never takes a file of the
  notebook's folder. Modules imported before the kernel class was created are the launcher's
  business: codemode's kernelspec runs Python with ``-E -P``.
"""

from __future__ import annotations

import logging
import sys
import threading
from typing import Any

import zmq
from ipykernel.iostream import OutStream

from codemode.kernel.import_path import drop_working_folder
from codemode.kernel.outstream import KernelOutStream
from codemode.kernel.packing import install_safe_packer

log = logging.getLogger(__name__)

IOPUB_HIGH_WATER_MARK = 100_000
"""Messages queued for one IOPub subscriber before sends wait for it (ZeroMQ's default: 1000)."""

IOPUB_OPTIONS: dict[int, int] = {zmq.SNDHWM: IOPUB_HIGH_WATER_MARK, zmq.XPUB_NODROP: 1}
"""The IOPub socket's options: ``{ZMQ option: value}``."""

IOPUB_THREAD_WAIT_S = 10.0
"""Upper bound (seconds) for the IOPub thread to set :data:`IOPUB_OPTIONS`; it does so at once
unless the thread is stuck, which is then logged."""


def set_iopub_options(socket: zmq.Socket[Any]) -> None:
    """Set :data:`IOPUB_OPTIONS` on ``socket`` (call it on the thread that uses the socket)."""
    for option, value in IOPUB_OPTIONS.items():
        socket.setsockopt(option, value)


def protect_iopub(iopub_thread: Any) -> None:
    """Set :data:`IOPUB_OPTIONS` on ``iopub_thread``'s socket (ipykernel's ``IOPubThread``) from
    that thread, and return once it did (at most :data:`IOPUB_THREAD_WAIT_S`). Nothing when
    there is no real socket (a kernel built without an app)."""
    socket = getattr(iopub_thread, "socket", None)
    if not isinstance(socket, zmq.Socket):
        return
    done = threading.Event()

    def set_options() -> None:
        try:
            set_iopub_options(socket)
        finally:
            done.set()

    iopub_thread.schedule(set_options)  # runs at once when the thread is not running
    if not done.wait(IOPUB_THREAD_WAIT_S):
        log.warning("The IOPub thread did not set the socket's high-water mark within %s s.", IOPUB_THREAD_WAIT_S)


def use_kernel_out_streams() -> None:
    """Make ``sys.stdout``/``sys.stderr`` :class:`KernelOutStream` when they are ipykernel's
    plain ``OutStream`` (the class adds no state, so the stream keeps working as it was)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if type(stream) is OutStream:
            stream.__class__ = KernelOutStream


def keep_working_folder_off_path(app: Any) -> None:
    """Remove the working folder from ``sys.path`` and set ``app.ignore_cwd`` (when ``app``, the
    kernel's parent, has that trait: an ``IPKernelApp``) so that its ``init_path`` leaves it off."""
    drop_working_folder(sys.path)
    if app is not None and app.has_trait("ignore_cwd"):
        app.ignore_cwd = True


def apply(kernel: Any) -> None:
    """Apply every protection of the module docstring to ``kernel`` (an ipykernel ``Kernel``
    with its ``session``, ``iopub_thread`` and ``parent``, the app) and its process."""
    keep_working_folder_off_path(kernel.parent)
    if kernel.session is not None:
        install_safe_packer(kernel.session)
    protect_iopub(kernel.iopub_thread)
    use_kernel_out_streams()
