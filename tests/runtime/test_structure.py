"""The runtime package's shape: what ships, what imports what, and the interrupt's safety checks."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest
import quickjs

from codemode.runtime import interrupt
from codemode.runtime.prelude_source import ENGINE_PARTS, READERS, REALM_CELL_PARTS, REALM_PARTS, prelude_source

pytestmark = pytest.mark.unit

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"
PYPROJECT = RUNTIME.parent / "pyproject.toml"


def test_every_prelude_file_is_assembled_and_shipped():
    """Each ``runtime/prelude/*.js`` is in some engine's or the notebook realm's assembly order,
    and every JavaScript file is package data."""
    on_disk = sorted(p.name for p in (RUNTIME / "prelude").glob("*.js"))
    assemblies = [*ENGINE_PARTS.values(), REALM_PARTS, REALM_CELL_PARTS]
    assert sorted({name for parts in assemblies for name in parts} | set(READERS)) == on_disk
    globs = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"]["package-data"]["codemode.runtime"]
    for path in RUNTIME.rglob("*.js"):
        name = path.relative_to(RUNTIME).as_posix()
        assert any(fnmatch.fnmatch(name, glob) for glob in globs), name
    for engine, parts in ENGINE_PARTS.items():
        source = prelude_source(engine)
        positions = [source.index(f"// ---- {name} ----\n") for name in parts]
        assert positions == sorted(positions)
    assert "stack.js" in ENGINE_PARTS["quickjs"] and "stack.js" not in ENGINE_PARTS["v8"]


def _declared_and_used(text: str) -> tuple[set[str], set[str]]:
    """The ``__cm_*`` names JavaScript ``text`` declares at any depth, and those it uses
    (comments and string literals left out)."""
    code = re.sub(r"//[^\n]*", "", text)
    code = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', code)
    declared = set(re.findall(r"(?:function|const|let|var)\s+(__cm_[\w$]+)", code))
    return declared, set(re.findall(r"\b(__cm_[\w$]+)", code))


def test_the_lazily_compiled_readers_get_every_name_they_use():
    """``readers.js`` compiles the call-site readers apart from the prelude's scope: what they use
    of it must be exactly what it hands them (a missing name would fail only when a cell's error
    text asks, as a ReferenceError in the middle of reporting another error)."""
    declared, used = set(), set()
    for name in READERS:
        names = _declared_and_used((RUNTIME / "prelude" / name).read_text())
        declared |= names[0]
        used |= names[1]
    handed = re.search(r"const __cm_readers_uses = \[(.*?)\];", (RUNTIME / "prelude" / "readers.js").read_text(), re.S)
    assert handed
    assert sorted(used - declared - {"__cm_source_lines", "__cm_line_offset"}) == sorted(
        re.findall(r'"(__cm_[\w$]+)"', handed.group(1))
    )


def test_runtime_modules_import_nothing_only_for_type_checking():
    """Every import of ``runtime/`` is a real one, so the import-cycle check of
    ``tests/test_static_checks.py`` sees what the host imports (a ``TYPE_CHECKING`` import there
    would let a cycle through that one refactor away becomes an ``ImportError``). How long a
    module is, is left to its job."""
    assert [path.name for path in RUNTIME.rglob("*.py") if "TYPE_CHECKING" in path.read_text()] == []


def test_interrupt_reads_no_memory_of_a_foreign_object():
    """``runtime_pointer`` checks the object's type and size before reading raw memory."""
    assert interrupt.runtime_pointer(object()) is None
    assert interrupt.runtime_pointer(b"short") is None
    assert interrupt.runtime_pointer(quickjs.Context()) is not None


def test_interrupt_refuses_a_context_type_that_is_too_small(monkeypatch):
    """A binding whose object cannot hold the two pointers is refused, not read past its end."""

    class Small:
        __slots__ = ()

    monkeypatch.setattr("_quickjs.Context", Small)
    assert interrupt.runtime_pointer(Small()) is None


def test_interrupt_probe_finds_the_in_process_interrupt(monkeypatch):
    """The start-up probe stops a busy loop with the armed interrupt and says it is available."""
    monkeypatch.setattr(interrupt, "AVAILABLE", False)
    assert interrupt.probe() is True
    assert interrupt.AVAILABLE is True


def test_interrupt_probe_fails_without_hanging_when_arming_does_nothing(monkeypatch):
    """An interrupt that never fires leaves the probe's loop to end by itself: the probe reports
    it unavailable (the host then falls back to the process exit) instead of spinning for ever."""
    monkeypatch.setattr(interrupt.Interrupter, "arm", lambda self: None)
    monkeypatch.setattr(interrupt, "AVAILABLE", True)
    assert interrupt.probe() is False
    assert interrupt.AVAILABLE is False
