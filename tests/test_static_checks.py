"""The tree passes its type checker and its linter, and keeps its shape.

mypy checks ``codemode/``, ``kernel/`` and ``runtime/`` with the settings of ``[tool.mypy]`` in
``pyproject.toml``; ruff checks the whole tree with ``[tool.ruff]``; a finding fails the test
with the checker's own report. The shape: no import cycle among the installed modules (a module
is as long as its one job needs).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(600)
def test_mypy_finds_no_type_errors():
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=REPO, capture_output=True, text=True, timeout=580)
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]


def test_ruff_finds_no_lint_errors():
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--quiet", "."], cwd=REPO, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]


# -- the tree's shape --------------------------------------------------------------------------

PACKAGES = {"codemode": REPO / "codemode", "codemode.kernel": REPO / "kernel", "codemode.runtime": REPO / "runtime"}


def _module_files() -> dict[str, Path]:
    """Dotted module name -> file, for every module of the three installed packages."""
    found: dict[str, Path] = {}
    for package, root in PACKAGES.items():
        for path in root.rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules ``name`` imports (absolute or relative, TYPE_CHECKING ones too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            submodules = [f"{module}.{alias.name}" for alias in node.names if f"{module}.{alias.name}" in modules]
            targets.update(submodules or [module])
    return {t for t in targets if t in modules and t != name}


@pytest.mark.unit
def test_no_module_imports_itself_through_others():
    """No import cycle among the modules of codemode, codemode.kernel and codemode.runtime."""
    modules = _module_files()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(trail[trail.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, trail + [nxt])
        state[node] = 2

    for start in sorted(graph):
        if start not in state:
            visit(start, [start])
    assert cycles == []


@pytest.mark.unit
def test_every_package_folder_is_installed():
    """A non-editable install ships every folder with an ``__init__.py`` (``pip install .`` once left out two)."""
    import tomllib

    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {
        ".".join((name, *path.parent.relative_to(root).parts))
        for name, root in PACKAGES.items()
        for path in root.rglob("__init__.py")
        if ".venv" not in path.parts
    }
    assert sorted(on_disk) == sorted(setuptools["packages"])
    assert {name: REPO / folder for name, folder in setuptools["package-dir"].items()} == PACKAGES
