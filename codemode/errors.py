"""Errors of the client side of code mode.

Messages are complete sentences or Codex's exact texts (``spec/codex-code-mode.md`` §3.5,
§3.7, §4.6), e.g. ``code mode session is shutting down`` or
``cell g1:3 belongs to a stale code-mode host generation``.
"""

from __future__ import annotations


class CodeModeError(Exception):
    """An execute / wait / terminate / shutdown could not be carried out; ``str(e)`` is the text
    to show (the model-facing plain error of Codex, §3.2 last bullet)."""


class ToolCallError(Exception):
    """A nested tool call failed; the JavaScript promise rejects with ``str(e)`` (§1.8)."""
