"""JavaScript names of nested tools (``spec/codex-code-mode.md`` §1.8).

``normalize_identifier`` is Codex's ``normalize_code_mode_identifier``: every character
that is not an ASCII identifier character becomes ``_`` (``[A-Za-z_$]`` first,
``[A-Za-z0-9_$]`` after), and the empty name becomes ``_``. Recorded by the 0.171 case
``tool_name_normalisation``: ``mcp__srv__get-thing`` -> ``mcp__srv__get_thing``,
``weird name!`` -> ``weird_name_``, ``1starts-with-digit`` -> ``_starts_with_digit``,
``ünïcode`` -> ``_n_code``.
"""

from __future__ import annotations

_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$")
_REST = _FIRST | frozenset("0123456789")


def normalize_identifier(name: str) -> str:
    """The JS identifier for tool ``name`` (never empty)."""
    if not name:
        return "_"
    chars = [name[0] if name[0] in _FIRST else "_"]
    chars.extend(c if c in _REST else "_" for c in name[1:])
    return "".join(chars)
