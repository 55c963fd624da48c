"""Fixtures of the sandbox tests: a workspace folder and a folder outside it, both fresh."""

from __future__ import annotations

import pytest


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
