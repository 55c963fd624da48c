"""What the runtime host may import: its own modules (``codemode.runtime``), the wire
(``codemode.wire``), the standard library and the third-party packages it uses today
(:data:`THIRD_PARTY`); nothing of the client (``codemode.*`` else) or of the kernel
(``codemode.kernel``). The host starts isolated and fast (``runtime/boot.py``), and a client
module pulled in would bring its imports (``mcp``, ``jsonschema``) to every host start.

The test reads the source, starts no process: every module of ``runtime/`` and
``codemode/wire/`` is parsed with :mod:`ast`, and every import in it (at module level or in a
function, where the host imports lazily) is followed to the module it names, transitively.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
HOST_PACKAGES = {"codemode.runtime": ROOT / "runtime", "codemode.wire": ROOT / "codemode" / "wire"}
"""The host's own packages and their folders (``pyproject.toml``'s ``package-dir``)."""

THIRD_PARTY = frozenset(
    {
        "_quickjs",  # quickjs-ng: the QuickJS engine's binding (runtime/engines/quickjs.py, interrupt.py)
        "py_mini_racer",  # mini-racer: the V8 engine (runtime/engines/v8*.py) and Intl's oracle
        "icu",  # PyICU: Intl for QuickJS cells (runtime/intl/)
        "orjson",  # large frames' JSON (codemode/wire/frame_json.py, loaded after the first large one)
        "tree_sitter",  # the notebook profile's cell transform (runtime/notebook_source.py)
        "tree_sitter_javascript",
    }
)
"""The third-party packages the host imports, by top-level import name."""


def module_file(name: str, packages: dict[str, Path]) -> Path | None:
    """The source file of module ``name`` when it is in one of ``packages`` (``{name: folder}``,
    the longest name that holds it), else None."""
    holders = [package for package in packages if name == package or name.startswith(package + ".")]
    if not holders:
        return None
    package = max(holders, key=len)
    path = packages[package].joinpath(*name[len(package) + 1 :].split(".")) if name != package else packages[package]
    if path.is_dir():
        return path / "__init__.py"
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return None


def imports(source: str) -> list[tuple[str, list[str]]]:
    """Every import in ``source``, as ``(module, names)``: ``import a.b`` is ``("a.b", [])``,
    ``from a import b, c`` is ``("a", ["b", "c"])`` (each a submodule or a name defined in ``a``)."""
    found: list[tuple[str, list[str]]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports are refused (ruff TID252)"
            assert node.module is not None
            found.append((node.module, [alias.name for alias in node.names]))
    return found


def forbidden_imports(roots: list[Path], packages: dict[str, Path] = HOST_PACKAGES) -> dict[str, list[str]]:
    """``{module the host may not import: [files importing it]}``, following the imports of
    ``roots`` and of every module of ``packages`` they reach."""
    found: dict[str, list[str]] = {}
    seen: set[Path] = set()
    todo = list(roots)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for module, names in imports(path.read_text()):
            top = module.split(".")[0]
            own = module_file(module, packages)
            if own is not None:
                todo.append(own)
                todo += [sub for name in names if (sub := module_file(f"{module}.{name}", packages)) is not None]
            elif module in packages:
                continue  # a namespace of the host's packages (``codemode.runtime`` itself)
            elif top == "codemode" or top not in sys.stdlib_module_names | THIRD_PARTY | {"__future__"}:
                found.setdefault(module, []).append(path.name)
    return found


def host_modules() -> list[Path]:
    return sorted(p for folder in HOST_PACKAGES.values() for p in folder.rglob("*.py"))


def test_the_host_imports_nothing_of_the_client_or_the_kernel():
    assert forbidden_imports(host_modules()) == {}


def test_the_codemode_package_runs_no_import_when_the_host_imports_the_wire():
    """Importing ``codemode.wire`` runs ``codemode/__init__.py`` first: it imports only at the
    client's request (``codemode.tool``), never at module level."""
    tree = ast.parse((ROOT / "codemode" / "__init__.py").read_text())
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))]
    assert [ast.unparse(node) for node in imports] == ["from typing import Any"]


@pytest.mark.parametrize(
    ("line", "forbidden"),
    [
        ("from codemode.session import CodeModeSession", "codemode.session"),
        ("from codemode.kernel import kernel", "codemode.kernel"),
        ("import codemode.tools.registry", "codemode.tools.registry"),
        ("def later():\n    from codemode.dispatch import ToolCallRuntime", "codemode.dispatch"),
        ("import mcp", "mcp"),
        ("import jsonschema", "jsonschema"),
    ],
)
def test_a_forbidden_import_is_found(tmp_path, line, forbidden):
    """The check finds an import of the client or kernel layers, at module level or in a
    function, and a third-party package not listed, in a module the host reaches only
    through another; the allowed imports beside it are not reported."""
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "reached.py").write_text(f"import json\nimport orjson\nfrom codemode.wire import messages\n{line}\n")
    entry = tmp_path / "entry.py"
    entry.write_text("from codemode.runtime.probe.reached import something\n")
    packages = {**HOST_PACKAGES, "codemode.runtime.probe": tmp_path}
    assert forbidden_imports([entry], packages) == {forbidden: ["reached.py"]}
