"""The execution count, numbered exactly as ipykernel's IPython kernel numbers it.

ipykernel's ``Kernel.execute_request`` publishes ``execute_input`` for every request that is
not ``silent``, carrying the kernel's ``execution_count``; the IPython kernel makes that
attribute the number the *next* stored cell will get (``IPythonKernel.execution_count`` is
``shell.execution_count`` and ignores ``KernelBase``'s increment). IPython's
``InteractiveShell.run_cell_async`` advances that number only for a request that stores history
(``store_history`` true and not ``silent``) and whose code is not empty or whitespace only, and
the ``execute_reply`` carries the number before it (``shell.execution_count - 1``). So, for
normal, ``store_history=false``, ``silent`` and normal requests in a fresh kernel:

=====================  ===============  =====================
request                ``execute_input``  ``execute_reply``
=====================  ===============  =====================
normal                 1                1
``store_history=false``  2                1
``silent``             (none)           1
normal                 2                2
=====================  ===============  =====================

An empty cell is numbered like a ``store_history=false`` one. :class:`ExecutionCounter` holds
that number; the kernel exposes :attr:`ExecutionCounter.next` as its ``execution_count``
(read by ipykernel for ``execute_input``) and :attr:`ExecutionCounter.last` in replies.
"""

from __future__ import annotations


def stores_history(code: str, silent: bool, store_history: bool) -> bool:
    """True when an execute request with this ``code`` and these flags is kept in the history
    and advances the count (IPython's ``run_cell_async``: not silent, ``store_history`` and not
    blank)."""
    return store_history and not silent and bool(code.strip())


class ExecutionCounter:
    """The kernel's execution count (see the module docstring); counts start at 1."""

    def __init__(self) -> None:
        self.next = 1
        """The number the next request that stores history gets (what ``execute_input`` carries)."""

    @property
    def last(self) -> int:
        """The number of the last request that stored history, 0 before the first: what every
        ``execute_reply`` carries once its request was counted (or not)."""
        return self.next - 1

    def take(self, code: str, silent: bool, store_history: bool) -> int | None:
        """Count an execute request: its number when it stores history (:func:`stores_history`),
        which advances the count, else None (the count stays)."""
        if not stores_history(code, silent, store_history):
            return None
        number = self.next
        self.next += 1
        return number


__all__ = ["ExecutionCounter", "stores_history"]
