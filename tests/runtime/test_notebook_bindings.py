"""``session/bindings`` (codemode's extension): a notebook realm lists what its cells declared.

Through a real host: the global bindings cells declared, the members (own and inherited, with
their kind) of a value reached by a path of data properties, never running a getter or a
proxy trap of the cells; a realm busy running JavaScript answers ``names: null`` within the
request's bound; only the notebook profile grants and serves the request.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from rt_client import body_of, start_host, text_items

from codemode.wire.messages import BINDINGS_CAPABILITY

DECLARING = (
    "const rows = [{name: 'a', n: 1}]\n"
    "const cfg = {inner: {deep: 1}, get trap() { globalThis.getterRan = true; return {x: 1} }}\n"
    "const hidden = new Proxy({}, {ownKeys() { globalThis.trapRan = true; return [] }})\n"
    "function helper() {}\n"
    "globalThis.assigned = 1"
)
OBJECT_MEMBERS = [
    ["toString", "function"],
    ["toLocaleString", "function"],
    ["valueOf", "function"],
    ["hasOwnProperty", "function"],
    ["isPrototypeOf", "function"],
    ["propertyIsEnumerable", "function"],
    ["__proto__", "property"],
    ["__defineGetter__", "function"],
    ["__defineSetter__", "function"],
    ["__lookupGetter__", "function"],
    ["__lookupSetter__", "function"],
    ["constructor", "function"],
]


async def _host(profile: str) -> Any:
    client = await start_host(profile=profile)
    assert (await client.hello())["type"] == "connection/ready"
    assert (await client.open("s1"))["status"] == "ok"
    return client


@pytest.fixture
async def nb():
    client = await _host("notebook")
    yield client
    client.process.kill()
    await client.process.wait()


async def listed(client: Any, path: list[str], **fields: Any) -> Any:
    result = await client.request({"method": "session/bindings", "sessionId": "s1", "path": path, **fields})
    assert result["status"] == "ok", result
    assert result["value"]["type"] == "session/bindings"
    return result["value"]["names"]


async def test_the_notebook_host_grants_the_extension_and_the_strict_one_does_not(nb):
    assert BINDINGS_CAPABILITY in nb.handshake["capabilities"]
    strict = await _host("strict")
    try:
        assert BINDINGS_CAPABILITY not in strict.handshake["capabilities"]
        refused = await strict.request({"method": "session/bindings", "sessionId": "s1", "path": []})
        assert refused == {
            "status": "error",
            "message": "session/bindings needs the notebook profile: strict cells share no bindings",
        }
    finally:
        strict.process.kill()
        await strict.process.wait()


async def test_the_bindings_cells_declared_and_nothing_before(nb):
    assert await listed(nb, []) == []
    assert body_of(await nb.run(DECLARING))["error_text"] is None
    assert await listed(nb, []) == [
        ["rows", "property"],
        ["cfg", "property"],
        ["hidden", "property"],
        ["helper", "function"],
        ["assigned", "property"],
    ]


async def test_members_of_a_binding_an_element_and_a_nested_object(nb):
    assert body_of(await nb.run(DECLARING))["error_text"] is None
    array_members = await listed(nb, ["rows"])
    assert array_members[0] == ["length", "property"] and ["map", "function"] in array_members
    assert ["filter", "function"] in array_members and ["hasOwnProperty", "function"] in array_members
    assert await listed(nb, ["rows", "0"]) == [["name", "property"], ["n", "property"], *OBJECT_MEMBERS]
    assert await listed(nb, ["cfg"]) == [["inner", "property"], ["trap", "property"], *OBJECT_MEMBERS]
    assert await listed(nb, ["cfg", "inner"]) == [["deep", "property"], *OBJECT_MEMBERS]
    assert await listed(nb, ["cfg", "missing"]) == []


async def test_no_getter_or_proxy_trap_of_a_cell_runs(nb):
    assert body_of(await nb.run(DECLARING))["error_text"] is None
    assert await listed(nb, ["cfg", "trap"]) == []
    assert await listed(nb, ["hidden"]) == []
    assert await listed(nb, ["hidden", "x"]) == []
    assert text_items(await nb.run("text(typeof getterRan + ' ' + typeof trapRan)")) == ["undefined undefined"]


async def test_a_busy_realm_answers_nothing_within_the_bound(nb):
    assert body_of(await nb.run("const kept = {a: 1}"))["error_text"] is None
    _, first = await nb.execute("yield_control()\nwhile (true) {}", yield_time_ms=1000)
    assert "Yielded" in first
    started = time.monotonic()
    assert await listed(nb, ["kept"], timeoutMs=300) is None
    assert 0.3 <= time.monotonic() - started < 2.0
