"""A supervisor that makes tool processes die with the kernel, even when it is SIGKILLed.

Why: MCP stdio servers and ``exec_command`` commands run in their own process session, so a
SIGINT aimed at the kernel's process group (a Jupyter interrupt) does not reach them. The price
is that nothing kills them when the kernel dies without cleaning up (SIGKILL, OOM killer): they
would be re-parented and live on. No tool process may outlive the kernel.

How: the kernel does not start the tool directly but this file, as
``python -I -S launcher.py --parent <kernel pid> -- COMMAND ARG...`` (see
:func:`launcher_argv`). The launcher

1. becomes the leader of a new session and process group (unless the spawner already did
   that, as the MCP SDK and ``exec_command`` do with ``start_new_session``), and a *child
   subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so descendants that daemonise or leave the
   group are re-parented to it instead of to init;
2. checks that its parent is still the kernel and watches the kernel through a pidfd
   (``pidfd_open``, Linux >= 5.3; otherwise it polls ``getppid()`` every 0.5 s);
3. starts the tool in the launcher's own process group, with ``PR_SET_PDEATHSIG(SIGKILL)``
   (should the launcher itself be killed) and SIGPIPE / SIGXFSZ back at their defaults, handing it stdin/stdout/stderr unchanged (no
   proxying: the MCP traffic or command output goes straight to the kernel's pipes), then
   drops its own copies of stdin/stdout so the kernel sees EOF when the tool exits. Because
   tool and launcher share the group, the spawner's ``killpg(launcher pid, ...)`` (the MCP
   SDK's shutdown, ``exec_command``'s cancellation) reaches both;
4. forwards SIGTERM / SIGINT / SIGHUP sent to the launcher alone on to the tool (a group
   signal therefore reaches the tool twice, which is harmless for these signals);
5. when the tool exits: kills whatever the tool left behind (every descendant, SIGKILL),
   then exits with the tool's status (same code, or re-raises the tool's terminating signal
   on itself);
6. when the kernel dies first: SIGTERM to every descendant and the group, up to
   :data:`GRACE_S` seconds for them to exit, then SIGKILL, then exits.

Only the standard library is used and nothing from ``codemode`` is imported, so the file runs
with ``-I -S`` (isolated, no site packages; about 20 ms to start). Linux only (``prctl``,
``/proc``); on other systems :func:`launcher_argv` returns the command unchanged.
"""

from __future__ import annotations

import os
import select
import signal
import sys

GRACE_S = 2.0
"""After the kernel died: how long descendants get between SIGTERM and SIGKILL, in seconds."""

PARENT_POLL_S = 0.5
"""Without pidfds: how often the launcher checks ``getppid()``, in seconds."""

EXIT_NOT_STARTED = 127
"""Exit code when the tool cannot be started (as a shell would for a missing command)."""

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_PYTHON_IGNORED = (signal.SIGPIPE, signal.SIGXFSZ)
"""Signals Python ignores at start-up; ignored dispositions survive ``exec``, so the tool gets
them back at their defaults (as ``subprocess``'s ``restore_signals`` does): ``yes | head``
must end quietly on SIGPIPE, not print "Broken pipe"."""


def supported() -> bool:
    """True where the launcher works (Linux with ``/proc``)."""
    return sys.platform.startswith("linux") and os.path.isdir("/proc/self")


def launcher_argv(command: str, args: list[str], parent_pid: int | None = None) -> list[str]:
    """The argv that runs ``command args...`` under the launcher, watching ``parent_pid``
    (default: this process). ``command`` is looked up on ``PATH`` by the launcher when it has
    no ``/``. Where the launcher is not :func:`supported`, returns ``[command, *args]``."""
    if not supported():
        return [command, *args]
    parent = os.getpid() if parent_pid is None else parent_pid
    return [sys.executable, "-I", "-S", os.path.abspath(__file__), "--parent", str(parent), "--", command, *args]


# -- the launcher process -----------------------------------------------------------------
def _log(message: str) -> None:
    try:
        os.write(2, f"codemode launcher: {message}\n".encode("utf-8", "replace"))
    except OSError:
        pass


def _prctl(option: int, value: int) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, value, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _descendants(root: int) -> list[int]:
    """Pids of every live descendant of ``root``, from ``/proc/*/stat`` (parents first)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) < 2 or fields[0] == b"Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found: list[int] = []
    queue = [root]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def _signal_all(sig: int) -> None:
    """Send ``sig`` to every descendant. As a subreaper we are the ancestor of every process
    the tool started, wherever its group or session, unless it was already reaped."""
    for pid in _descendants(os.getpid()):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _reap(child: int, status: list[int]) -> bool:
    """Reap every exited child; record ``child``'s wait status. False when none is left."""
    while True:
        try:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True
        if pid == child:
            status.append(wait_status)


def _watch_parent(parent: int) -> int | None:
    """A pidfd for ``parent`` (readable once it exits), or ``None`` to fall back to polling.
    Exits at once when the parent is already gone."""
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(parent)
        except OSError:
            pidfd = None
    # Checked after opening: if the kernel is still our parent now, the pidfd is the kernel's
    # (its pid cannot have been reused while it is alive).
    if os.getppid() != parent:
        _log(f"the process {parent} that started the tool is gone; not starting it")
        sys.exit(EXIT_NOT_STARTED)
    return pidfd


def _drain(fd: int) -> bytes:
    """Everything readable from the (non-blocking) signal wake-up pipe."""
    try:
        return os.read(fd, 512)
    except BlockingIOError:
        return b""


