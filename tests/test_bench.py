"""``python -m bench`` keeps working: it runs a row against its peer and writes its table.

Only the shape of the output is checked (a row with a numeric ratio), never a speed: speed is
read from ``docs/benchmarks.md``, not asserted.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(120)
def test_the_benchmark_command_writes_the_round_trip_row_with_a_ratio(tmp_path):
    output = tmp_path / "benchmarks.md"
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--rows", "cell", "--pairs", "1", "--output", str(output)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    text = output.read_text()
    assert "Produced by `python -m bench --rows cell --pairs 1`" in text
    row = re.search(r"^\| trivial cell round trip \(`cell`\) \| (.*) \|$", text, re.M)
    assert row, text
    ours, peer, ratio, pairs, goal = row.group(1).split(" | ")
    assert re.fullmatch(r"\d+\.\d+ ms", ours) and re.fullmatch(r"\d+\.\d+ ms", peer), row.group(0)
    assert re.fullmatch(r"\d+\.\d\d / \d+\.\d\d", ratio), row.group(0)
    assert pairs == "1"
    assert goal in ("<= 1x (met)", "<= 1x (not met)")


@pytest.mark.timeout(120)
def test_the_host_start_row_reports_the_floors_of_a_python_host():
    """Our host's start is told against what no CPython host can go below: the notes give each
    floor in milliseconds (the least-host floor's program must run: it compiles the prelude)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--rows", "host-start", "--pairs", "1", "--output", "-"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    floors = re.search(
        r"^- codemode: the floors of a Python host here, `python -I -S` (.*) \(median of 1\)$", done.stdout, re.M
    )
    assert floors, done.stdout[-3000:]
    named = dict(re.fullmatch(r"(.+) (\d+\.\d) ms", part).groups() for part in floors.group(1).split("; "))
    assert list(named) == [
        "bare",
        "importing asyncio and json",
        "importing json, threading and QuickJS and compiling the prelude",
    ]
    assert all(float(ms) > 0 for ms in named.values())


@pytest.mark.timeout(120)
def test_the_replay_row_converts_a_10000_line_session_against_the_json_floor():
    """The replay row builds its 10 000-line session from the real s07 and converts it whole:
    the notes give the notebook's cell count (a conversion that lost cells would be lossy)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--rows", "replay", "--pairs", "1", "--output", "-"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    row = re.search(
        r"^\| convert a 10 000-line Codex session to a notebook \(`replay`\) \| (.*) \|$", done.stdout, re.M
    )
    assert row, done.stdout[-3000:]
    ours, peer, ratio, pairs, goal = row.group(1).split(" | ")
    assert re.fullmatch(r"[\d,]+ ms", ours) and re.fullmatch(r"[\d,]+ ms", peer), row.group(0)
    assert pairs == "1"
    assert goal in ("<= 500 ms (met)", "<= 500 ms (not met)")
    assert "- the 10000-line session gives a notebook of 2367 cells" in done.stdout
