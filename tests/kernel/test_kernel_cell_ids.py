"""``%wait`` and ``%terminate`` with ids that name no live cell: a clear error, and nothing else
changes (the host is kept, stored values stay).

- an id of an earlier host (after the host was replaced): ``CellNotFound`` with Codex's
  ``cell <id> belongs to a stale code-mode host generation``;
- an id no host gave (malformed, of a later generation, or of the current host but no cell):
  ``CellNotFound`` with Codex's ``exec cell <id> not found``, on the first host and later;
- an empty id: ``UsageError``;
- an id holding a lone surrogate: ``CellNotFound``; the id reaches the host as every frame
  does (U+FFFD) and its answer is matched the same way, so the host is not replaced.
"""

from __future__ import annotations

import json
import signal

import pytest
from kernel_driver import collect, execute, runtime_host

pytestmark = pytest.mark.timeout(120)


def _error(run) -> tuple[str, str]:
    return run.content["ename"], run.content["evalue"]


def _send_escaped(kc, code: str) -> str:
    """Send an execute request whose JSON content writes ``code``'s lone surrogates as escapes
    (as a client in another language may); returns its msg_id."""
    msg = kc.session.msg("execute_request", content={})
    msg["content"] = json.dumps({"code": code, "silent": False}, ensure_ascii=True).encode()
    kc.shell_channel.send(msg)
    return msg["header"]["msg_id"]


UNKNOWN_IDS = ["nonsense", "g1:1", "g2:1", "g9:1", "g02:1", "g2:x"]
"""Ids no host generation gives, whatever the current one (``g2:1`` on the first host only)."""


@pytest.mark.parametrize("magic", ["%wait", "%terminate"])
def test_on_the_first_host_an_id_no_host_gave_is_not_found(kernel, magic):
    """Runs before the ``replaced`` fixture kills the module kernel's first host."""
    assert execute(kernel.kc, 'text("first")').codemode["cell_id"].isdecimal()  # still the first host
    for cell_id in UNKNOWN_IDS:
        run = execute(kernel.kc, f"{magic} {cell_id}")
        assert _error(run) == ("CellNotFound", f"exec cell {cell_id} not found")


@pytest.fixture(scope="module")
def replaced(kernel):
    """The kernel after its first host was killed: cells run on generation 2."""
    first = execute(kernel.kc, 'store("kept", 7); text("first host")')
    assert first.codemode["cell_id"].isdecimal()  # the first host
    runtime_host(kernel).send_signal(signal.SIGKILL)
    after = execute(kernel.kc, 'text("second host")')
    if after.content["status"] != "ok":  # the cell that found the host gone
        after = execute(kernel.kc, 'text("second host")')
    assert after.codemode["cell_id"].startswith("g2:")
    return kernel


@pytest.mark.parametrize("magic", ["%wait", "%terminate"])
@pytest.mark.parametrize("cell_id", ["1", "2"])
def test_an_id_of_an_earlier_host_generation_is_stale(replaced, magic, cell_id):
    run = execute(replaced.kc, f"{magic} {cell_id}")
    assert _error(run) == ("CellNotFound", f"cell {cell_id} belongs to a stale code-mode host generation")
    assert run.codemode["cell_id"] is None


@pytest.mark.parametrize("magic", ["%wait", "%terminate"])
@pytest.mark.parametrize("cell_id", ["nonsense", "g1:5", "g3:1", "g9:1", "g02:1"])
def test_an_id_no_host_generation_gave_is_not_found(replaced, magic, cell_id):
    run = execute(replaced.kc, f"{magic} {cell_id}")
    assert _error(run) == ("CellNotFound", f"exec cell {cell_id} not found")
    assert run.codemode["cell_id"] is None


def test_an_id_of_the_current_host_that_names_no_cell_is_cell_not_found(replaced):
    assert _error(execute(replaced.kc, "%wait g2:99")) == ("CellNotFound", "exec cell g2:99 not found")


@pytest.mark.parametrize("code", ["%wait ''", '%terminate ""', "%wait --yield-time-ms 5 '  '"])
def test_an_empty_id_is_a_usage_error(replaced, code):
    name = code.split()[0][1:]
    run = execute(replaced.kc, code)
    assert _error(run) == (
        "UsageError",
        f"A cell id cannot be empty; %{name} takes an id as the status display or %cells shows it, "
        f"for example %{name} 3.",
    )


@pytest.mark.parametrize("magic", ["%wait", "%terminate"])
def test_an_id_with_a_lone_surrogate_is_cell_not_found_and_keeps_the_host(replaced, magic):
    host = runtime_host(replaced)
    run = collect(replaced.kc, _send_escaped(replaced.kc, f"{magic} g2:\ud800"))
    assert run.content["ename"] == "CellNotFound"
    after = execute(replaced.kc, "text(load('kept'))")
    assert after.stdout == "7\n"
    assert after.codemode["cell_id"].startswith("g2:")
    assert runtime_host(replaced).pid == host.pid
