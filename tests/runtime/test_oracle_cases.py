"""Every recorded Codex case, replayed against ``codemode-host`` (issue "Runtime fidelity").

Runs ``../shared/oracle/codex_host.py batch`` over ``../shared/oracle/cases`` with our host
as ``--binary`` (a wrapper script around ``python -m codemode.runtime``), writing to a
temporary folder, then ``compare.py`` with our accepted differences
(``tests/runtime/accept``, listed in its README). Skipped when the shared folder is absent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from dependencies import require

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
ORACLE = SHARED / "oracle"
ACCEPT = Path(__file__).resolve().parent / "accept"


@pytest.mark.timeout(600)
def test_all_oracle_cases_pass(tmp_path):
    require((ORACLE / "compare.py").exists(), f"the oracle folder {ORACLE} is not present")
    wrapper = tmp_path / "codemode-host.sh"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m codemode.runtime "$@"\n')
    wrapper.chmod(0o755)
    out = tmp_path / "actual"
    env = {k: v for k, v in os.environ.items() if k != "CODEMODE_HOST_BIN"}
    record = subprocess.run(
        [
            sys.executable,
            "oracle/codex_host.py",
            "--binary",
            str(wrapper),
            "batch",
            "oracle/cases",
            "--out",
            str(out),
            "--timeout-s",
            "30",
        ],
        cwd=SHARED,
        env=env,
        capture_output=True,
        text=True,
        timeout=580,
    )
    assert record.returncode == 0, record.stdout[-3000:] + record.stderr[-3000:]
    compare = subprocess.run(
        [sys.executable, "oracle/compare.py", "oracle/cases", str(out), "--accept-dir", str(ACCEPT)],
        cwd=SHARED,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert compare.returncode == 0, compare.stdout[-6000:] + compare.stderr[-2000:]
