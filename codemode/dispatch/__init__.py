"""The tool-call dispatcher: :class:`ToolCallRuntime` runs the nested tool calls of cells.

``ToolCallRuntime`` is Codex's name for the same object (``core/src/tools/parallel.rs``); it
lives in :mod:`codemode.dispatch.dispatcher`, beside the per-cell gate
(:mod:`codemode.dispatch.gate`).
"""

from codemode.dispatch.dispatcher import ToolCallEvent, ToolCallResult, ToolCallRuntime, abort_message
from codemode.dispatch.gate import SharedExclusiveGate

__all__ = ["SharedExclusiveGate", "ToolCallEvent", "ToolCallResult", "ToolCallRuntime", "abort_message"]
