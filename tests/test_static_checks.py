"""The tree passes its type checker and its linter.

mypy checks ``codemode/``, ``kernel/`` and ``runtime/`` with the settings of ``[tool.mypy]`` in
``pyproject.toml``; ruff checks the whole tree with ``[tool.ruff]``. A finding fails the test
with the checker's own report.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(600)
def test_mypy_finds_no_type_errors():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=580)
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]


def test_ruff_finds_no_lint_errors():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--quiet", "."], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
