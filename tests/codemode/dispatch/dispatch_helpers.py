"""A tiny registry of hand-made tools for dispatcher tests."""

from __future__ import annotations

from codemode.tools.base import Tool


class FakeRegistry:
    """``find(name, namespace)`` over a fixed list of tools."""

    def __init__(self, *tools: Tool) -> None:
        self.tools = list(tools)

    def find(self, name, namespace=None):
        for tool in self.tools:
            if tool.name == name and tool.namespace == namespace:
                return tool
        return None


def wire(name: str) -> dict:
    return {"name": name, "namespace": None}
