"""Python tools: ``codemode.tool`` + ``[python_tools] modules`` ."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

pytestmark = pytest.mark.unit


@pytest.fixture
async def registry(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "pytools"))
    registry = await ToolRegistry.create(Config(python_modules=["cm_sample_tools", "no_such_module_xyz"]))
    yield registry
    await registry.aclose()
    sys.modules.pop("cm_sample_tools", None)


async def call(registry, name, args):
    dispatcher = ToolCallRuntime(registry)
    return await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": name, "namespace": None}, "function", args, CancellationToken()
    )


async def test_marked_functions_become_typed_tools(registry):
    names = {t.js_name: t for t in registry.tools if t.origin.startswith("python:")}
    assert sorted(names) == ["add", "explode", "shout"]
    add = names["add"]
    assert add.description == "Adds two integers."
    assert add.declaration == (
        "declare const tools: { add(args: {\n  // The first number.\n  a: number;\n"
        "  // The second number.\n  b?: number;\n}): Promise<unknown>; };"
    )
    assert names["shout"].supports_parallel is False


async def test_import_errors_are_reported_and_the_rest_loads(registry):
    assert registry.errors == [
        "python_tools.modules: no_such_module_xyz: cannot be imported "
        "(ModuleNotFoundError: No module named 'no_such_module_xyz')."
    ]


async def test_sync_and_async_calls_and_validation(registry):
    assert (await call(registry, "add", {"a": 1})).value == {"sum": 3}
    assert (await call(registry, "shout", {"text": "hi"})).value == "HI"
    bad = await call(registry, "add", {"a": "one"})
    assert (bad.outcome, bad.error) == (
        "failed",
        'tool `add` received invalid arguments at `a`: "one" is not of type "integer" (schema rule `type`).',
    )


async def test_exception_message_rejects(registry):
    result = await call(registry, "explode", {})
    assert (result.outcome, result.error) == ("failed", "tool `explode` raised RuntimeError: kaboom on purpose")
