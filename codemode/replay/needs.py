"""Which ``exec`` cells of a session need tools codemode lacks, known before anything runs.

A program written for Codex may call Codex's own nested tools (``write_stdin``,
``view_image``, ``apply_patch`` ...) or MCP tools of servers not configured here. For each
``exec`` call of a session, :func:`missing_tools_by_cell` reads its source
(:func:`codemode.tools.called.tool_uses`: static reading, which names ``tools.NAME``,
``tools["NAME"]`` and destructurings, and lists the places it cannot read) and keeps the cells
that name a tool ``tools`` lacks or reach the tools in a way it cannot read.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from codemode.replay.rollout import Session
from codemode.tools.base import Tool
from codemode.tools.called import available_names, tool_uses


@dataclass(frozen=True)
class CellNeeds:
    """One ``exec`` call: its ``call_id``, its line in the session file, the tools it names
    that are missing (``missing``, first use first) and the places static reading could not
    judge (``unread``, e.g. ``"line 2: ALL_TOOLS"``, lines of the program)."""

    call_id: str
    line: int
    missing: tuple[str, ...]
    unread: tuple[str, ...]


def missing_tools_by_cell(session: Session, tools: Iterable[Tool]) -> list[CellNeeds]:
    """The ``exec`` calls of ``session`` that name a tool not in ``tools`` (a registry's
    ``tools``) or that static reading cannot fully judge, in file order; the others are left out."""
    available = available_names(tools)
    needs = [cell_needs(call.call_id, call.line, call.source, available) for call in session.execs]
    return [n for n in needs if n.missing or n.unread]


def cell_needs(call_id: str, line: int, source: str, available: Collection[str]) -> CellNeeds:
    """What one program needs: the names of ``available`` (:func:`available_names` of a
    registry's tools) it lacks and the places static reading could not judge. Used for a
    session here and for a notebook's cells by :mod:`codemode.replay.run`."""
    uses = tool_uses(source)
    return CellNeeds(call_id, line, uses.missing(available), uses.unread)


__all__ = ["CellNeeds", "cell_needs", "missing_tools_by_cell"]
