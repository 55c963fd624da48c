"""``codemode.gateway``'s kernel manager answers jupyter_client's liveness question by asking the
gateway, where jupyter_server's asserts on a local provisioner (``wait_for_ready`` asks it when a
kernel_info reply takes over a second), and its kernel client takes the gateway's own IOPub
status ``restarting`` or ``dead`` as the kernel's death (a gateway restarts a dead kernel under the
same id, so the gateway's answer alone would keep a lost cell waiting)."""

from __future__ import annotations

import pytest

from codemode.gateway import configure_gateway, gateway_kernel_manager_class

pytestmark = pytest.mark.slow  # importing jupyter_server takes a second or two


async def test_liveness_is_the_gateways_answer(monkeypatch):
    configure_gateway("http://127.0.0.1:1", "token")
    manager = gateway_kernel_manager_class()(kernel_name="codemode_eg")
    assert await manager._async_is_alive() is False  # no kernel started
    model = {"id": "k1", "name": "codemode_eg", "execution_state": "busy"}
    manager.kernel = dict(model)
    asked: list[str] = []

    async def refresh_model(model_arg=None):
        asked.append("GET /api/kernels/k1")
        return model

    monkeypatch.setattr(manager, "refresh_model", refresh_model)
    assert await manager._async_is_alive() is True
    assert asked == ["GET /api/kernels/k1"]
    assert manager.client_factory.__name__ == "AuthorizedGatewayKernelClient"


def _status(state: str, parent: str = "") -> dict:
    """An IOPub ``status`` message as the gateway's websocket routes it."""
    return {
        "channel": "iopub",
        "msg_type": "status",
        "header": {"msg_type": "status"},
        "parent_header": {"msg_id": parent} if parent else {},
        "content": {"execution_state": state},
    }


@pytest.mark.parametrize("state", ["restarting", "dead"])
async def test_the_client_takes_the_gateways_restart_as_the_kernels_death(monkeypatch, state):
    """A gateway restarts a dead kernel under the same id (its model still answers), and says so
    with an IOPub status of its own: the client's ``is_alive`` (what nbclient asks while it waits
    for a reply) answers False from then on, and the kernel's own statuses change nothing."""
    configure_gateway("http://127.0.0.1:1", "token")
    manager = gateway_kernel_manager_class()(kernel_name="codemode_eg")
    manager.kernel = {"id": "k1", "name": "codemode_eg", "execution_state": "busy"}

    async def refresh_model(model_arg=None):
        return manager.kernel

    monkeypatch.setattr(manager, "refresh_model", refresh_model)
    client = manager.client(kernel_id="k1")
    client.channel_socket = object()  # never used: messages are put straight into the queue
    iopub = client.iopub_channel
    for message in (_status("busy", "m1"), _status("idle", "m1"), _status("starting")):
        iopub.put_nowait(message)
    assert await client.is_alive() is True
    iopub.put_nowait(_status(state))
    assert await client.is_alive() is False
    assert [iopub.get_nowait()["content"]["execution_state"] for _ in range(4)] == ["busy", "idle", "starting", state]
