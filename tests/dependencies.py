"""External dependencies of the tests: skip locally, fail under CI.

The project's own scripts (``pip install -e '.[test]'`` and ``scripts/install-tools.sh``, which
the test session runs first) install everything the tests drive: the npm MCP servers, tmux,
Debian's Chromium. A test that finds one missing on a developer's machine skips with the reason;
under CI (``$CI`` set, as ``.ci/run`` does) the same absence is a failure, so a broken install
step can never turn into a silently smaller suite.
"""

from __future__ import annotations

import os

import pytest


def under_ci() -> bool:
    """True when ``$CI`` is set to anything but ``""``, ``0`` or ``false``."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false")


def require(present: bool, missing: str) -> None:
    """Skip the calling test (fail it under CI) unless ``present``.

    ``missing`` is a sentence naming what is absent, e.g. ``"tmux is not installed"``.
    """
    if present:
        return
    if under_ci():
        pytest.fail(f"{missing}; CI must have it (scripts/install-tools.sh installs it).", pytrace=False)
    pytest.skip(missing)
