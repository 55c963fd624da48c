"""Drive ``jupyter console --kernel codemode`` in a tmux session, as a terminal user would."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from dependencies import require


class Console:
    """A ``jupyter console`` running as the only command of a detached tmux session (160x40)
    in ``cwd``, with ``env`` added to its environment. Use as a context manager: the session is
    killed on leaving.

    Each console has a tmux server of its own (``tmux -S``): a session of an already running
    server gets that server's environment, not the test's, so a tmux the user (or another test
    run) had open made the console start without the test's ``JUPYTER_PATH``, find no
    ``codemode`` kernel and exit at once, leaving an empty pane."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        require(shutil.which("tmux") is not None, "tmux is not installed")
        self.session = f"codemode-{uuid.uuid4().hex[:8]}"
        # A server of its own, started with this environment and without the user's tmux.conf
        # (a `remain-on-exit` there would keep a finished console's pane), on a socket removed on
        # leaving; in /tmp, as a long $TMPDIR could pass the 107 bytes a socket's path may have.
        self._socket_dir = tempfile.mkdtemp(prefix="cm-tmux-", dir="/tmp")
        self._tmux = ["tmux", "-S", os.path.join(self._socket_dir, "s"), "-f", os.devnull]
        console = Path(sys.executable).parent / "jupyter-console"
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        self._command = f"cd {shlex.quote(str(cwd))} && {assignments} {console} --kernel codemode"

    def __enter__(self) -> Console:
        try:
            subprocess.run(
                [*self._tmux, "new-session", "-d", "-s", self.session, "-x", "160", "-y", "40", self._command],
                check=True,
            )
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.run([*self._tmux, "kill-server"], capture_output=True)
        shutil.rmtree(self._socket_dir, ignore_errors=True)

    def pane(self) -> str:
        """What the terminal shows now."""
        return subprocess.run(
            [*self._tmux, "capture-pane", "-p", "-t", self.session], capture_output=True, text=True
        ).stdout

    def wait_for(self, text: str, timeout: float = 60) -> str:
        """The pane once it shows ``text``; fails after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.pane()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the pane shows:\n{self.pane()}")

    def keys(self, *keys: str) -> None:
        """Type ``keys`` (tmux key names such as ``Enter``, ``Up``, ``C-d``, or text)."""
        subprocess.run([*self._tmux, "send-keys", "-t", self.session, *keys], check=True)

    def quit(self, timeout: float = 20) -> None:
        """Leave with Ctrl-D and ``y``, and wait until the console has exited."""
        self.keys("C-d")
        self.wait_for("exit")
        self.keys("y", "Enter")
        deadline = time.monotonic() + timeout
        while subprocess.run([*self._tmux, "has-session", "-t", self.session], capture_output=True).returncode == 0:
            # The console ran as the session's only command: the session ends when it exits.
            assert time.monotonic() < deadline, f"jupyter console did not exit; the pane shows:\n{self.pane()}"
            time.sleep(0.2)
