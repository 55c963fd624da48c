"""Completion of what earlier cells declared, through a real kernel in the notebook profile.

The session's realm lists its global bindings and the members of the values they reach
(codemode's ``session/bindings``): ``ro`` -> ``rows``, ``rows.ma`` -> ``rows.map``,
``cfg.inn`` -> ``cfg.inner``, without running a getter of the cells; a realm busy running
JavaScript does not hold completion up.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from kernel_driver import execute, shell_reply, start_kernel, stop_kernel

pytestmark = pytest.mark.usefixtures("codemode_kernelspec")

DECLARING = (
    "const rows = [{name: 'a', n: 1}]\n"
    "const cfg = {inner: {deep: 1}}\n"
    "const lazy = {get heavy() { globalThis.getterRan = true; return {x: 1} }}"
)


@pytest.fixture(scope="module")
def notebook_kernel(codemode_kernelspec, tmp_path_factory):
    """A notebook-profile kernel whose first cell declared :data:`DECLARING`."""
    kernel = start_kernel(tmp_path_factory.mktemp("notebook-completion"), {"CODEMODE_PROFILE": "notebook"})
    assert execute(kernel.kc, DECLARING).content["status"] == "ok"
    yield kernel
    stop_kernel(kernel)


def _complete(kernel: Any, code: str) -> dict[str, Any]:
    return shell_reply(kernel.kc, kernel.kc.complete(code, len(code)), timeout=90)["content"]


def test_a_binding_of_an_earlier_cell_completes(notebook_kernel):
    reply = _complete(notebook_kernel, "const first = ro")
    assert reply["matches"] == ["rows"]
    assert (reply["cursor_start"], reply["cursor_end"]) == (14, 16)
    types = reply["metadata"]["_jupyter_types_experimental"]
    assert types == [{"start": 14, "end": 16, "text": "rows", "type": "property", "signature": ""}]


def test_members_of_a_binding_complete(notebook_kernel):
    assert _complete(notebook_kernel, "rows.ma")["matches"] == ["map"]
    assert _complete(notebook_kernel, "rows.filt")["matches"] == ["filter"]
    reply = _complete(notebook_kernel, "cfg.inn")
    assert reply["matches"] == ["inner"] and (reply["cursor_start"], reply["cursor_end"]) == (4, 7)


def test_nested_members_complete(notebook_kernel):
    assert _complete(notebook_kernel, "cfg.inner.de")["matches"] == ["deep"]
    assert _complete(notebook_kernel, "rows[0].na")["matches"] == ["name"]
    assert _complete(notebook_kernel, "rows.0.n")["matches"] == ["n", "name"]


def test_completion_runs_no_getter(notebook_kernel):
    assert _complete(notebook_kernel, "lazy.hea")["matches"] == ["heavy"]
    assert _complete(notebook_kernel, "lazy.heavy.")["matches"] == []
    assert execute(notebook_kernel.kc, "text(typeof getterRan)").stdout == "undefined\n"


def test_a_busy_realm_does_not_hold_completion_up(notebook_kernel):
    busy = execute(notebook_kernel.kc, "yield_control()\nwhile (true) {}")
    assert busy.codemode["status"] == "running"
    try:
        started = time.monotonic()
        reply = _complete(notebook_kernel, "Ma")
        assert time.monotonic() - started < 2.0
        assert reply["matches"] == ["Map", "Math"]
        assert _complete(notebook_kernel, "ro")["matches"] == []
    finally:
        execute(notebook_kernel.kc, f"%terminate {busy.codemode['cell_id']}")
    assert _complete(notebook_kernel, "ro")["matches"] == ["rows"]
