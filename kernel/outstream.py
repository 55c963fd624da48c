"""The kernel's ``sys.stdout`` and ``sys.stderr``: ipykernel's ``OutStream`` whose ``flush``
returns at once when nothing was written since the last one.

ipykernel flushes both streams twice around every request (before the reply, after the
handler) and each flush waits for the IOPub thread to run two callbacks, even with nothing to
send: about 0.3 ms each on the 2-core machine, over a millisecond of a trivial cell's round
trip. In this kernel nothing writes there in the normal course (a cell's output is published
by the kernel itself; a Python tool's prints are captured per call), so the wait is almost
always for nothing. A write marks the stream pending (ipykernel's ``_flush_pending``, or
``_subprocess_flush_pending`` for a forked child's) until the IOPub thread has sent it;
while either is set, ``flush`` waits as ipykernel's does.
"""

from __future__ import annotations

from ipykernel.iostream import OutStream


class KernelOutStream(OutStream):
    """``OutStream`` with a flush that skips the IOPub round trip when nothing is pending."""

    def flush(self) -> None:
        """ipykernel's flush when something was written since the last one, else nothing."""
        if getattr(self, "_flush_pending", True) or getattr(self, "_subprocess_flush_pending", True):
            super().flush()


__all__ = ["KernelOutStream"]
