"""Terminating a cell of the notebook realm always stops its JavaScript, whoever's it looks like.

QuickJS cannot say whose promise job runs, so the realm's guess of the running cell can be
wrong: a loop resumed after a promise another cell settled, a loop calling a function of an
ended cell whose helpers act for a later cell, a loop in a ``.then`` callback. A terminate that
finds JavaScript still running after a short grace interrupts it anyway; a live cell whose code
that interrupt stopped ends with a clear error; a realm whose thread cannot be got back is
replaced (its cells end, the stored values stay). Each test is bounded by :data:`GUARD` seconds:
a realm left busy shows as a timeout, not as a hung test.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from rt_client import body_of, start_host, text_items, tool_def

TOOLS = [tool_def(name) for name in ("echo", "sleep", "gate", "gate2")]
GUARD = 8.0
"""Seconds a step may take before the realm counts as stuck."""
COLLATERAL = (
    "Error: interrupted: this cell's JavaScript was running when cell 2 was terminated, and was stopped "
    "with it (the cells of a notebook session share one JavaScript context, which cannot tell whose code runs)"
)
RESET = (
    "Error: the notebook session's JavaScript context was reset: cell 3 could not be stopped after "
    "session/terminate; the declarations of earlier cells are gone (stored values are kept)"
)


async def _gated_host(env: dict[str, str] | None = None) -> Any:
    client = await start_host(profile="notebook", env=env)
    assert (await client.hello())["type"] == "connection/ready"
    assert (await client.open("s1"))["status"] == "ok"
    for name in ("gate", "gate2"):
        event = asyncio.Event()

        async def gate_tool(value: Any, event: asyncio.Event = event) -> Any:
            await event.wait()
            return "opened"

        client.tools[name] = gate_tool
        setattr(client, name, event)
    return client


@pytest.fixture
async def nb():
    """A notebook-profile host, session ``s1``, tools ``gate``/``gate2`` answering once the test
    sets ``nb.gate``/``nb.gate2``."""
    client = await _gated_host()
    yield client
    if client.process.returncode is None:
        client.process.kill()
        await client.process.wait()


async def started(client: Any, source: str) -> str:
    """Start a cell that yields at once (``yield_control()`` first); its id."""
    cell_id, first = await asyncio.wait_for(client.execute(source, tools=TOOLS), GUARD)
    assert "Yielded" in first, first
    return cell_id


async def terminated(client: Any, cell_id: str) -> None:
    assert "Terminated" in (await asyncio.wait_for(client.terminate(cell_id), GUARD))["LiveCell"]


async def finish(client: Any, cell_id: str) -> dict[str, Any]:
    """The final response of a cell (bounded by :data:`GUARD`)."""

    async def final() -> dict[str, Any]:
        while True:
            response = (await client.wait(cell_id, 1000))["LiveCell"]
            if "Yielded" not in response:
                return response

    return await asyncio.wait_for(final(), GUARD)


async def alive(client: Any) -> None:
    """A new cell of the session runs and answers."""
    assert text_items(await asyncio.wait_for(client.run("text('realm alive')", tools=TOOLS), GUARD)) == ["realm alive"]


@pytest.mark.parametrize(
    "spinning",
    [
        "await new Promise((resolve) => { globalThis.go = resolve })\nwhile (true) {}",
        "new Promise((resolve) => { globalThis.go = resolve }).then(() => { while (true) {} })\nawait tools.gate2({})",
    ],
    ids=["resumed-body", "then-callback"],
)
async def test_a_loop_run_after_a_promise_another_cell_settled_is_stopped(nb, spinning):
    releaser = await started(nb, "yield_control()\nawait tools.gate({})\nglobalThis.go()\nnotify('released')")
    spinner = await started(nb, "yield_control()\n" + spinning)
    nb.gate.set()
    await asyncio.wait_for(nb.wait_for(lambda: "released" in nb.notifications), GUARD)
    await terminated(nb, spinner)
    await alive(nb)
    assert body_of(await finish(nb, releaser))["error_text"] is None


async def test_a_loop_calling_a_function_of_an_ended_cell_is_stopped(nb):
    # peek() is the ended cell 1's: its load() acts for the latest running cell (3), so the
    # realm took cell 2's loop for cell 3's.
    assert body_of(await nb.run("function peek() { return load('k') }", tools=TOOLS))["error_text"] is None
    spinner = await started(nb, "yield_control()\nawait tools.gate({})\nnotify('spinning')\nwhile (true) peek()")
    later = await started(nb, "yield_control()\nawait tools.gate2({})\ntext('later done')")
    nb.gate.set()
    await asyncio.wait_for(nb.wait_for(lambda: "spinning" in nb.notifications), GUARD)
    await terminated(nb, spinner)
    await alive(nb)
    nb.gate2.set()
    final = await finish(nb, later)
    assert text_items(final) == ["later done"] and body_of(final)["error_text"] is None


async def test_a_live_cell_whose_loop_was_interrupted_to_stop_another_ends_with_a_clear_error(nb):
    busy = await started(nb, "yield_control()\nawait tools.gate({})\nnotify('busy')\nwhile (true) {}")
    idle = await started(nb, "yield_control()\nawait tools.gate2({})")
    nb.gate.set()
    await asyncio.wait_for(nb.wait_for(lambda: "busy" in nb.notifications), GUARD)
    await terminated(nb, idle)
    assert body_of(await finish(nb, busy))["error_text"] == COLLATERAL
    await alive(nb)


async def test_a_realm_that_cannot_be_interrupted_is_replaced_and_the_stored_values_stay():
    client = await _gated_host(env={"CODEMODE_HOST_NO_INTERRUPT": "1"})
    try:
        kept = await client.run("const earlier = 1\nstore('k', 'kept')", tools=TOOLS)
        assert body_of(kept)["error_text"] is None
        waiting = await started(client, "yield_control()\nawait tools.gate({})")
        spinner = await started(client, "yield_control()\nwhile (true) {}")
        await terminated(client, spinner)
        assert body_of(await finish(client, waiting))["error_text"] == RESET
        fresh = await asyncio.wait_for(client.run("text(typeof earlier + ' ' + load('k'))", tools=TOOLS), GUARD)
        assert text_items(fresh) == ["undefined kept"] and body_of(fresh)["error_text"] is None
        assert not [event for event in client.events if event.get("type") == "host/exiting"]
    finally:
        client.process.kill()
        await client.process.wait()


async def test_a_terminated_cell_resumed_later_is_stopped_by_the_next_terminate(nb):
    releaser = await started(nb, "yield_control()\nawait tools.gate({})\nglobalThis.go()\nnotify('released')")
    spinner = await started(
        nb, "yield_control()\nawait new Promise((resolve) => { globalThis.go = resolve })\nwhile (true) {}"
    )
    await terminated(nb, spinner)
    nb.gate.set()  # go() now resumes the terminated cell's body, which spins
    await asyncio.wait_for(nb.wait_for(lambda: "released" in nb.notifications), GUARD)
    _, admitted, _ = nb.start_execute("text('queued behind the loop')", tools=TOOLS)
    queued = (await asyncio.wait_for(admitted, GUARD))["value"]["cellId"]
    await terminated(nb, queued)
    await alive(nb)
    assert body_of(await finish(nb, releaser))["error_text"] is None
