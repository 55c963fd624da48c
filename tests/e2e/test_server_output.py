"""A large output through a real Jupyter Server (REST + websocket) arrives whole.

The user: JupyterLab or any frontend talking to ``jupyter server``, which forwards IOPub over a
websocket and stops forwarding when a kernel sends more than ``iopub_msg_rate_limit`` (1000
messages per second) or ``iopub_data_rate_limit`` (1 MB/s of stream text), averaged over 3 s,
writing "IOPub message rate exceeded." instead. The server runs with those defaults.
"""

from __future__ import annotations

import base64

import pytest
import requests
from e2e_servers import DEADLINE_S, jupyter_app, open_channels, ws_execute

pytestmark = pytest.mark.timeout(300)

TOKEN = "codemode-server-token"
AUTH = {"Authorization": f"token {TOKEN}"}


@pytest.fixture
def kernel_ws(tmp_path):
    """A websocket to a codemode kernel started through a running Jupyter Server."""
    with jupyter_app(
        tmp_path,
        "server",
        "--no-browser",
        "--allow-root",
        f"--IdentityProvider.token={TOKEN}",
        f"--ServerApp.root_dir={tmp_path}",
        ready_path="/api/status",
        token=TOKEN,
    ) as (base, _server):
        created = requests.post(f"{base}/api/kernels", headers=AUTH, json={"name": "codemode"}, timeout=30)
        assert created.status_code == 201, created.text
        ws = open_channels(base, created.json()["id"], TOKEN, timeout_s=DEADLINE_S * 4)
        try:
            yield ws
        finally:
            ws.close()


def _rate_warnings(run) -> list[str]:
    return [
        m["content"]["text"]
        for m in run.of_type("stream")
        if m["content"]["name"] == "stderr" and "rate exceeded" in m["content"]["text"]
    ]


def test_a_hundred_thousand_lines_pass_the_servers_rate_limits(kernel_ws):
    lines = 100_000
    run = ws_execute(
        kernel_ws, f'// @exec: {{"max_output_tokens": 1000000}}\nfor (let i = 0; i < {lines}; i++) text("line " + i);'
    )
    assert run.reply["content"]["status"] == "ok", run.reply["content"]
    assert _rate_warnings(run) == []
    assert run.stdout == "".join(f"line {i}\n" for i in range(lines))
    assert len(run.of_type("stream")) <= lines // 1000


def test_lines_between_images_pass_the_servers_rate_limits(kernel_ws):
    pairs = 2000
    payload = base64.b64encode(bytes(range(256)) * 4).decode()
    run = ws_execute(
        kernel_ws,
        '// @exec: {"max_output_tokens": 1000000}\n'
        f'const url = "data:image/png;base64,{payload}";\n'
        f'for (let i = 0; i < {pairs}; i++) {{ text("line " + i); image(url); }}',
    )
    assert run.reply["content"]["status"] == "ok", run.reply["content"]
    assert _rate_warnings(run) == []
    outputs = [m for m in run.iopub if m["msg_type"] in ("stream", "display_data")]
    assert [m["msg_type"] for m in outputs] == ["stream", "display_data"] * pairs
    assert [m["content"]["text"] for m in outputs[0::2]] == [f"line {i}\n" for i in range(pairs)]
    assert all(m["content"]["data"]["image/png"] == payload for m in outputs[1::2])
