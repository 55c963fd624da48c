"""Choosing the JavaScript engine through a real kernel: the kernelspec's ``CODEMODE_ENGINE``,
``[session] engine`` in ``codemode.toml`` and ``%config engine=...`` while the kernel runs."""

from __future__ import annotations

import time

import pytest
from kernel_driver import collect, execute, runtime_host, send_execute, wait_for_iopub
from sandbox_cells import kernel_in

pytestmark = pytest.mark.usefixtures("codemode_kernelspec")

FRENCH_DATE = "text(new Intl.DateTimeFormat('fr-FR', {dateStyle: 'full', timeZone: 'UTC'}).format(new Date(0)))"
"""V8 (ICU) prints ``jeudi 1 janvier 1970``; QuickJS has no ICU."""


def _engine_line(kernel) -> str:
    (line,) = [line for line in execute(kernel.kc, "%config").stdout.splitlines() if line.startswith("engine = ")]
    return line


def test_the_kernelspec_engine_runs_cells_on_v8_and_an_interrupt_stops_a_busy_loop(tmp_path):
    with kernel_in(tmp_path / "nb", env={"CODEMODE_ENGINE": "v8"}) as kernel:
        assert execute(kernel.kc, FRENCH_DATE).stdout == "jeudi 1 janvier 1970\n"
        assert "--engine v8" in " ".join(runtime_host(kernel).cmdline())
        assert _engine_line(kernel) == "engine = v8"
        msg_id = send_execute(kernel.kc, 'notify("spinning"); await null; while (true) {}')
        spinning = wait_for_iopub(
            kernel.kc, msg_id, lambda m: m["msg_type"] == "display_data" and "spinning" in str(m["content"])
        )
        started = time.monotonic()
        kernel.km.interrupt_kernel()
        run = collect(kernel.kc, msg_id, timeout=30, earlier=spinning)
        assert time.monotonic() - started < 2.0
        assert (run.content["status"], run.content["ename"]) == ("error", "CellTerminated")
        assert execute(kernel.kc, "text(1 + 1)").stdout == "2\n"


def test_the_config_file_chooses_the_engine_and_the_kernelspec_overrides_it(tmp_path):
    toml = '[session]\nengine = "v8"\n'
    with kernel_in(tmp_path / "nb", toml) as kernel:
        assert _engine_line(kernel) == "engine = v8"
        assert execute(kernel.kc, FRENCH_DATE).stdout == "jeudi 1 janvier 1970\n"
    with kernel_in(tmp_path / "nb2", toml, env={"CODEMODE_ENGINE": "quickjs"}) as kernel:
        assert _engine_line(kernel) == "engine = quickjs"
        assert execute(kernel.kc, "text(1)").stdout == "1\n"
        assert "--engine quickjs" in " ".join(runtime_host(kernel).cmdline())


def test_config_magic_switches_the_engine_and_keeps_stored_values(tmp_path):
    with kernel_in(tmp_path / "nb") as kernel:
        assert execute(kernel.kc, 'store("city", "Paris"); text("stored")').stdout == "stored\n"
        assert _engine_line(kernel) == "engine = quickjs"
        # A cell that just answered (its first Intl call loads ICU) is closed a moment later.
        assert execute(kernel.kc, "text((1234.5).toLocaleString('de-DE'))").stdout == "1.234,5\n"
        switched = execute(kernel.kc, "%config engine=v8")
        assert switched.content["status"] == "ok" and "engine = v8" in switched.stdout
        assert execute(kernel.kc, 'text(load("city"))').stdout == "Paris\n"
        assert execute(kernel.kc, FRENCH_DATE).stdout == "jeudi 1 janvier 1970\n"
        assert "--engine v8" in " ".join(runtime_host(kernel).cmdline())

        wrong = execute(kernel.kc, "%config engine=rhino")
        assert (wrong.content["ename"], wrong.content["evalue"]) == (
            "UsageError",
            "engine must be one of quickjs, v8, not 'rhino'",
        )

        running = execute(kernel.kc, '// @exec: {"yield_time_ms": 100}\nawait new Promise(() => {})')
        cell_id = running.codemode["cell_id"]
        refused = execute(kernel.kc, "%config engine=quickjs")
        assert refused.content["ename"] == "UsageError"
        assert refused.content["evalue"] == f"cannot change the engine while cells run: {cell_id}"
        assert execute(kernel.kc, f"%terminate {cell_id}").codemode["status"] == "terminated"
        assert execute(kernel.kc, "%config engine=quickjs").content["status"] == "ok"
        assert execute(kernel.kc, 'text(load("city"))').stdout == "Paris\n"
