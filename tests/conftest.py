"""Test-session set-up shared by every layer.

Markers (described in ``pyproject.toml``, given and kept honest by ``process_guard.py``): a
test that starts no process carries ``unit``, or ``slow`` when it takes seconds; every other
test gets ``e2e`` (under ``tests/e2e/``) or ``process`` at collection.

At session start, ``CODEMODE_HISTORY_FILE`` points into a temporary prefix, so the kernels'
input history stays out of the user's Jupyter data directory. After collection, when a
selected test is marked ``process`` or ``e2e`` (the in-process ones need none of this):
- ``scripts/install-tools.sh`` installs the npm MCP servers into ``.npm-tools/`` and the
  Debian packages the tests drive (tmux), when they are missing;
- the codemode kernelspec is installed from this checkout into a temporary prefix, and
  ``JUPYTER_PATH`` points there, so nbval, jupyter_client and jupyter console find
  ``codemode`` without touching the user's own kernelspecs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
NPM_TOOLS = REPO_ROOT / ".npm-tools" / "node_modules"


def _install_tools() -> None:
    subprocess.run(
        ["bash", str(REPO_ROOT / "scripts" / "install-tools.sh")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def _install_kernelspec(prefix: Path) -> None:
    """Install ``codemode``, ``codemode-v8`` (``--engine v8``) and ``codemode-notebook``
    (``--profile notebook``) into ``prefix``."""
    for extra in ([], ["--engine", "v8"], ["--profile", "notebook"]):
        done = subprocess.run(
            [sys.executable, "-m", "codemode", "install", "--prefix", str(prefix), *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        if done.returncode != 0:
            break
    if done.returncode != 0:
        # Layers that need no kernel still run; kernel and notebook tests then fail
        # with "No such kernel", and this message says why.
        sys.stderr.write(f"conftest: installing the codemode kernelspec failed:\n{done.stderr}\n")
        return
    data_dir = prefix / "share" / "jupyter"
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (str(data_dir), os.environ.get("JUPYTER_PATH", "")) if p)


pytest_plugins = ["pytester", "process_guard"]


def pytest_sessionstart(session: pytest.Session) -> None:
    prefix = Path(tempfile.mkdtemp(prefix="codemode-kernelspec-"))
    session.config._codemode_prefix = prefix  # type: ignore[attr-defined]
    os.environ["CODEMODE_HISTORY_FILE"] = str(prefix / "history.sqlite")
    # Kernels started by tests resolve `python`/console scripts from this interpreter's venv.
    bin_dir = str(Path(sys.executable).parent)
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Install external tools and the kernelspec before the first kernel starts (nbval starts its
    kernels in the set-up of a notebook's first cell)."""
    if not any(item.get_closest_marker("process") or item.get_closest_marker("e2e") for item in session.items):
        return
    _install_tools()
    _install_kernelspec(session.config._codemode_prefix)  # type: ignore[attr-defined]


def pytest_sessionfinish(session: pytest.Session) -> None:
    prefix = getattr(session.config, "_codemode_prefix", None)
    if prefix is not None:
        shutil.rmtree(prefix, ignore_errors=True)


@pytest.fixture(scope="session")
def npm_tools() -> Path:
    """The ``node_modules`` folder holding the npm MCP servers (installed after collection)."""
    return NPM_TOOLS


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The checkout's root folder."""
    return REPO_ROOT
