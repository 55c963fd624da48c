"""Sample Python tools for tests/codemode/test_python_tools.py."""

import asyncio

import codemode


@codemode.tool
def add(a: int, b: int = 2) -> dict:
    """Adds two integers.

    Args:
        a: The first number.
        b: The second number.
    """
    return {"sum": a + b}


@codemode.tool(name="shout", parallel=False)
async def loud(text: str) -> str:
    """Upper-cases text."""
    await asyncio.sleep(0)
    return text.upper()


@codemode.tool
def explode() -> None:
    """Always fails."""
    raise RuntimeError("kaboom on purpose")


def not_a_tool():
    return 1
