"""Stored values of any total size survive a host replacement; a value too large for one frame
is refused at once (``codemode/wire/stored_values.py``), through a real kernel.

Codex's host keeps stored values in its own process, so their size never meets its 64 MiB
frame limit; codemode keeps a copy in the client to give a new host. That copy travelled in
one frame each way: more than 64 MiB stored in all made the ``session/open`` of every later
host too large (each cell failed with ``code-mode request exceeds the IPC frame limit`` until a
restart), and one value whose JSON was over 64 MiB made the report of its cell's writes too
large, which left the cell unanswered until an interrupt and lost every value it stored from
the kernel's copy. Now each value crosses in a frame of its own, and ``store()`` throws at once
for a value whose frame would be too large, keeping everything else.

Memory and time: one kernel; three values of 22 MiB (66 MiB in all, stored in one cell) and one
string refused twice, 70 MiB in UTF-8 (35 Mi characters ``é``, which QuickJS's 256 MiB heap holds
with the copies ``JSON.stringify`` makes; a 70 Mi-character string does not). About 15 s on the
2-core machine shared with other work.
"""

from __future__ import annotations

import signal

import pytest
from kernel_driver import execute, runtime_host

from codemode.wire.stored_values import MAX_STORED_VALUE_BYTES

pytestmark = pytest.mark.timeout(240)

MIB = 1024 * 1024
BIG = 22 * MIB
CHECK = (
    'text(["v0", "v1", "v2"].map((k, i) => {'
    f" const v = load(k); return v === String(i).repeat({BIG}) ? 'intact' : typeof v; }}).join(' '))"
)
"""A cell that says whether each of the three 25 MiB values came back as it was stored."""
HUGE = f'"\\u00e9".repeat({35 * MIB})'
"""A string of 35 Mi characters whose JSON takes 70 MiB + 2 bytes in UTF-8."""
REFUSED = (
    'Unable to store "{key}": the key and the value take {size} bytes as JSON, '
    f"more than the {MAX_STORED_VALUE_BYTES} one stored value may take."
)


def _kill_host(kernel) -> None:
    """SIGKILL the runtime host and wait until the kernel has reaped it."""
    host = runtime_host(kernel)
    host.send_signal(signal.SIGKILL)
    host.wait(timeout=30)


def _generation(cell_id: str) -> int:
    """The host generation of a public cell id (``g3:1``)."""
    return int(cell_id[1:].split(":")[0])


def test_a_value_too_large_for_a_frame_is_refused_at_once_and_nothing_else_is_lost(kernel):
    assert execute(kernel.kc, 'store("earlier", 1)').content["status"] == "ok"
    refused = execute(
        kernel.kc,
        f'const s = {HUGE}; store("a", 2); try {{ store("big", s); }} catch (e) {{ text(e); }}'
        ' store("b", 3); text(String(load("big"))); store("huge key?", s); store("c", 4)',
    )
    assert refused.content["status"] == "error"
    assert refused.stdout == REFUSED.format(key="big", size=5 + 1 + 70 * MIB + 2) + "\nundefined\n"
    assert refused.content["evalue"] == REFUSED.format(key="huge key?", size=11 + 1 + 70 * MIB + 2)

    # An ASCII value the heap holds, with its JSON (7 M numbers: 112 MB of array, 77 MB of
    # JSON): refused for its size, not out of memory (the prelude quoted the JSON once more).
    numbers = execute(kernel.kc, 'try { store("numbers", new Array(7e6).fill(1234567890)); } catch (e) { text(e); }')
    assert numbers.stdout == REFUSED.format(key="numbers", size=9 + 1 + 77_000_001) + "\n"

    _kill_host(kernel)
    kept = execute(kernel.kc, 'text(JSON.stringify(["earlier", "a", "big", "b", "huge key?", "c"].map(load)))')
    assert kept.content["status"] == "ok"
    assert kept.stdout == "[1,2,null,3,null,null]\n"


def test_values_of_more_than_a_frame_in_all_survive_every_host_replacement(kernel):
    stored = execute(kernel.kc, f'for (const i of [0, 1, 2]) store("v" + i, String(i).repeat({BIG})); text("stored")')
    assert (stored.content["status"], stored.stdout) == ("ok", "stored\n")

    replaced = execute(kernel.kc, "%config engine=v8")
    assert replaced.stdout.startswith("The code-mode runtime host was replaced: "), replaced.stdout
    after_config = execute(kernel.kc, CHECK)
    assert (after_config.content["status"], after_config.stdout) == ("ok", "intact intact intact\n")

    _kill_host(kernel)
    after_kill = execute(kernel.kc, CHECK)
    assert after_kill.content["status"] == "ok"
    assert after_kill.stdout == "intact intact intact\n"
    assert _generation(after_kill.codemode["cell_id"]) == _generation(after_config.codemode["cell_id"]) + 1
