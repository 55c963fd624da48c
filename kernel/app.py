"""The kernel application: ipykernel's ``IPKernelApp`` with a lossless IOPub socket.

ipykernel publishes IOPub on a ZeroMQ XPUB socket with the default send high-water mark of
1000 messages per subscriber. When a subscriber reads more slowly than the kernel publishes,
libzmq silently drops what does not fit (the client sees gaps, the reply still says ``ok``).
:class:`CodeModeKernelApp` sets ``ZMQ_XPUB_NODROP`` on that socket before it is bound: at the
high-water mark a send then waits for the subscriber instead of dropping. ipykernel sends from
its own IOPub thread, so the wait holds only that thread; the kernel itself goes on, and keeps
the number of messages small by coalescing stream output (:mod:`codemode.kernel.streams`).
The cost, accepted: a subscriber that stays connected but stops reading holds back IOPub
output for every client until it reads again or disconnects.
"""

from __future__ import annotations

from typing import Any

import zmq
from ipykernel.kernelapp import IPKernelApp


class CodeModeKernelApp(IPKernelApp):
    """``IPKernelApp`` whose IOPub socket never drops messages (see the module docstring)."""

    name = "codemode-kernel"

    def init_iopub(self, context: zmq.Context[Any]) -> None:
        """Create and bind the IOPub socket as ipykernel does, with ``XPUB_NODROP`` set first
        (a socket option takes effect for connections made after it is set)."""
        context.sockopts[zmq.XPUB_NODROP] = 1
        try:
            super().init_iopub(context)
        finally:
            context.sockopts.pop(zmq.XPUB_NODROP, None)


def launch(argv: list[str] | None = None) -> None:
    """Run the kernel (``argv`` as for ``IPKernelApp``; default ``sys.argv[1:]``)."""
    from codemode.kernel.kernel import CodeModeKernel

    CodeModeKernelApp.launch_instance(argv=argv, kernel_class=CodeModeKernel)
