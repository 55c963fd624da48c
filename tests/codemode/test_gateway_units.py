"""``codemode.gateway``'s kernel manager answers jupyter_client's liveness question by asking the
gateway, where jupyter_server's asserts on a local provisioner (``wait_for_ready`` asks it when a
kernel_info reply takes over a second)."""

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
