"""Where the kernel keeps its input history (shared by the kernel, which writes it, and the
sandbox, which hides it from commands: it holds every cell anyone ran, secrets included)."""

from __future__ import annotations

import os
from pathlib import Path

HISTORY_FILE_ENV = "CODEMODE_HISTORY_FILE"
"""Environment variable naming the history file (``:memory:``: none, kept in memory)."""
IN_MEMORY = ":memory:"


def history_location() -> str:
    """The history file: ``$CODEMODE_HISTORY_FILE``, else ``codemode/history.sqlite`` in the
    Jupyter data directory (``jupyter_core.paths.jupyter_data_dir()``, which honours
    ``JUPYTER_DATA_DIR``), as IPython keeps ``history.sqlite`` in its profile."""
    named = os.environ.get(HISTORY_FILE_ENV)
    if named:
        return named
    return str(default_history_folder() / "history.sqlite")


HISTORY_COMPANIONS = ("", "-journal", "-wal", "-shm")
"""Suffixes of the history file and of SQLite's files beside it (rollback journal, write-ahead
log and its index), which hold copies of its pages while a write is under way."""


def history_files() -> list[Path]:
    """The history file and SQLite's companions, whether they exist yet or not: the sandbox
    hides each one that exists when a command starts, so a journal made by a write after the
    kernel started is hidden too (none when the history is kept in memory)."""
    location = history_location()
    if location == IN_MEMORY:
        return []
    return [Path(location + suffix) for suffix in HISTORY_COMPANIONS]


def default_history_folder() -> Path:
    """``codemode/`` in the Jupyter data directory: the folder of the default history file,
    which holds nothing but it and SQLite's companions (codemode writes nothing else there)."""
    from jupyter_core.paths import jupyter_data_dir

    return Path(jupyter_data_dir()) / "codemode"


def history_hidden() -> list[Path]:
    """What the sandbox hides so that commands never see the history: its folder
    (:func:`default_history_folder`) when the history is kept there, a tmpfs over it covering
    every companion SQLite makes and deletes; else, for a ``$CODEMODE_HISTORY_FILE`` in a folder
    shared with other files, :func:`history_files` (none when kept in memory).

    Why the folder: each file is hidden by a mount over it, and SQLite deletes its ``-journal``
    at once; a journal deleted between the command line naming it and bubblewrap mounting over
    it made bubblewrap fail the whole command (``Can't create file at ...: Read-only file
    system``)."""
    location = history_location()
    if location == IN_MEMORY:
        return []
    folder = default_history_folder()
    if Path(location) == folder / "history.sqlite":
        return [folder]
    return history_files()
