"""``codemode.tools.launcher``: tools die with the kernel, exit statuses pass through."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
import pytest

from codemode.tools.launcher import EXIT_NOT_STARTED, launcher_argv

pytestmark = [
    pytest.mark.timeout(60),
]


def run(cmd: str) -> subprocess.CompletedProcess:
    return subprocess.run(launcher_argv("bash", ["-c", cmd]), capture_output=True, text=True, timeout=30)


def gone_within(pids: list[int], seconds: float = 20) -> list[int]:
    """The pids still alive (not zombies) once ``seconds`` have passed or all are gone."""
    deadline = time.monotonic() + seconds
    while True:
        alive = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def test_exit_code_output_and_terminating_signal_pass_through():
    done = run("echo out; echo err >&2; exit 3")
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
    assert run("kill -TERM $$").returncode == -15


def test_tool_gets_sigpipe_back_at_its_default():
    # Python ignores SIGPIPE and the ignore survives exec: `yes` would report "Broken pipe".
    done = run("yes | head -c 4")
    assert (done.returncode, done.stdout, done.stderr) == (0, "y\ny\n", "")


def test_missing_command_exits_127_with_a_message():
    done = subprocess.run(launcher_argv("/nonexistent/tool", []), capture_output=True, text=True)
    assert done.returncode == EXIT_NOT_STARTED
    assert done.stderr == "codemode launcher: cannot start '/nonexistent/tool': No such file or directory\n"


def test_leftovers_are_killed_when_the_tool_exits():
    # `setsid` puts the sleep in another session: only the subreaper still finds it.
    done = run("setsid sleep 120 & echo $!")
    assert done.returncode == 0
    assert gone_within([int(done.stdout.split()[0])]) == []


def test_everything_dies_when_the_watched_parent_is_killed():
    # An intermediate parent starts the launcher (its own session, as the kernel does), prints
    # the pids of the command's processes, then is SIGKILLed.
    script = (
        "import subprocess, sys, time\n"
        f"argv = {launcher_argv('bash', ['-c', 'setsid sleep 121 & echo $!; (sleep 122 & echo $!); sleep 123'], parent_pid=0)!r}\n"
        "argv[argv.index('--parent') + 1] = str(__import__('os').getpid())\n"
        "p = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.PIPE, text=True)\n"
        "print(p.pid, p.stdout.readline().strip(), p.stdout.readline().strip(), flush=True)\n"
        "time.sleep(120)\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    pids = [int(x) for x in parent.stdout.readline().split()]
    launcher = psutil.Process(pids[0])
    tree = [launcher, *launcher.children(recursive=True)]
    watched = sorted({p.pid for p in tree} | set(pids))
    assert len(watched) >= 4  # launcher, bash/sleep 123, sleep 121, sleep 122
    parent.kill()
    parent.wait()
    assert gone_within(watched) == []


def test_a_launcher_whose_parent_is_already_gone_starts_nothing(tmp_path):
    marker = tmp_path / "ran"
    done = subprocess.run(launcher_argv("touch", [str(marker)], parent_pid=1), capture_output=True, text=True)
    assert done.returncode == EXIT_NOT_STARTED and not marker.exists()
    assert done.stderr == "codemode launcher: the process 1 that started the tool is gone; not starting it\n"
