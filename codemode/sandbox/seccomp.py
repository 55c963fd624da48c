"""The system-call filter loaded into a sandboxed command (bubblewrap's ``--seccomp FD``).

Built with libseccomp (through the ``pyseccomp`` binding) as Codex's Linux sandbox builds its
own (``codex-rs/linux-sandbox/src/landlock.rs``, ``install_network_seccomp_filter_on_current_thread``):
every system call is allowed except

- always: ``ptrace``, ``process_vm_readv``, ``process_vm_writev`` and the ``io_uring`` calls
  (no reading or steering other processes, no side door around the filter), and setting the
  set-user-ID or set-group-ID bit of a file (:data:`MODE_ARGUMENTS`);
- without network: the calls that open or use network connections (``connect``, ``bind``,
  ``listen``, ``accept``, ``sendto``, ...), ``socket`` / ``socketpair`` for every family
  but ``AF_UNIX``, and Unix datagram sockets, single or in pairs (each can send to any named
  socket of the machine with ``sendmsg``); Unix stream pairs still work.

A denied call fails with ``EPERM`` ("Operation not permitted"); the command itself goes on.
The filter is defence in depth: without network the command also runs in a network namespace
of its own, with only a loopback interface.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import socket
import stat
import tempfile

ALWAYS_DENIED = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
)
"""System calls a sandboxed command never gets (Codex's list)."""

NETWORK_CALLS = ("connect", "accept", "accept4", "bind", "listen", "sendmmsg", "recvmmsg")
"""System calls denied when the command has no network: those that open a connection or send
to an address; ``sendto`` is denied only with an address (its fifth argument), since ``send()``
on a connected socket is ``sendto`` without one (asyncio wakes its loop that way through a
``socketpair``). Codex's list
also denies ``getpeername``, ``getsockname``, ``getsockopt``, ``setsockopt`` and ``shutdown``;
they only act on a socket the command already has, and denying ``getpeername`` makes bash take
``/dev/null`` for a network connection and run ``~/.bashrc`` (its ``isnetconn`` check treats
any error but ``ENOTSOCK`` as "a socket"), so they stay allowed here."""


MODE_ARGUMENTS = {
    "chmod": 1,
    "fchmod": 1,
    "fchmodat": 2,
    "fchmodat2": 2,
    "open": 2,
    "openat": 3,
    "creat": 1,
    "mkdir": 1,
    "mkdirat": 2,
}
"""Calls that set a file's mode, and which argument holds it: none may set the set-user-ID or
set-group-ID bit. A kernel running as root keeps uid 0 in the sandbox, so a set-user-ID file a
command made in a writable folder would give root to whoever runs it outside."""

SOCKET_TYPE_MASK = 0xF
"""The bits of ``socket()``'s type argument that hold the type (the rest are flags such as
``SOCK_CLOEXEC``)."""


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its binding) cannot build the filter; the message says why."""


@functools.cache
def filter_program(network: bool) -> bytes:
    """The compiled BPF program for a command with or without ``network``, as bubblewrap reads
    it from ``--seccomp FD``. Raises :class:`SeccompUnavailable`."""
    try:
        import pyseccomp
    except (ImportError, OSError) as exc:  # the binding loads libseccomp.so.2 at import
        raise SeccompUnavailable(f"libseccomp cannot be loaded ({exc})") from None
    try:
        rules = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        deny = pyseccomp.ERRNO(errno.EPERM)
        for name in ALWAYS_DENIED:
            rules.add_rule(deny, name)
        for name, mode_argument in MODE_ARGUMENTS.items():
            for bit in (stat.S_ISUID, stat.S_ISGID):
                with contextlib.suppress(RuntimeError, ValueError):  # a call this kernel lacks
                    rules.add_rule(deny, name, pyseccomp.Arg(mode_argument, pyseccomp.MASKED_EQ, bit, bit))
        if not network:
            for name in NETWORK_CALLS:
                rules.add_rule(deny, name)
            rules.add_rule(deny, "sendto", pyseccomp.Arg(4, pyseccomp.NE, 0))
            for name in ("socket", "socketpair"):
                rules.add_rule(deny, name, pyseccomp.Arg(0, pyseccomp.NE, socket.AF_UNIX))
            # An unconnected Unix datagram socket reaches any named socket with sendmsg
            # (/dev/log, the journal), which cannot be denied by its address: no such socket.
            for name in ("socket", "socketpair"):  # a datagram pair's sendmsg takes an address too
                rules.add_rule(
                    deny,
                    name,
                    pyseccomp.Arg(0, pyseccomp.EQ, socket.AF_UNIX),
                    pyseccomp.Arg(1, pyseccomp.MASKED_EQ, SOCKET_TYPE_MASK, socket.SOCK_DGRAM),
                )
        with tempfile.TemporaryFile() as out:
            rules.export_bpf(out)
            out.seek(0)
            return out.read()
    except (OSError, RuntimeError, ValueError) as exc:
        raise SeccompUnavailable(f"libseccomp could not build the filter ({exc})") from None


def filter_fd(network: bool) -> int:
    """A new file descriptor holding :func:`filter_program` from its start, for one command
    (the caller closes it once the command started). Raises :class:`SeccompUnavailable`."""
    program = filter_program(network)
    fd = os.memfd_create("codemode-seccomp")  # close-on-exec; the spawn passes it on (pass_fds)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd
