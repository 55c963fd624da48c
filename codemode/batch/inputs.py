"""The files that command-line arguments name: paths, folders and globs."""

from __future__ import annotations

import glob
import os
from pathlib import Path


class UsageError(ValueError):
    """The arguments name no file or conflict; ``str(e)`` says what to change."""


def files_named(arguments: list[str], suffix: str, noun: str) -> list[Path]:
    """The files the arguments name, each once, in order: a file as given, every ``*SUFFIX``
    file in a folder (sorted; not its subfolders: ``'DIR/**/*SUFFIX'`` reaches those), the
    matches of a glob (sorted). A leading ``~`` is expanded, also in a quoted glob. Raises
    :class:`UsageError` for an argument that names nothing (``noun`` names the kind of file in
    the message, e.g. ``"session file"``)."""
    found: list[Path] = []
    for argument in (os.path.expanduser(a) for a in arguments):
        path = Path(argument)
        if path.is_dir():
            matches = sorted(p for p in path.glob(f"*{suffix}") if p.is_file())
            if not matches:
                raise UsageError(f"The folder {argument} holds no {noun} (*{suffix}).")
            found.extend(matches)
        elif path.exists():
            found.append(path)
        elif glob.has_magic(argument):
            matches = sorted(Path(m) for m in glob.glob(argument, recursive=True) if Path(m).is_file())
            if not matches:
                raise UsageError(f"No file matches {argument}.")
            found.extend(matches)
        else:
            raise UsageError(f"{argument} does not exist.")
    return list(dict.fromkeys(found))


def names_one_file(arguments: list[str]) -> bool:
    """Whether the arguments are a single path to an existing file (not a folder or a glob):
    a command then runs that one file as it always has, printing its cells."""
    return len(arguments) == 1 and Path(os.path.expanduser(arguments[0])).is_file()


def targets(files: list[Path], output: str | None, several: bool, noun: str, option: str) -> dict[Path, Path]:
    """Input file -> the notebook to write for it: with one file and an ``output`` ending in
    ``.ipynb``, that; else ``<output folder or the file's folder>/<stem>.ipynb``. Raises
    :class:`UsageError` when ``output`` (given as ``option``) names a notebook for several
    files (``noun``: what they are, plural) or two files would share a name."""
    if output is not None and not several and output.endswith(".ipynb"):
        return {files[0]: Path(output)}
    if output is not None and output.endswith(".ipynb"):
        raise UsageError(f"{len(files)} {noun} need a folder for {option}, not the notebook {output}.")
    chosen: dict[Path, Path] = {}
    seen: dict[Path, Path] = {}
    for file in files:
        folder = Path(output) if output is not None else file.parent
        target = folder / (file.stem + ".ipynb")
        if target in seen:
            raise UsageError(f"{seen[target]} and {file} would both be written to {target}.")
        seen[target] = file
        chosen[file] = target
    return chosen
