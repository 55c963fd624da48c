"""Paths a sandboxed command must not change or read, found when the kernel starts.

Must not change (:func:`startup_code`): what runs by itself the next time the kernel or its
runtime host starts. A cell that could edit it would leave code behind that runs outside the
sandbox, without anyone being asked: the config file (it names MCP server commands and the
sandbox mode), the Python tool modules it names, the kernel's Python environment (a ``.pth``
file there runs at every interpreter start) and codemode's own code. Each is protected only
where it lies inside a writable root; usually none does.

Must not read (:func:`jupyter_secrets`): Jupyter's runtime folder, where the connection files
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


def startup_code(config_file: Path | None, tool_modules: Iterable[str]) -> list[Path]:
    """Absolute paths of what runs when the kernel or the runtime host starts (module docstring)."""
    paths = [Path(sys.prefix), Path(sys.base_prefix), *_package_folders(), *_module_paths(tool_modules)]
    if site.ENABLE_USER_SITE and site.USER_SITE:
        paths.append(Path(site.USER_SITE))
    if config_file is not None:
        paths.append(config_file)
    return [Path(p).absolute() for p in dict.fromkeys(paths)]


def jupyter_secrets() -> list[Path]:
    """Jupyter's runtime folder (connection files, server tokens), where it exists."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:
        return []
    folder = Path(jupyter_runtime_dir())
    return [folder] if folder.is_dir() else []
