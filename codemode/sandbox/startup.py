"""Paths a sandboxed command must not change or read, found when the kernel starts.

Must not change (:func:`startup_code`): what runs by itself the next time the kernel or its
runtime host starts. A cell that could edit it would leave code behind that runs outside the
sandbox, without anyone being asked: the config file (it names MCP server commands and the
sandbox mode), the Python tool modules it names, the files its MCP servers' command lines name,
the kernel's Python environment (a ``.pth`` file there runs at every interpreter start) and
codemode's own code. A second candidate for a tool module (``m/`` next to ``m.py``) is not
protected against but detected (:func:`shadowed_modules`): such a module is not loaded. Each is protected only
where it lies inside a writable root; usually none does.

Must not read (:func:`jupyter_secrets`): the kernel's input history, and Jupyter's runtime folder, where the connection files
of the running kernels (with the keys that sign their messages) and the Jupyter server's
tokens live. With network access, a command holding a key could drive any local kernel, or
answer this kernel's approval questions itself.
"""

from __future__ import annotations

import importlib.util
import site
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

PACKAGES = ("codemode", "codemode.kernel", "codemode.runtime")
"""codemode's own packages (the kernel and the runtime host load them at start)."""


def _package_folders() -> list[Path]:
    folders: list[Path] = []
    for name in PACKAGES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is not None and spec.submodule_search_locations:
            folders.extend(Path(p) for p in spec.submodule_search_locations)
    return folders


def _module_paths(names: Iterable[str]) -> list[Path]:
    """The files of loaded modules (a package: its folder), with their ``__pycache__``."""
    paths: list[Path] = []
    for name in names:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if not file:
            continue
        path = Path(file)
        if path.name == "__init__.py":
            paths.append(path.parent)
        else:
            paths += [path, path.parent / "__pycache__"]
    return paths


def _server_files(servers: Iterable[Any], base: Path | None) -> list[Path]:
    """The files an MCP stdio server's command line names (its program, a script it runs),
    where they exist: relative ones are looked up in the server's ``cwd`` and the config's folder."""
    paths: list[Path] = []
    for server in servers:
        if not getattr(server, "command", None):
            continue
        folders = [Path(f) for f in (getattr(server, "cwd", None), base) if f]
        for word in [server.command, *getattr(server, "args", [])]:
            candidate = Path(word).expanduser()
            for found in [candidate] if candidate.is_absolute() else [folder / candidate for folder in folders]:
                if found.is_file():
                    paths.append(found)
    return paths


def shadowed_modules(folder: Path, names: Iterable[str]) -> dict[str, list[str]]:
    """Tool modules with more than one candidate in ``folder`` (``m/``, ``m.py``, ``m.pyc``,
    ``m.*.so``): Python would load the first in its own order, which a cell that wrote a second
    one next to the user's could choose. By module name, the candidates found."""
    shadowed: dict[str, list[str]] = {}
    for name in names:
        top = name.split(".")[0]

        def candidate(path: Path, top: str = top) -> bool:
            if path.is_dir():
                return path.name == top
            return path.name in (f"{top}.py", f"{top}.pyc") or (
                path.name.startswith(f"{top}.") and path.name.endswith(".so")
            )

        found = [p.name + ("/" if p.is_dir() else "") for p in sorted(folder.glob(f"{top}*")) if candidate(p)]
        if len(found) > 1:
            shadowed[name] = found
    return shadowed


def startup_code(config_file: Path | None, tool_modules: Iterable[str], mcp_servers: Iterable[Any] = ()) -> list[Path]:
    """Absolute paths of what runs when the kernel or the runtime host starts (module docstring)."""
    base = config_file.parent if config_file is not None else None
    paths = [Path(sys.prefix), Path(sys.base_prefix), *_package_folders(), *_module_paths(tool_modules)]
    paths += _server_files(mcp_servers, base)
    if site.ENABLE_USER_SITE and site.USER_SITE:
        paths.append(Path(site.USER_SITE))
    if config_file is not None:
        paths.append(config_file)
    return [Path(p).absolute() for p in dict.fromkeys(paths)]


def jupyter_secrets() -> list[Path]:
    """Jupyter's runtime folder (connection files, server tokens), also when it does not exist
    yet (a Jupyter server or kernel started later makes it: each command is started with it
    hidden once it exists, and the file tools refuse it by path), and the kernel's input history
    (every cell anyone ran, pasted secrets included)."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:
        return []
    from ..history_file import history_files

    return [Path(jupyter_runtime_dir()), *history_files()]
