"""Paths a sandboxed command must not change or read, found when the kernel starts.

Must not change (:func:`startup_code`): what runs by itself the next time the kernel or its
runtime host starts. A cell that could edit it would leave code behind that runs outside the
sandbox, without anyone being asked: the config file (it names MCP server commands and the
sandbox mode), the Python tool modules it names and everything they imported from the config
file's folder (each package of a dotted name is protected whole, a namespace package's folders
too: no ``__init__.py`` and no ``tools/`` beside ``tools.py`` can appear), the modules their
imports looked for there and did not find, the files its MCP servers' command lines name (both
also before they exist: :meth:`codemode.sandbox.policy.SandboxPolicy.masked`), the kernel's Python environment (a ``.pth`` file there runs at
every interpreter start) and codemode's own code. The config file's folder itself is usually the
workspace and cannot be protected, so a second candidate for a module there (``m/`` next to
``m.py``) is not prevented but detected, at every level of a dotted name
(:func:`shadowed_modules`, :func:`module_candidates`): such a module is not loaded. Each is
protected only where it lies inside a writable root.

Must not read (:func:`jupyter_secrets`): the kernel's input history, and Jupyter's runtime folder, where the connection files
of the running kernels (with the keys that sign their messages) and the Jupyter server's
tokens live. With network access, a command holding a key could drive any local kernel, or
answer this kernel's approval questions itself.
"""

from __future__ import annotations

import glob
import importlib.util
import os
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
    """The files of loaded modules (a package: its folder, every folder of a namespace
    package), with their ``__pycache__``."""
    paths: list[Path] = []
    for name in names:
        module = sys.modules.get(name)
        file = getattr(module, "__file__", None)
        if not file:
            paths += [Path(p) for p in getattr(module, "__path__", None) or () if isinstance(p, str)]
            continue
        path = Path(file)
        if path.name == "__init__.py":
            paths.append(path.parent)
        else:
            paths += [path, path.parent / "__pycache__"]
    return paths


def _modules_from(folder: Path) -> list[str]:
    """The loaded modules (packages included, namespace packages too) whose code lies in
    ``folder``: what the tool modules of a config file beside them imported from there."""
    root = Path(os.path.abspath(folder))
    environment = [Path(os.path.abspath(p)) for p in _environment()]
    found = []
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        places = [file] if file else [p for p in getattr(module, "__path__", None) or () if isinstance(p, str)]
        for place in (Path(os.path.abspath(p)) for p in places):
            # A venv inside the folder is protected whole (sys.prefix): its modules are not listed.
            if place.is_relative_to(root) and not any(place.is_relative_to(e) for e in environment):
                found.append(name)
                break
    return found


def _environment() -> list[Path]:
    """The kernel's Python environment: its prefixes and the user's site-packages."""
    paths = [Path(sys.prefix), Path(sys.base_prefix)]
    if site.ENABLE_USER_SITE and site.USER_SITE:
        paths.append(Path(site.USER_SITE))
    return paths


def _server_files(servers: Iterable[Any], base: Path | None) -> list[Path]:
    """The files an MCP stdio server's command line names (its program, a script it runs).
    Those that exist (relative ones looked up in the server's ``cwd`` and the config's folder),
    and, whether or not they exist, those the server would open: absolute words (the config
    loader made ``./bin/server`` and ``./srv.py`` absolute,
    :func:`codemode.config.servers.resolve_paths`) and, with a ``cwd``, every other word
    relative to it (``python3 srv.py`` opens ``cwd/srv.py``); not ``-options``. A cell must not
    create one before the server's next start
    (:meth:`codemode.sandbox.policy.SandboxPolicy.masked`); a word that names no file
    (``UTC``) only keeps that name from being created."""
    paths: list[Path] = []
    for server in servers:
        if not getattr(server, "command", None):
            continue
        cwd = getattr(server, "cwd", None)
        folders = [Path(f) for f in (cwd, base) if f]
        for word in [server.command, *getattr(server, "args", [])]:
            try:
                candidate = Path(word).expanduser()
            except RuntimeError:  # ~user of a user that does not exist: names no file
                continue
            if "\0" in word:
                continue
            for found in [candidate] if candidate.is_absolute() else [folder / candidate for folder in folders]:
                if found.is_file():
                    paths.append(found)
            if word.startswith("-") or word == server.command and os.sep not in word:
                continue  # an option; a bare command is looked up on PATH (server_programs)
            if candidate.is_absolute() or cwd:
                named = Path(os.path.normpath(Path(cwd or "/") / candidate))
                if not os.path.lexists(named):
                    paths.append(named)
    return paths


