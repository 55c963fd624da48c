"""Keeps the ``unit`` and ``slow`` markers honest: a test marked so may start no process.

The fast subset (``python -m pytest -m unit``) and the slow in-process tests (``slow``) run
inside the pytest process: no kernel, no runtime host, no MCP server, no subprocess, no
browser. This plugin (loaded by ``tests/conftest.py``) watches every way a Python program starts
a process:

- ``subprocess.Popen`` (so also ``subprocess.run``, ``os.popen`` and asyncio's
  ``create_subprocess_exec`` / ``create_subprocess_shell``, which build a ``Popen``);
- ``os.fork``, ``os.forkpty``, ``os.posix_spawn``, ``os.posix_spawnp``, ``os.system`` (so also
  ``os.spawn*``, ``pty.fork`` and ``multiprocessing``'s ``fork`` context);
- ``_posixsubprocess.fork_exec`` (``multiprocessing``'s ``spawn`` and ``forkserver`` contexts).

While a test marked ``unit`` or ``slow`` runs (its set-up, including the set-up of wider-scoped
fixtures it is the first to use, and its call), each of these raises
:class:`ProcessStartBlocked`; a test that catches that exception still fails, with the same
message. The test's threads are watched too; threads that ran before it (but the main thread)
are not: what they start belongs to an earlier test. Other tests are not watched, nor is any
teardown (a unit test may be the last user of a module's kernel, which its teardown stops).

At collection, every test marked neither ``unit`` nor ``slow`` gets ``e2e`` (under
``tests/e2e/``) or ``process`` (the others, the notebooks included), so that each marker selects
its tests.

``--process-audit=PATH`` re-derives the marking: it blocks process creation in EVERY test (so a
whole run is quick: the process tests fail at their first start) and writes to ``PATH`` the node
ids of the tests that tried to start one (directly, or through a fixture whose set-up failed with
:class:`ProcessStartBlocked`), one a line, sorted. Every other test is in-process and can be
marked ``unit`` (or ``slow``).
"""

from __future__ import annotations

import _posixsubprocess
import os
import subprocess
import threading
import traceback
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: (module, attribute) of every function that starts a process.
WATCHED: tuple[tuple[Any, str], ...] = (
    (subprocess.Popen, "_execute_child"),
    (subprocess, "_fork_exec"),
    (_posixsubprocess, "fork_exec"),
    (os, "fork"),
    (os, "forkpty"),
    (os, "posix_spawn"),
    (os, "posix_spawnp"),
    (os, "system"),
)


IN_PROCESS = ("unit", "slow")
"""The markers of the tests that start no process."""


class ProcessStartBlocked(RuntimeError):
    """Raised by every watched function while a ``unit`` or ``slow`` test runs."""


@dataclass
class Watch:
    """The process starts attempted while one test ran: ``(function name, where it was called)``."""

    test: str
    marker: str
    attempts: list[tuple[str, str]] = field(default_factory=list)
    #: Threads other than the main one that ran before the test: what they start is not the
    #: test's (a thread an earlier test left behind), so they are not watched.
    earlier_threads: set[threading.Thread] = field(default_factory=set)

    def watches(self, thread: threading.Thread) -> bool:
        return thread is threading.main_thread() or thread not in self.earlier_threads

    def message(self) -> str:
        name, where = self.attempts[0]
        return (
            f"{self.test} is marked `{self.marker}` but started a process ({name}, "
            f"{len(self.attempts)} attempt(s) in all), first at:\n{where}"
            f"A `{self.marker}` test runs inside the pytest process only (no kernel, host, MCP server, "
            f"subprocess or browser): remove `{self.marker}` (it is then a `process` test), or fake the process."
        )


#: The watch of the test running now, innermost last (pytester runs tests inside a test).
_watches: list[Watch] = []


def _caller() -> str:
    """The last frames before the watched function, without pytest's own."""
    frames = [f for f in traceback.extract_stack()[:-2] if not any(part in f.filename for part in _MACHINERY)]
    return "".join(traceback.format_list(frames[-6:]))


_MACHINERY = ("/_pytest/", "/pluggy/", "/pytest/__main__.py", "<frozen ")


def _watching(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def watched(*args: Any, **kwargs: Any) -> Any:
        if not _watches or not _watches[-1].watches(threading.current_thread()):
            return original(*args, **kwargs)
        watch = _watches[-1]
        where = _caller()
        watch.attempts.append((name, where))
        raise ProcessStartBlocked(watch.message())

    watched.__wrapped__ = original  # type: ignore[attr-defined]
    return watched


def install() -> None:
    """Wrap every watched function once per interpreter (idempotent: pytester re-configures)."""
    for owner, attribute in WATCHED:
        current = getattr(owner, attribute)
        if not hasattr(current, "__wrapped__"):
            where = f"{owner.__module__}.{owner.__qualname__}" if isinstance(owner, type) else owner.__name__
            setattr(owner, attribute, _watching(f"{where}.{attribute}", current))


def _marker(item: pytest.Item) -> str | None:
    """The in-process marker of ``item`` (``--process-audit``: every test is watched)."""
    for name in IN_PROCESS:
        if item.get_closest_marker(name) is not None:
            return name
    return "audited" if item.config.getoption("process_audit") is not None else None


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--process-audit",
        metavar="PATH",
        default=None,
        help="block process creation in every test and write the node ids of the tests that tried to PATH",
    )


E2E = Path(__file__).resolve().parent / "e2e"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that is neither ``unit`` nor ``slow`` as ``e2e`` or ``process``."""
    for item in items:
        if not any(item.get_closest_marker(name) for name in IN_PROCESS):
            item.add_marker(pytest.mark.e2e if item.path.is_relative_to(E2E) else pytest.mark.process)


def pytest_configure(config: pytest.Config) -> None:
    install()
    config.stash[_AUDITED] = set()


_AUDITED = pytest.StashKey[set[str]]()
_WATCH = pytest.StashKey[Watch]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, object, object]:
    marker = _marker(item)
    if marker is not None:
        item.stash[_WATCH] = Watch(item.nodeid, marker)
    try:
        return (yield)
    finally:
        watch = item.stash.get(_WATCH, None)
        if watch is not None:
            if watch in _watches:  # its set-up failed
                _watches.remove(watch)
            if watch.attempts:
                item.config.stash[_AUDITED].add(item.nodeid)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    watch = item.stash.get(_WATCH, None)
    if watch is not None:
        watch.earlier_threads = set(threading.enumerate())
        _watches.append(watch)
    return (yield)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    watch = item.stash.get(_WATCH, None)
    try:
        outcome = yield
    finally:
        if watch is not None:
            _watches.remove(watch)
    if watch is not None and watch.attempts and item.config.getoption("process_audit") is None:
        # The test (or a fixture) caught the exception, or turned it into another error.
        pytest.fail(watch.message(), pytrace=False)
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, object, object]:
    report = yield
    # A wider-scoped fixture whose set-up was blocked re-raises its cached error in later tests
    # without calling the watched function again: those tests start a process too.
    if call.excinfo is not None and call.excinfo.errisinstance(ProcessStartBlocked):
        item.config.stash[_AUDITED].add(item.nodeid)
    return report


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.getoption("process_audit")
    if path is not None:
        audited = session.config.stash[_AUDITED]
        Path(path).write_text("".join(f"{nodeid}\n" for nodeid in sorted(audited)))
