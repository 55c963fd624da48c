"""A CodeModeSession over our real runtime host, with Python tool modules loaded, for the tool
tests that must go through the layer a kernel uses (cells calling tools over the host protocol)."""

from __future__ import annotations

import sys
from pathlib import Path

from session_harness import OUR_HOST, SessionHarness, texts

from codemode.config import Config

PYTOOLS = Path(__file__).resolve().parent


class HostSession(SessionHarness):
    """``async with HostSession(["module"]) as h``: a registry with the built-ins and the
    Python tools of ``modules`` (found in this folder), a dispatcher, a session on a real host.
    ``h.events`` collects the dispatcher's events."""

    def __init__(self, modules: list[str]) -> None:
        if str(PYTOOLS) not in sys.path:
            sys.path.insert(0, str(PYTOOLS))
        super().__init__(OUR_HOST, config=Config(python_modules=modules))


__all__ = ["PYTOOLS", "HostSession", "texts"]
