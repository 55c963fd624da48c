"""The kernel application: ipykernel's ``IPKernelApp`` with a lossless IOPub socket.

ipykernel publishes IOPub on a ZeroMQ XPUB socket with the default send high-water mark of
1000 messages per subscriber. When a subscriber reads more slowly than the kernel publishes,
libzmq silently drops what does not fit (the client sees gaps, the reply still says ``ok``).
:class:`CodeModeKernelApp` sets, before the socket is bound, a high-water mark of
:data:`~codemode.kernel.protections.IOPUB_HIGH_WATER_MARK` messages (a slow subscriber's backlog
waits in the kernel's memory) and ``ZMQ_XPUB_NODROP``: past that mark a send waits for the
subscriber instead of dropping. The kernel keeps the number of messages small by coalescing
stream output (:mod:`codemode.kernel.streams`). The cost, accepted: a subscriber that stays
connected but has stopped reading for that many messages holds the kernel's output (and with it
the kernel, whose sends then wait) until it reads again or disconnects.

The kernel class applies the same options, the safe packer and the output streams again when it
is created (:mod:`codemode.kernel.protections`), so that they hold under a launcher that starts
ipykernel's plain ``IPKernelApp`` with it (Jupyter Enterprise Gateway's). Here the options are set
before the bind, so that not even the first connection is made without them.
"""

from __future__ import annotations

from typing import Any

import zmq
from ipykernel.kernelapp import IPKernelApp
from traitlets import DottedObjectName

from codemode.kernel.protections import IOPUB_OPTIONS


class CodeModeKernelApp(IPKernelApp):
    """``IPKernelApp`` whose IOPub socket never drops messages (see the module docstring) and
    whose ``sys.stdout``/``sys.stderr`` flush only when written to (:mod:`codemode.kernel.outstream`)."""

    outstream_class = DottedObjectName("codemode.kernel.outstream.KernelOutStream", config=True)

    def init_iopub(self, context: zmq.Context[Any]) -> None:
        """Create and bind the IOPub socket as ipykernel does, with its high-water mark and
        ``XPUB_NODROP`` set first (``Context.sockopts`` are applied to the sockets the context
        creates)."""
        for option, value in IOPUB_OPTIONS.items():
            context.sockopts[option] = value
        try:
            super().init_iopub(context)
        finally:
            for option in IOPUB_OPTIONS:
                context.sockopts.pop(option, None)


def launch(argv: list[str] | None = None) -> None:
    """Run the kernel (``argv`` as for ``IPKernelApp``; default ``sys.argv[1:]``)."""
    from codemode.kernel.kernel import CodeModeKernel

    CodeModeKernelApp.launch_instance(argv=argv, kernel_class=CodeModeKernel)
