"""The host's profile: how cells of a session relate to each other.

``strict`` (the default): every cell is Codex's ``exec``, a fresh JavaScript context per
cell (``runtime/cell.py``). ``notebook``: each session runs its cells in one context, the
realm (``runtime/realm.py``), so top-level declarations persist across cells, the last
expression is the cell's ``execute_result``, and ``console``, ``display``, ``html``,
``markdown`` and ``svg`` exist, as in Deno's and tslab's Jupyter kernels. The profile is
chosen once per process (``codemode-host --profile``, :func:`select`).
"""

from __future__ import annotations

from codemode.runtime.choice import ProcessChoice

PROFILES = ("strict", "notebook")
"""The profile names, the default first."""
NOTEBOOK_ENGINES = ("quickjs",)
"""The engines the notebook profile runs on."""
_choice = ProcessChoice("profile", PROFILES)
select = _choice.select
"""Make a name of :data:`PROFILES` the profile of this process (``ValueError`` for another)."""
selected = _choice.selected
"""The profile of this process."""


def notebook() -> bool:
    """True in the notebook profile."""
    return _choice.value == "notebook"
