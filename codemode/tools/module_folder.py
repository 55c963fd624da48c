"""Importing Python tool modules from the config file's folder, which cells can usually write.

The folder (for a ``codemode.toml`` beside the notebook, the notebook's folder) is put on the
import path only while the registry imports the ``[python_tools] modules``
(:func:`codemode.kernel.services.tool_module_folder`). Meanwhile :class:`SingleCandidateFinder`
stands in front of Python's own finders: any module about to be imported from that folder, at
any level of its dotted name (the tool module, its packages, what they import from there), is
refused when the folder holding it has a second candidate for it
(:func:`codemode.sandbox.startup.module_candidates`: ``helpers/`` beside ``helpers.py``, or an
extension module beside a source file). Python would pick one of them in its own order, and a
cell that wrote the second one would choose the code that runs in the kernel at its next start.
The files it did import are kept read-only for cells afterwards
(:func:`codemode.sandbox.startup.startup_code`), so no new candidate appears inside a package;
the folder itself cannot be (it is the workspace), hence this check.

A module the imports looked for there and did not find (``try: import optionalhelper`` /
``except ImportError`` in a tool module, or in a library it imports) would be found at the next
start if a cell wrote it: the finder records each name it is asked about that could come from
the folder, and :meth:`SingleCandidateFinder.missing` gives the paths Python's path finder would
have tried for those that were not imported, kept from being created
(:meth:`codemode.sandbox.policy.SandboxPolicy.masked`).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from codemode.sandbox.startup import module_candidates


def ambiguity(fullname: str, place: Path, found: list[str]) -> str:
    """The sentence for module ``fullname`` refused because the folder ``place`` holds the
    candidates ``found``."""
    return (
        f"the module {fullname!r} has several candidates in {str(place)!r} ({', '.join(found)}), and a cell "
        "may have written one of them; it was not imported. Remove the one you did not write, then "
        "restart the kernel."
    )


class SingleCandidateFinder(importlib.abc.MetaPathFinder):
    """A finder placed first on ``sys.meta_path`` that finds nothing itself: it asks Python's
    path finder where ``fullname`` would come from and raises ``ImportError`` when that is a
    folder inside ``folder`` holding more than one candidate for it."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(os.path.abspath(folder))
        self._asked: dict[str, tuple[Path, ...]] = {}
        try:
            self._stems = {entry.split(".")[0] for entry in os.listdir(self.folder)}
        except OSError:
            self._stems = set()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        # Cheap answers first: most imports meanwhile are of installed modules.
        if path is None:
            self._asked.setdefault(fullname, (self.folder,))
            if fullname not in self._stems:
                return None  # no top-level candidate in the folder (listed once: no cell runs meanwhile)
        else:
            inside = tuple(Path(os.path.abspath(p)) for p in path if isinstance(p, str))
            inside = tuple(p for p in inside if p.is_relative_to(self.folder))
            if not inside:
                return None  # a submodule of a package outside the folder
            self._asked.setdefault(fullname, inside)
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None:
            return None
        if spec.origin and spec.has_location:
            origin = Path(os.path.abspath(spec.origin))
            places = [origin.parent.parent if spec.submodule_search_locations is not None else origin.parent]
        else:  # a namespace package: each of its folders
            places = [Path(os.path.abspath(p)).parent for p in spec.submodule_search_locations or ()]
        name = fullname.rpartition(".")[2]
        for place in places:
            if not place.is_relative_to(self.folder):
                continue
            found = module_candidates(place, name)
            if len(found) > 1:
                raise ImportError(ambiguity(fullname, place, found), name=fullname)
        return None

    def missing(self) -> list[Path]:
        """For each module this finder was asked about that could come from the folder (a
        top-level name: the folder itself; a submodule: its package's folders inside it) and
        that is not imported now, the paths Python's path finder tries for it there
        (``importlib.machinery.FileFinder``): the folder ``name/`` (a package or a namespace
        portion) and ``name`` with each of ``importlib.machinery.all_suffixes()`` (``.py``,
        ``.pyc``, the extension modules' suffixes). Absolute; existing or not."""
        suffixes = importlib.machinery.all_suffixes()
        paths: list[Path] = []
        for fullname, places in self._asked.items():
            if fullname in sys.modules:
                continue
            name = fullname.rpartition(".")[2]
            for place in places:
                paths += [place / name, *(place / f"{name}{suffix}" for suffix in suffixes)]
        return paths


def missing_modules() -> list[Path]:
    """:meth:`SingleCandidateFinder.missing` of the finders on ``sys.meta_path`` now (the one
    of :func:`codemode.kernel.services.tool_module_folder`, while the tool modules are imported)."""
    return [p for finder in sys.meta_path if isinstance(finder, SingleCandidateFinder) for p in finder.missing()]
