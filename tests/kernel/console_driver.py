"""Drive ``jupyter console --kernel codemode`` in a tmux session, as a terminal user would."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from dependencies import require


class Console:
    """A ``jupyter console`` running as the only command of a detached tmux session (160x40)
    in ``cwd``, with ``env`` added to its environment. Use as a context manager: the session is
    killed on leaving."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        require(shutil.which("tmux") is not None, "tmux is not installed")
        self.session = f"codemode-{uuid.uuid4().hex[:8]}"
        console = Path(sys.executable).parent / "jupyter-console"
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in (env or {}).items())
        self._command = f"cd {shlex.quote(str(cwd))} && {assignments} {console} --kernel codemode"

    def __enter__(self) -> Console:
        subprocess.run(
            ["tmux", "new-session", "-d", "-s", self.session, "-x", "160", "-y", "40", self._command], check=True
        )
        return self

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.session], capture_output=True)

    def pane(self) -> str:
        """What the terminal shows now."""
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.session], capture_output=True, text=True).stdout

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
        subprocess.run(["tmux", "send-keys", "-t", self.session, *keys], check=True)

    def quit(self, timeout: float = 20) -> None:
        """Leave with Ctrl-D and ``y``, and wait until the console has exited."""
        self.keys("C-d")
        self.wait_for("exit")
        self.keys("y", "Enter")
        deadline = time.monotonic() + timeout
        while subprocess.run(["tmux", "has-session", "-t", self.session], capture_output=True).returncode == 0:
            # The console ran as the session's only command: the session ends when it exits.
            assert time.monotonic() < deadline, f"jupyter console did not exit; the pane shows:\n{self.pane()}"
            time.sleep(0.2)
