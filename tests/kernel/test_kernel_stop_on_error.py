"""stop_on_error over the protocol: what a failed cell aborts, and what it must not.

A failed execute aborts the execute requests queued behind it (ipykernel's ``stop_on_error``).
A request sent the moment the failure's reply arrives must run: ipykernel queued its "stop
aborting" marker only after the reply left, so such a request was sometimes aborted (ipykernel
issue #609). The kernel here runs with ``abort_race_hook``, which holds a marker posted after
the reply until the next request is queued, so the race is met every time.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kernel_driver import (
    BLOCKING_TOOL,
    Kernel,
    collect,
    send_execute,
    shell_reply,
    start_kernel,
    stop_kernel,
    wait_for_iopub,
)

pytestmark = pytest.mark.timeout(120)

TOOLS = "import time\nfrom pathlib import Path\n\nimport codemode\n" + BLOCKING_TOOL


@pytest.fixture(scope="module")
def kernel(codemode_kernelspec, tmp_path_factory) -> Kernel:
    folder = tmp_path_factory.mktemp("stop-on-error")
    (folder / "gated_tools.py").write_text(TOOLS)
    (folder / "codemode.toml").write_text('[python_tools]\nmodules = ["gated_tools"]\n')
    k = start_kernel(folder, preload="abort_race_hook")
    yield k
    stop_kernel(k)


def _reply(kc: Any, msg_id: str) -> dict[str, Any]:
    return collect(kc, msg_id).content


@pytest.mark.parametrize("failing", ['throw new Error("boom")', "%wait 999", "// @exec: {\nx"])
def test_a_request_sent_on_the_failed_reply_runs(kernel, failing):
    kc = kernel.kc
    for round_ in range(2):
        failed = kc.execute(failing)
        assert shell_reply(kc, failed)["content"]["status"] == "error"
        after = kc.execute(f'text("after {round_}")')  # sent on the reply, before idle
        run = collect(kc, after)
        assert run.content["status"] == "ok", run.content
        assert run.stdout == f"after {round_}\n"


def test_requests_queued_behind_a_failure_are_still_aborted(kernel, tmp_path: Path):
    kc = kernel.kc
    gate = tmp_path / "gate"
    failing = send_execute(kc, f'await tools.blocking({{gate: {str(gate)!r}}}); throw new Error("late")')
    wait_for_iopub(kc, failing, lambda m: m["msg_type"] == "stream" and "blocking" in m["content"]["text"])
    queued = [send_execute(kc, f'text("queued {n}")') for n in range(2)]
    # A comm_open after them is handled beside the running cell: once its comm_close is seen,
    # the queued requests (sent before it on the same socket) have reached the kernel's queue.
    probe = kc.session.msg("comm_open", content={"comm_id": "probe", "target_name": "probe", "data": {}})
    kc.shell_channel.send(probe)
    wait_for_iopub(kc, probe["header"]["msg_id"], lambda m: m["msg_type"] == "comm_close")
    gate.touch()
    replies = {}
    while len(replies) < 3:
        reply = kc.get_shell_msg(timeout=60)
        replies[reply["parent_header"]["msg_id"]] = reply["content"]["status"]
    assert [replies[m] for m in (failing, *queued)] == ["error", "aborted", "aborted"]
    after = kc.execute('text("after")')
    assert _reply(kc, after)["status"] == "ok"
