"""The codemode kernel driven through a Jupyter Kernel Gateway (REST + websocket).

The user: a harness that starts kernels over HTTP and sends Jupyter messages as JSON over the
kernel's ``channels`` websocket. A real
``jupyter kernelgateway`` runs on 127.0.0.1 with an auth token; the kernelspec comes from
``JUPYTER_PATH`` (installed by ``tests/conftest.py``). The test checks the kernelspec listing,
starts a kernel, runs a completing cell and a yielded cell plus ``%wait`` over one websocket,
deletes the kernel, stops the gateway and checks that no process it started is left.
"""

from __future__ import annotations

import pytest
import requests
from e2e_servers import jupyter_app, open_channels, wait_for, ws_execute

pytestmark = pytest.mark.timeout(120)

TOKEN = "codemode-e2e-token"
AUTH = {"Authorization": f"token {TOKEN}"}


@pytest.fixture
def gateway(tmp_path):
    """A running Kernel Gateway: ``(base_url, ServerProcess)``; stopped in teardown."""
    with jupyter_app(
        tmp_path,
        "kernelgateway",
        f"--KernelGatewayApp.auth_token={TOKEN}",
        "--KernelGatewayApp.default_kernel_name=codemode",
        ready_path="/api",
        token=TOKEN,
    ) as running:
        yield running


def test_gateway_runs_cells_yields_waits_and_cleans_up(gateway, tmp_path):
    base, server = gateway
    (tmp_path / "codemode.toml").write_text("[session]\nyield_time_ms = 300\n")  # the kernels' folder
    assert requests.get(f"{base}/api/kernels", timeout=5).status_code in (401, 403)

    specs = requests.get(f"{base}/api/kernelspecs", headers=AUTH, timeout=5).json()["kernelspecs"]
    assert "codemode" in specs, sorted(specs)
    assert specs["codemode"]["spec"]["display_name"] == "Code Mode (JavaScript)"

    created = requests.post(f"{base}/api/kernels", headers=AUTH, json={"name": "codemode"}, timeout=30)
    assert created.status_code == 201, created.text
    kernel_id = created.json()["id"]
    kernel_procs = wait_for(server.remember, "the kernel process under the gateway")
    assert any("codemode.kernel" in " ".join(p.cmdline()) for p in kernel_procs)

    ws = open_channels(base, kernel_id, TOKEN)
    try:
        done = ws_execute(ws, 'text("via gateway")')
        assert done.reply["content"]["status"] == "ok", done.reply["content"]
        assert done.reply["metadata"]["codemode"]["status"] == "completed"
        assert done.stdout == "via gateway\n"
        server.remember()  # the runtime host is up now

        yielded = ws_execute(
            ws,
            '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 1500});\ntext("slept through the yield");\n',
        )
        assert yielded.reply["content"]["status"] == "ok", yielded.reply["content"]
        meta = yielded.reply["metadata"]["codemode"]
        assert meta["status"] == "running"
        assert yielded.stdout == ""
        status = yielded.of_type("display_data")
        assert status and f"Cell {meta['cell_id']} is running" in status[0]["content"]["data"]["text/plain"]
        server.remember()

        waited = ws_execute(ws, "%wait")
        assert waited.reply["content"]["status"] == "ok", waited.reply["content"]
        assert waited.reply["metadata"]["codemode"]["status"] == "completed"
        assert waited.stdout == "slept through the yield\n"

        # A slow cell past its default yield (300 ms): a headless harness (allow_stdin false)
        # gets it run to its end, an interactive front end (allow_stdin true) sees it yield.
        slow = 'await tools.sleep({ms: 1000});\nstore("answer", 42);\ntext("stored");'
        headless = ws_execute(ws, slow)
        assert headless.reply["metadata"]["codemode"]["status"] == "completed"
        assert headless.stdout == "stored\n"
        assert ws_execute(ws, 'text(load("answer"))').stdout == "42\n"
        interactive = ws_execute(ws, slow, allow_stdin=True)
        assert interactive.reply["metadata"]["codemode"]["status"] == "running"
        assert interactive.stdout == ""
        assert ws_execute(ws, "%wait --yield-time-ms 20000", allow_stdin=True).stdout == "stored\n"
    finally:
        ws.close()

    deleted = requests.delete(f"{base}/api/kernels/{kernel_id}", headers=AUTH, timeout=30)
    assert deleted.status_code == 204, deleted.text
    # The gateway forbids listing kernels by default (list_kernels = False); ask for this one.
    assert requests.get(f"{base}/api/kernels/{kernel_id}", headers=AUTH, timeout=5).status_code == 404

    started = "\n".join(server.commands.values())
    assert "codemode.kernel" in started and "codemode.runtime" in started, started
    assert server.terminate() is not None, f"the gateway ignored SIGTERM; output:\n{server.output()}"
    server.assert_all_gone()
