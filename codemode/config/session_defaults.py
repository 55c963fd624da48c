"""The ``[session]`` table: defaults of every cell."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codemode.config.checks import Reporter, described, non_negative_int


@dataclass
class SessionDefaults:
    """The ``[session]`` table; Codex's defaults unless set (``DEFAULT_EXEC_YIELD_TIME_MS``,
    ``DEFAULT_MAX_OUTPUT_TOKENS_PER_EXEC_CALL``).

    ``yield_time_ms``: default exec yield; ``max_output_tokens``: default output budget;
    ``max_yield_time_ms``: clamp for exec and wait yields (``None`` = no clamp);
    ``max_heap_size_bytes``: per-cell JavaScript heap limit; ``engine``: the JavaScript
    engine of the runtime host, one of :data:`ENGINES` (``codemode-host --engine``);
    ``profile``: how cells behave, one of :data:`PROFILES` (``codemode-host --profile``):
    ``strict`` runs every cell exactly as Codex's ``exec``, ``notebook`` keeps top-level
    declarations across cells and shows the last expression's value. ``headless``: when a
    cell that did not ask to yield runs to its end before its reply, one of :data:`HEADLESS`
    (``auto``: for a request with ``allow_stdin`` false, :mod:`codemode.kernel.headless`).
    """

    yield_time_ms: int = 10000
    max_output_tokens: int = 10000
    max_yield_time_ms: int | None = 600000
    max_heap_size_bytes: int = 268435456
    engine: str = "quickjs"
    profile: str = "strict"
    headless: str = "auto"


ENGINES = ("quickjs", "v8")
"""The runtime host's engines (``codemode.runtime.engines.ENGINES``), the default first."""
PROFILES = ("strict", "notebook")
"""The runtime host's profiles (``codemode.runtime.profile.PROFILES``, ``codemode-host --profile``), the default first."""
HEADLESS = ("auto", "always", "never")
"""When a request is run headless (:mod:`codemode.kernel.headless`), the default first."""
CHOICES = {"engine": ENGINES, "profile": PROFILES, "headless": HEADLESS}
"""The ``[session]`` settings that name one of a few choices, each with its choices (default first)."""
NOTEBOOK_ENGINES = ("quickjs",)
"""The engines the notebook profile runs on (``codemode-host --profile notebook --engine v8``
stops before its handshake)."""


def combination_problem(engine: str, profile: str) -> str | None:
    """Why ``engine`` and ``profile`` cannot run together, or None when they can."""
    if profile == "notebook" and engine not in NOTEBOOK_ENGINES:
        return f"the notebook profile runs on the {' or '.join(NOTEBOOK_ENGINES)} engine for now, not on {engine}"
    return None


MIN_HEAP_SIZE_BYTES = 1024 * 1024
"""Smallest per-cell heap limit accepted from the config, in bytes (a cell's globals alone
need a few hundred KiB)."""


def load_session(table: Any, report: Reporter) -> SessionDefaults:
    defaults = SessionDefaults()
    if not isinstance(table, dict):
        report("session", f"must be a table, not {described(table)}; the defaults are used.")
        return defaults
    for key, value in table.items():
        name = f"session.{key}"
        if key in CHOICES:
            choices = CHOICES[key]
            if value in choices:
                setattr(defaults, key, value)
            else:
                report(
                    name,
                    f"must be one of {', '.join(map(repr, choices))}, not {described(value, (str,))}; {choices[0]} is used.",
                )
        elif key not in ("yield_time_ms", "max_output_tokens", "max_yield_time_ms", "max_heap_size_bytes"):
            report(name, "is not a known setting and was ignored.")
        elif not non_negative_int(value):
            report(name, f"must be a non-negative integer, not {described(value, (int,))}; the default is used.")
        elif key == "max_heap_size_bytes" and value < MIN_HEAP_SIZE_BYTES:
            report(
                name,
                f"must be at least {MIN_HEAP_SIZE_BYTES} bytes (1 MiB), not {value}: a smaller heap "
                "cannot even start a cell; the default is used.",
            )
        else:
            setattr(defaults, key, value)
    return defaults
