"""Fixtures of the sandbox tests: a workspace folder and a folder outside it, both fresh, and
the dispatchers built in that workspace."""

from __future__ import annotations

import pytest
from sandbox_helpers import Dispatchers


@pytest.fixture
def ws(tmp_path):
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


@pytest.fixture
def outside(tmp_path):
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


@pytest.fixture
async def dispatchers(ws, monkeypatch):
    """:class:`Dispatchers` in ``ws``, with no ``$TMPDIR`` root; closed after the test."""
    monkeypatch.delenv("TMPDIR", raising=False)
    made = Dispatchers(ws, monkeypatch)
    yield made
    await made.close()
