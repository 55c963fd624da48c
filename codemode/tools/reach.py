"""Whether a cell may use a tool that is not listed yet, read from its source before it runs.

A cell's tools are fixed when it starts: the ``session/execute`` request carries their
definitions, from which the runtime host builds ``tools`` and ``ALL_TOOLS`` (as Codex's host
does). An MCP server still starting has listed none yet, so a cell that may call one waits
until every server has started or given up (each within its ``startup_timeout_sec``); any
other cell starts at once with the tools listed so far (:meth:`ToolRegistry.tools_for
<codemode.tools.registry.ToolRegistry.tools_for>`).

:func:`may_use_unlisted` decides from the text alone and errs towards waiting: every
``tools`` in the text (also in a string or a comment) must be followed by ``.name``,
``?.name``, ``["name"]`` or ``['name']`` naming a listed tool; ``ALL_TOOLS``, ``globalThis``,
``eval``, ``Function`` and a ``\\u`` escape (which can spell an identifier, ``\\u0074ools``)
make a cell wait too. Code that builds the way to ``tools`` out of strings otherwise
(``(() => 0)["constr" + "uctor"]``) is not recognised: it sees the tools listed when it
started, as a cell that started before a server finished starting does.
"""

from __future__ import annotations

import re
from collections.abc import Collection

REACHING = re.compile(r"(?<![\w$])(?:tools|ALL_TOOLS|globalThis|eval|Function)(?![\w$])|\\u[0-9A-Fa-f{]")
"""A word that reaches the ``tools`` object, or a Unicode escape that may spell one."""

MEMBER = re.compile(r"\s*(?:\?\.|\.)\s*([A-Za-z_$][\w$]*)|\s*(?:\?\.)?\s*\[\s*(?:\"([^\"\\\n]*)\"|'([^'\\\n]*)')\s*\]")
"""A member access that names its member: ``.name``, ``?.name``, ``["name"]``, ``['name']``."""


def may_use_unlisted(source: str, listed: Collection[str]) -> bool:
    """True unless every way ``source`` reaches the tools names one in ``listed`` (the JS and
    code-mode names of the tools known now); see the module docstring."""
    for match in REACHING.finditer(source):
        if match.group() != "tools":
            return True
        member = MEMBER.match(source, match.end())
        if member is None:
            return True
        name = next(group for group in member.groups() if group is not None)
        if name not in listed:
            return True
    return False