def module_candidates(folder: Path, name: str) -> list[str]:
    """What Python could load as the module ``name`` (one level, no dots) from ``folder``: a
    folder ``name/`` (a package, or a namespace portion), ``name.py``, ``name.pyc``, the
    extension modules ``name.so`` and ``name.*.so``; sorted, a folder with a trailing ``/``.
    Python's path finder picks one of them in its own order (a package before an extension
    module before a source file), so a cell that wrote a second one beside the user's would
    choose what runs."""

    def candidate(path: Path) -> bool:
        if path.is_dir():
            return path.name == name
        return path.name in (f"{name}.py", f"{name}.pyc") or (
            path.name.startswith(f"{name}.") and path.name.endswith(".so")
        )

    try:
        entries = sorted(folder.glob(f"{glob.escape(name)}*"))
    except OSError:
        return []
    return [p.name + ("/" if p.is_dir() else "") for p in entries if candidate(p)]


def shadowed_modules(folder: Path, names: Iterable[str]) -> dict[str, list[str]]:
    """Tool modules with more than one candidate (:func:`module_candidates`) in ``folder``, at
    any level of their dotted name: for ``pkg.sub.tools``, ``pkg`` in ``folder``, ``sub`` in
    ``folder/pkg/`` and ``tools`` in ``folder/pkg/sub/`` (``pkg/sub/tools/`` next to
    ``pkg/sub/tools.py`` would be imported instead of it). By module name, the candidates found
    at the first level that has several, each as a path relative to ``folder``."""
    shadowed: dict[str, list[str]] = {}
    for name in names:
        place = folder
        prefix = ""
        for part in name.split("."):
            found = module_candidates(place, part)
            if len(found) > 1:
                shadowed[name] = [prefix + entry for entry in found]
                break
            place, prefix = place / part, f"{prefix}{part}/"
            if not place.is_dir():
                break
    return shadowed


def startup_code(
    config_file: Path | None,
    tool_modules: Iterable[str],
    mcp_servers: Iterable[Any] = (),
    missing_modules: Iterable[Path] = (),
) -> list[Path]:
    """Absolute paths of what runs when the kernel or the runtime host starts (module
    docstring), with ``missing_modules``: where the tool modules' imports looked for a module in
    a folder cells can write and found none
    (:meth:`codemode.tools.module_folder.SingleCandidateFinder.missing`)."""
    base = config_file.parent if config_file is not None else None
    modules = [*tool_modules, *(_modules_from(base) if base is not None else ())]
    paths = [*_environment(), *_package_folders(), *_module_paths(dict.fromkeys(modules))]
    paths += _server_files(mcp_servers, base)
    paths += missing_modules
    if config_file is not None:
        paths.append(config_file)
    return [Path(p).absolute() for p in dict.fromkeys(paths)]


def jupyter_secrets() -> list[Path]:
    """Jupyter's runtime folder (connection files, server tokens), also when it does not exist
    yet (a Jupyter server or kernel started later makes it: each command is started with it
    hidden once it exists, and the file tools refuse it by path), and the kernel's input history
    (every cell anyone ran, pasted secrets included), as
    :func:`~codemode.history_file.history_hidden` gives it (its whole folder by default)."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:
        return []
    from codemode.history_file import history_hidden

    return [Path(jupyter_runtime_dir()), *history_hidden()]
