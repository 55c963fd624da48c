"""Fixtures for driving a real codemode kernel process with ``jupyter_client``.

- ``codemode_kernelspec`` (session): makes sure Jupyter finds the ``codemode`` kernelspec.
  The root ``tests/conftest.py`` installs it into a temp prefix at session start; when it is
  still missing (e.g. that step failed), this installs it into a temp prefix itself and
  points ``JUPYTER_PATH`` there. (Candidate to move up for e2e/nbval.)
- ``kernel`` (module): a started kernel and a client with channels, in an empty temp working
  folder (so no ``codemode.toml`` is picked up); shut down at the end.
Helpers to drive kernels are in ``kernel_driver.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from dependencies import require
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from kernel_driver import KERNEL_NAME, Kernel, start_kernel, stop_kernel


@pytest.fixture(scope="session")
def codemode_kernelspec() -> str:
    """The folder of the installed ``codemode`` kernelspec (installing it if needed)."""
    try:
        return KernelSpecManager().get_kernel_spec(KERNEL_NAME).resource_dir
    except NoSuchKernel:
        pass
    prefix = Path(tempfile.mkdtemp(prefix="codemode-kernel-tests-"))
    subprocess.run(
        [sys.executable, "-m", "codemode", "install", "--prefix", str(prefix)],
        check=True,
        capture_output=True,
    )
    data = str(prefix / "share" / "jupyter")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (data, os.environ.get("JUPYTER_PATH")) if p)
    return KernelSpecManager().get_kernel_spec(KERNEL_NAME).resource_dir


@pytest.fixture(scope="module")
def kernel(codemode_kernelspec, tmp_path_factory) -> Kernel:
    """A codemode kernel shared by one test module."""
    k = start_kernel(tmp_path_factory.mktemp("kernel-cwd"))
    yield k
    stop_kernel(k)


@pytest.fixture
def bubblewrap() -> None:
    """The sandbox tests need ``bwrap`` (``scripts/install-tools.sh`` installs it)."""
    require(shutil.which("bwrap") is not None, "bubblewrap (`bwrap`) is not installed")


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder under the real home, outside every default writable root of the sandbox (which
    includes /tmp); removed afterwards."""
    home = Path.home()
    assert not home.resolve().is_relative_to("/tmp")
    folder = home / f".codemode-sandbox-test-{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