def _exit_like(wait_status: int) -> None:
    if os.WIFSIGNALED(wait_status):
        sig = os.WTERMSIG(wait_status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL / SIGSTOP cannot be handled anyway
        signal.set_wakeup_fd(-1)
        os.kill(os.getpid(), sig)
        sys.exit(128 + sig)
    sys.exit(os.waitstatus_to_exitcode(wait_status))


def _drop_stdio() -> None:
    """Point our stdin/stdout at /dev/null: only the tool holds the kernel's pipes."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)


def _initial_environment() -> dict[bytes, bytes]:
    """The environment this process was started with, exactly: Python itself sets
    ``LC_CTYPE=C.UTF-8`` at start-up under the C locale (PEP 538 locale coercion, which ``-I``
    cannot turn off), and the tool must not see a variable its spawner did not give it.
    ``/proc/self/environ`` keeps the block the kernel handed to ``exec``."""
    try:
        with open("/proc/self/environ", "rb") as f:
            block = f.read()
    except OSError:
        return dict(os.environb)
    pairs = (entry.partition(b"=") for entry in block.split(b"\0") if b"=" in entry)
    return {name: value for name, _, value in pairs}


def _spawn(argv: list[str]) -> int:
    """Fork and exec ``argv`` (``PATH`` lookup) with the launcher's initial environment; the
    child dies with us (PDEATHSIG). Raises ``OSError`` when the exec fails."""
    env = _initial_environment()
    err_r, err_w = os.pipe()
    launcher = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: only async-signal-safe work until exec
        try:
            os.close(err_r)
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != launcher:
                os._exit(EXIT_NOT_STARTED)
            for sig in (*_FORWARDED, signal.SIGCHLD, *_PYTHON_IGNORED):
                signal.signal(sig, signal.SIG_DFL)
            os.execvpe(argv[0], argv, env)
        except OSError as exc:
            os.write(err_w, str(exc.errno or 0).encode())
        finally:
            os._exit(EXIT_NOT_STARTED)
    os.close(err_w)
    with os.fdopen(err_r, "rb") as f:
        failed = f.read()
    if failed:
        os.waitpid(pid, 0)
        errno = int(failed)
        raise OSError(errno, os.strerror(errno))
    return pid


def run(parent: int, argv: list[str]) -> None:
    """Supervise ``argv`` until it exits (then exit like it) or ``parent`` dies (then kill
    every descendant and exit). Never returns."""
    try:
        os.setsid()
    except OSError:
        pass  # already a session leader (start_new_session)
    if not _prctl(_PR_SET_CHILD_SUBREAPER, 1):
        _log("PR_SET_CHILD_SUBREAPER is unavailable; descendants that leave the tool's tree may survive")
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    os.set_blocking(wake_r, False)
    signal.set_wakeup_fd(wake_w)
    for sig in (*_FORWARDED, signal.SIGCHLD):
        signal.signal(sig, lambda *_: None)
    pidfd = _watch_parent(parent)
    try:
        child = _spawn(argv)
    except OSError as exc:
        _log(f"cannot start {argv[0]!r}: {exc.strerror or exc}")
        sys.exit(EXIT_NOT_STARTED)
    _drop_stdio()
    poller = select.poll()
    poller.register(wake_r, select.POLLIN)
    if pidfd is not None:
        poller.register(pidfd, select.POLLIN)
    status: list[int] = []
    while True:
        ready = poller.poll(None if pidfd is not None else PARENT_POLL_S * 1000)
        parent_gone = any(fd == pidfd for fd, _ in ready) or os.getppid() != parent
        if any(fd == wake_r for fd, _ in ready):
            for signum in _drain(wake_r):
                if signum in _FORWARDED and not status:
                    try:
                        os.kill(child, signum)
                    except (ProcessLookupError, PermissionError):
                        pass
        _reap(child, status)
        if status:
            _signal_all(signal.SIGKILL)  # whatever the tool left behind
            _reap_all(child, status)
            _exit_like(status[0])
        if parent_gone:
            _shutdown_orphaned(child, status, wake_r)


def _shutdown_orphaned(child: int, status: list[int], wake_r: int) -> None:
    """The kernel died: SIGTERM everything, give it :data:`GRACE_S`, SIGKILL, exit."""
    import time

    _signal_all(signal.SIGTERM)
    deadline = time.monotonic() + GRACE_S
    while _reap(child, status):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        select.select([wake_r], [], [], left)
        _drain(wake_r)
    _signal_all(signal.SIGKILL)
    _reap_all(child, status)
    os._exit(0)


def _reap_all(child: int, status: list[int]) -> None:
    """After SIGKILL to every descendant: reap them as they die (re-parented to us), for at
    most :data:`GRACE_S` seconds (a process stuck in the kernel cannot hold us forever)."""
    import time

    deadline = time.monotonic() + GRACE_S
    while _reap(child, status) and time.monotonic() < deadline:
        time.sleep(0.01)


def main(argv: list[str]) -> None:
    """``--parent PID -- COMMAND ARG...``"""
    try:
        split = argv.index("--")
        parent = int(argv[argv.index("--parent") + 1])
        command = argv[split + 1 :]
    except (ValueError, IndexError):
        _log("usage: launcher.py --parent PID -- COMMAND [ARG...]")
        sys.exit(2)
    if not command:
        _log("no command given")
        sys.exit(2)
    run(parent, command)


if __name__ == "__main__":
    main(sys.argv[1:])
