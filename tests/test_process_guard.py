"""The guard that keeps the ``unit`` marker honest (``tests/process_guard.py``), run on small test
files in a pytest session inside this one (pytester), where the guard keeps every process from
starting: this module starts none."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from process_guard import Watch

pytestmark = pytest.mark.unit

INI = """
[pytest]
markers =
    unit: starts no process
    slow: starts no process, slowly
    process: starts a process
    e2e: end to end
"""


def run(pytester: pytest.Pytester, source: str, *args: str) -> pytest.RunResult:
    # Without the installed plugins (nbval, hypothesis, ...): loading them takes seconds.
    pytester._monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makeini(INI)
    pytester.makepyfile(test_inner=source)
    return pytester.runpytest_inprocess("-p", "process_guard", "-p", "no:cacheprovider", "--tb=short", *args)


def message(test: str, function: str, marker: str = "unit") -> str:
    return f"test_inner.py::{test} is marked `{marker}` but started a process ({function}, 1 attempt(s) in all)"


STARTS = """
import asyncio, os, subprocess
import pytest

pytestmark = pytest.mark.unit

def test_run():
    subprocess.run(["true"])

def test_asyncio():
    async def start():
        await asyncio.create_subprocess_exec("true")
    asyncio.run(start())

def test_fork():
    if os.fork() == 0:  # only if the guard let it through
        os._exit(0)

def test_posix_spawn():
    os.posix_spawn("/bin/true", ["true"], {})

def test_system():
    os.system("true")

def test_thread():
    import threading
    thread = threading.Thread(target=subprocess.run, args=(["true"],))
    thread.start()
    thread.join()

def test_caught():
    try:
        subprocess.run(["true"])
    except Exception:
        pass

def test_in_process():
    assert sum([1, 2]) == 3
"""


def test_every_way_to_start_a_process_fails_a_unit_test(pytester):
    result = run(pytester, STARTS)
    result.assert_outcomes(passed=1, failed=7)
    text = result.stdout.str()
    for test, function in (
        ("test_run", "subprocess.Popen._execute_child"),
        ("test_asyncio", "subprocess.Popen._execute_child"),
        ("test_fork", "os.fork"),
        ("test_posix_spawn", "os.posix_spawn"),
        ("test_system", "os.system"),
    ):
        assert message(test, function) in text
        assert f"FAILED test_inner.py::{test} - " in text
    # Started by the test's thread, or caught by the test, the attempt still fails it.
    assert message("test_thread", "subprocess.Popen._execute_child") in text
    assert message("test_caught", "subprocess.Popen._execute_child") in text
    assert "FAILED test_inner.py::test_caught - Failed: " in text


FIXTURE = """
import subprocess
import pytest

@pytest.fixture(scope="module")
def server():
    return subprocess.Popen(["sleep", "60"])

@pytest.mark.unit
def test_uses_a_server(server):
    pass

@pytest.mark.slow
def test_slow():
    subprocess.run(["true"])

def test_neither():
    pass
"""


def test_a_wider_scoped_fixture_or_a_slow_test_that_starts_a_process_fails(pytester):
    result = run(pytester, FIXTURE)
    result.assert_outcomes(errors=1, failed=1, passed=1)
    text = result.stdout.str()
    assert message("test_uses_a_server", "subprocess.Popen._execute_child") in text
    assert message("test_slow", "subprocess.Popen._execute_child", "slow") in text


AUDITED = """
import subprocess
import pytest

@pytest.fixture(scope="module")
def server():
    return subprocess.Popen(["sleep", "60"])

def test_first_user(server):
    pass

def test_second_user(server):  # gets the fixture's cached error, without a new attempt
    pass

def test_direct():
    subprocess.run(["true"])

def test_in_process():
    pass
"""


def test_the_audit_names_every_test_that_tries_to_start_a_process(pytester):
    audit = pytester.path / "audit.txt"
    result = run(pytester, AUDITED, f"--process-audit={audit}")
    result.assert_outcomes(passed=1, failed=1, errors=2)
    assert Path(audit).read_text() == (
        "test_inner.py::test_direct\ntest_inner.py::test_first_user\ntest_inner.py::test_second_user\n"
    )


def test_threads_that_ran_before_the_test_are_not_watched_but_the_main_thread_is():
    earlier, main = threading.Thread(target=lambda: None), threading.main_thread()
    watch = Watch("t", "unit", earlier_threads={earlier, main})
    assert (watch.watches(earlier), watch.watches(main), watch.watches(threading.Thread())) == (False, True, True)
