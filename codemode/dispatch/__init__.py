"""The tool-call dispatcher: :class:`ToolCallRuntime` (``spec/codex-code-mode.md`` §5)."""

from .gate import SharedExclusiveGate
from .runtime import ToolCallEvent, ToolCallResult, ToolCallRuntime, abort_message

__all__ = ["SharedExclusiveGate", "ToolCallEvent", "ToolCallResult", "ToolCallRuntime", "abort_message"]
