"""The globals a cell's prelude installs (the helpers of Codex's code mode), as completion and
inspection show them: each one's TypeScript-style signature and a one-paragraph description.

They come from the helper table (:mod:`codemode.runtime.helper_table`), which also generates
the prelude's install code, so what completion offers is what a cell has. The strict profile's
are Codex 0.171's (``text``, ``image``, ``audio``, ``generatedImage``, ``content``, ``store``,
``load``, ``notify``, ``yield_control``, ``exit``, the timers, the undocumented ``as_settled``
and ``stream_settled``, ``tools`` and ``ALL_TOOLS``); a kernel test compares them with a real
cell's global object. The notebook profile's cells have five more (:data:`NOTEBOOK_HELPERS`:
``console``, ``display``, ``html``, ``markdown``, ``svg``; :func:`helpers_of`).
"""

from __future__ import annotations

from codemode.runtime.helper_table import HELPERS as TABLE
from codemode.runtime.helper_table import Helper, helpers_of

HELPERS: tuple[Helper, ...] = helpers_of("strict")
"""Globals of a strict cell: the ones Codex's code-mode prelude installs, in its order."""


def kind(helper: Helper) -> str:
    """Jupyter's completion type of ``helper``: ``function`` when it is called, else ``instance``."""
    return "function" if helper.form == "function" else "instance"


HELPER_NAMES = frozenset(h.name for h in HELPERS)
"""The strict profile's helpers' names."""

NOTEBOOK_HELPERS: tuple[Helper, ...] = tuple(h for h in helpers_of("notebook") if h.name not in HELPER_NAMES)
"""The notebook profile's own helpers of a cell (``codemode-host --profile notebook``)."""

CONSOLE_MEMBERS = tuple(sorted((m.name, "function") for h in TABLE if h.name == "console" for m in h.members))
"""``console``'s members in the notebook profile, as completion lists them (``(name, kind)``,
sorted by name)."""

__all__ = ["CONSOLE_MEMBERS", "HELPERS", "HELPER_NAMES", "NOTEBOOK_HELPERS", "Helper", "helpers_of", "kind"]
