"""The codemode kernel driven through a Jupyter Kernel Gateway (REST + websocket).

The user: a harness that starts kernels over HTTP and sends Jupyter messages as JSON over the
kernel's ``channels`` websocket (``/work/shared/recipes.md`` §8). A real
``jupyter kernelgateway`` runs on 127.0.0.1 with an auth token; the kernelspec comes from
``JUPYTER_PATH`` (installed by ``tests/conftest.py``). The test checks the kernelspec listing,
starts a kernel, runs a completing cell and a yielded cell plus ``%wait`` over one websocket,
deletes the kernel, stops the gateway and checks that no process it started is left.
"""

from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
import websocket
from e2e_servers import DEADLINE_S, ServerProcess, free_port, server_env, wait_for

pytestmark = pytest.mark.timeout(120)

TOKEN = "codemode-e2e-token"
AUTH = {"Authorization": f"token {TOKEN}"}


@dataclass
class Execution:
    """What the kernel sent for one execute_request: the reply and the iopub messages."""

    reply: dict[str, Any]
    iopub: list[dict[str, Any]] = field(default_factory=list)

    @property
    def stdout(self) -> str:
        """The concatenated ``stdout`` stream texts."""
        return "".join(
            m["content"]["text"] for m in self.iopub if m["msg_type"] == "stream" and m["content"]["name"] == "stdout"
        )

    def of_type(self, msg_type: str) -> list[dict[str, Any]]:
        """The iopub messages of ``msg_type``, in arrival order."""
        return [m for m in self.iopub if m["msg_type"] == msg_type]


def execute(ws: websocket.WebSocket, code: str) -> Execution:
    """Send ``code`` as an execute_request (Jupyter protocol 5.3 over the gateway's websocket)
    and collect messages until both its execute_reply and its iopub ``idle`` arrived."""
    msg_id = uuid.uuid4().hex
    ws.send(
        json.dumps(
            {
                "header": {
                    "msg_id": msg_id,
                    "msg_type": "execute_request",
                    "username": "e2e",
                    "session": uuid.uuid4().hex,
                    "date": "",
                    "version": "5.3",
                },
                "parent_header": {},
                "metadata": {},
                "content": {
                    "code": code,
                    "silent": False,
                    "store_history": True,
                    "user_expressions": {},
                    "allow_stdin": False,
                    "stop_on_error": True,
                },
                "buffers": [],
                "channel": "shell",
            }
        )
    )
    reply: dict[str, Any] | None = None
    iopub: list[dict[str, Any]] = []
    idle = False
    while reply is None or not idle:
        msg = json.loads(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if msg["channel"] == "shell" and msg["msg_type"] == "execute_reply":
            reply = msg
        elif msg["channel"] == "iopub":
            iopub.append(msg)
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                idle = True
    return Execution(reply, iopub)


@pytest.fixture
def gateway(tmp_path):
    """A running Kernel Gateway: ``(base_url, ServerProcess)``; stopped in teardown."""
    port = free_port()
    server = ServerProcess(
        [
            sys.executable,
            "-m",
            "jupyter",
            "kernelgateway",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--KernelGatewayApp.auth_token={TOKEN}",
            "--KernelGatewayApp.default_kernel_name=codemode",
        ],
        cwd=tmp_path,
        env=server_env(tmp_path),
        log_path=tmp_path / "gateway.log",
    )
    base = f"http://127.0.0.1:{port}"
    try:

        def up() -> bool:
            server.check_running()
            return requests.get(f"{base}/api", headers=AUTH, timeout=2).ok

        wait_for(up, "the Kernel Gateway's /api")
        yield base, server
    finally:
        server.stop()


def test_gateway_runs_cells_yields_waits_and_cleans_up(gateway):
    base, server = gateway
    assert requests.get(f"{base}/api/kernels", timeout=5).status_code in (401, 403)

    specs = requests.get(f"{base}/api/kernelspecs", headers=AUTH, timeout=5).json()["kernelspecs"]
    assert "codemode" in specs, sorted(specs)
    assert specs["codemode"]["spec"]["display_name"] == "Code Mode (JavaScript)"

    created = requests.post(f"{base}/api/kernels", headers=AUTH, json={"name": "codemode"}, timeout=30)
    assert created.status_code == 201, created.text
    kernel_id = created.json()["id"]
    kernel_procs = wait_for(server.remember, "the kernel process under the gateway")
    assert any("codemode.kernel" in " ".join(p.cmdline()) for p in kernel_procs)

    ws = websocket.create_connection(
        f"ws://127.0.0.1:{base.rsplit(':', 1)[1]}/api/kernels/{kernel_id}/channels",
        header=[f"Authorization: token {TOKEN}"],
        timeout=DEADLINE_S * 2,
    )
    try:
        done = execute(ws, 'text("via gateway")')
        assert done.reply["content"]["status"] == "ok", done.reply["content"]
        assert done.reply["metadata"]["codemode"]["status"] == "completed"
        assert done.stdout == "via gateway\n"
        server.remember()  # the runtime host is up now

        yielded = execute(
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

        waited = execute(ws, "%wait")
        assert waited.reply["content"]["status"] == "ok", waited.reply["content"]
        assert waited.reply["metadata"]["codemode"]["status"] == "completed"
        assert waited.stdout == "slept through the yield\n"
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
