"""The ``[recording]`` section: record the nested tool calls of a run, or answer them from a
recording (:mod:`codemode.replay`).

``mode``: ``"off"`` (the default), ``"record"`` or ``"replay"``; ``path``: the recording's
file, relative to the config file's folder. The environment wins over the file, so that a CI
job can switch a notebook run (``python -m codemode run``, nbval, papermill) without editing
it: ``CODEMODE_RECORDING`` (a mode) and ``CODEMODE_RECORDING_PATH`` (a file, relative to the
kernel's working folder). Without a path, the recording is ``<notebook>.recording.jsonl``
beside the notebook when ``JPY_SESSION_NAME`` names it (Jupyter Server sets it to the
notebook's path; a relative one is taken as a name in the working folder), else
``codemode.recording.jsonl`` in the kernel's working folder (the notebook's folder for
Jupyter and ``python -m codemode run``; papermill's with ``--cwd``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codemode.config.checks import Reporter, described

MODES = ("off", "record", "replay")
MODE_ENV = "CODEMODE_RECORDING"
PATH_ENV = "CODEMODE_RECORDING_PATH"
DEFAULT_NAME = "codemode.recording.jsonl"
"""The recording's file name when no path is set and no notebook is known."""
SUFFIX = ".recording.jsonl"
"""What replaces a notebook's ``.ipynb`` in its default recording's name."""


@dataclass
class RecordingSettings:
    """``mode`` (one of :data:`MODES`) and ``path`` (absolute, or None for the default)."""

    mode: str = "off"
    path: Path | None = None


def load_recording(value: Any, base: Path | None, report: Reporter) -> RecordingSettings:
    """Read the ``[recording]`` table; each problem is reported and the key's default kept."""
    settings = RecordingSettings()
    if not isinstance(value, dict):
        report("recording", f"must be a table, not {described(value)}.")
        return settings
    for key, item in value.items():
        if key == "mode":
            if item in MODES:
                settings.mode = item
            else:
                report("recording.mode", f'must be "off", "record" or "replay", not {described(item)}; "off" is used.')
        elif key == "path":
            if isinstance(item, str) and item:
                settings.path = Path(os.path.abspath((base or Path.cwd()) / Path(item).expanduser()))
            else:
                report("recording.path", f"must be a file path, not {described(item)}.")
        else:
            report(f"recording.{key}", 'is not a known setting (the section has "mode" and "path") and was ignored.')
    return settings


def effective_recording(
    settings: RecordingSettings, errors: list[str], cwd: Path, env: dict[str, str] | None = None
) -> RecordingSettings:
    """The settings after the environment's :data:`MODE_ENV` and :data:`PATH_ENV`, with the
    default path filled in (see the module docstring). An invalid mode in the environment is
    reported in ``errors`` and ignored."""
    env = dict(os.environ) if env is None else env
    mode, path = settings.mode, settings.path
    wanted = env.get(MODE_ENV, "")
    if wanted:
        if wanted in MODES:
            mode = wanted
        else:
            errors.append(f'{MODE_ENV}={wanted!r} is not "off", "record" or "replay"; recording.mode "{mode}" is used.')
    if env.get(PATH_ENV):
        path = Path(os.path.abspath(cwd / Path(env[PATH_ENV]).expanduser()))
    if path is None:
        notebook = env.get("JPY_SESSION_NAME", "")
        if notebook.endswith(".ipynb"):
            # Absolute in recent Jupyter Servers; relative to the server's root in older ones,
            # where the kernel's working folder is the notebook's folder.
            named = Path(notebook)
            name = named.name[: -len(".ipynb")] + SUFFIX
            path = named.with_name(name) if named.is_absolute() else cwd / name
        else:
            path = cwd / DEFAULT_NAME
    return RecordingSettings(mode, path)
