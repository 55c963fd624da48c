"""Whatever a Python tool raises or returns, only its own call fails, with a sentence naming the
tool and the exception; the process and the event loop go on, and the next call works.

Through the dispatcher, and through CodeModeSession with a real host (cells catching the
rejected promises). Fixtures: ``pytools/cm_failing_tools.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from codemode.cancellation import CancellationToken
from codemode.config import Config
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent / "pytools"))
from host_harness import PYTOOLS, HostSession, texts  # noqa: E402

pytestmark = pytest.mark.timeout(120)

FAILURES = {
    "exit_sync": "tool `exit_sync` raised SystemExit: 3",
    "interrupt_sync": "tool `interrupt_sync` raised KeyboardInterrupt.",
    "exit_async": "tool `exit_async` raised SystemExit: 4",
    "interrupt_async": "tool `interrupt_async` raised KeyboardInterrupt: stop",
    "generator_exit": "tool `generator_exit` raised GeneratorExit.",
    "cancelled_itself": "tool `cancelled_itself` raised CancelledError although its call was not cancelled.",
    "stop_sync": "tool `stop_sync` raised StopIteration: no more",
    "stop_async": "tool `stop_async` raised StopIteration.",
    "unprintable": "tool `unprintable` raised Unprintable: (its message cannot be shown: str() raised RuntimeError)",
    "opaque": "tool `opaque` returned a value that is not JSON: Unable to serialize unknown type: <class 'object'>.",
    "not_a_number": "tool `not_a_number` returned a value that is not JSON: `values[1]` is NaN.",
    "explode": "tool `explode` raised RuntimeError: kaboom on purpose",
}


@pytest.fixture
async def dispatcher(monkeypatch):
    monkeypatch.syspath_prepend(str(PYTOOLS))
    registry = await ToolRegistry.create(Config(python_modules=["cm_failing_tools", "cm_sample_tools"]))
    assert registry.errors == []
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def call(dispatcher, name, args, runtime_tool_call_id="tool-1"):
    wire = {"name": name, "namespace": None}
    return await dispatcher.handle_tool_call("1", runtime_tool_call_id, wire, "function", args, CancellationToken())


@pytest.mark.unit
@pytest.mark.parametrize("name", sorted(FAILURES))
async def test_each_failure_rejects_only_its_call(dispatcher, name):
    events = []
    dispatcher.add_listener(events.append)
    result = await call(dispatcher, name, {})
    assert (result.outcome, result.error, result.success) == ("failed", FAILURES[name], False)
    assert [(e.kind, e.outcome) for e in events] == [("started", None), ("finished", "failed")]
    after = await call(dispatcher, "double", {"n": 21}, runtime_tool_call_id="tool-2")
    assert (after.outcome, after.value) == ("completed", 42)


async def test_cells_catch_every_failure_and_the_host_and_process_go_on():
    names = sorted(FAILURES)
    source = (
        f"for (const name of {names!r}) {{\n"
        "  try { await tools[name]({}); text(name + ' resolved') }\n"
        "  catch (e) { text(name + ' => ' + e) }\n"
        "}\n"
        "text(JSON.stringify(await tools.double({n: 21})));"
    )
    async with HostSession(["cm_failing_tools", "cm_sample_tools"]) as h:
        pid = os.getpid()
        _, response = await h.run(source)
        assert texts(response) == [f"{name} => {FAILURES[name]}" for name in names] + ["42"]
        process = h.session.provider.connection.process
        cell, response = await h.run("text(JSON.stringify(await tools.echo({after: true})))")
        assert (cell, texts(response)) == ("2", ['{"after":true}'])
        assert h.session.provider.connection.process is process and process.returncode is None
        assert os.getpid() == pid
        outcomes = [r["outcome"] for r in h.dispatcher.calls_for("1")]
        assert outcomes == ["failed"] * len(names) + ["completed"]
