"""codemode: the client side of code mode (protocol, session, host client, dispatcher, tools).

``codemode.tool`` is the decorator that turns a Python function into a tool (see
:mod:`codemode.tools.python`); it is imported lazily so the runtime host stays light.
"""

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "tool":
        from codemode.tools.python import tool

        return tool
    raise AttributeError(f"module 'codemode' has no attribute {name!r}")
