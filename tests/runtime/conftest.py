"""Fixtures of the runtime tests: host subprocesses driven by :mod:`rt_client`."""

from __future__ import annotations

import pytest
from rt_client import start_host


@pytest.fixture
async def raw_host():
    """A host process with no handshake done."""
    client = await start_host()
    yield client
    if client.process.returncode is None:
        client.process.kill()
        await client.process.wait()


@pytest.fixture
async def host():
    """A host after a successful handshake, with session ``s1`` open."""
    client = await start_host()
    ready = await client.hello()
    assert ready["type"] == "connection/ready"
    opened = await client.open("s1")
    assert opened["status"] == "ok"
    yield client
    if client.process.returncode is None:
        client.process.kill()
        await client.process.wait()
