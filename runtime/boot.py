"""Starting the host without ``site``: the script the client runs (``python -I -S boot.py PLAN ...``).

The client (:func:`codemode.host.spawn.default_host_command`) knows where everything the host
imports lives, so the host need not run ``site`` to find it: processing every ``.pth`` file of
the environment (an editable install's import hook among them, which loads ``pathlib`` and
``re``) is most of what ``python -I`` costs before any of the host's own code runs. ``PLAN``,
the script's first argument, is a JSON object the client writes:

- ``"path"``: the folders to append to ``sys.path`` (the client's site-packages folders, where
  the engines' bindings are installed; their ``.pth`` files are not run);
- ``"packages"``: ``{"codemode": folder, "codemode.runtime": folder}``, the folders of
  codemode's own packages, wherever the install put them (an editable install maps
  ``codemode.runtime`` to the repository's ``runtime/``).

The host keeps what ``-I`` gives it: neither the working folder nor ``PYTHONPATH`` nor the
user's site-packages is on its import path. Its other arguments are ``codemode-host``'s
(:mod:`codemode.runtime.__main__`).

The host starts in two steps (``runtime/__main__.py``): :func:`~codemode.runtime.__main__.start`
needs no asyncio and starts the first cell's thread compiling the prelude, then
:func:`~codemode.runtime.__main__.serve` loads asyncio and the protocol server, while that
compiles. asyncio is imported without ``ssl``: asyncio imports it for TLS transports, which the
host never opens, and loading OpenSSL is a few milliseconds of every start. The block is lifted
once asyncio is loaded, so anything that imports ``ssl`` later gets it.

The cyclic garbage collector is off from the script's first line (when run as the host's script) until the host has imported
everything and frozen what start-up made (:func:`codemode.runtime.gc_tuning.freeze_startup_objects`,
after which ``serve`` turns it back on): importing makes tens of thousands of container objects
that all live as long as the process, and the young collections they trigger found nothing to
free while costing 5 to 7 ms of every start on the 2-core development machine.
"""

from __future__ import annotations

import gc

if __name__ == "__main__":
    gc.disable()  # until serve() has frozen the start-up objects (see the module docstring)

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from importlib.machinery import ModuleSpec, SourceFileLoader  # noqa: E402
from typing import Any  # noqa: E402


class PackageFolders:
    """A ``sys.meta_path`` finder that finds the packages named in the plan in their folders."""

    def __init__(self, folders: dict[str, str]) -> None:
        self._folders = folders

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> ModuleSpec | None:
        """The spec of package ``name`` (its ``__init__.py``) when the plan names it, else None."""
        folder = self._folders.get(name)
        if folder is None:
            return None
        init = os.path.join(folder, "__init__.py")
        spec = ModuleSpec(name, SourceFileLoader(name, init), origin=init, is_package=True)
        spec.submodule_search_locations = [folder]
        spec.has_location = True
        return spec


def import_asyncio_without_ssl() -> None:
    """Import asyncio with ``ssl`` unavailable to it (see the module docstring)."""
    if "asyncio" in sys.modules or "ssl" in sys.modules:
        return
    sys.modules["ssl"] = None  # type: ignore[assignment]  # makes ``import ssl`` raise ImportError
    try:
        import asyncio  # noqa: F401
    finally:
        del sys.modules["ssl"]


def boot(plan: dict[str, Any], argv: list[str]) -> None:
    """Set up the import path of ``plan`` and run the host with ``argv`` (never returns)."""
    sys.path.extend(str(folder) for folder in plan.get("path", []))
    sys.meta_path.insert(0, PackageFolders({str(k): str(v) for k, v in plan.get("packages", {}).items()}))
    from codemode.runtime import __main__ as host

    frames = host.start(argv)  # the first cell's context is prepared from here on, in a thread
    import_asyncio_without_ssl()
    host.serve(frames)


if __name__ == "__main__":
    boot(json.loads(sys.argv[1]), sys.argv[2:])
