"""The notebook profile's own items (execute_result, console streams, displays), and the
strict profile left as it was, through real hosts."""

from __future__ import annotations

import asyncio
import sys

import pytest
from rt_client import body_of, start_host, text_items

from codemode.runtime.events import item_cost


@pytest.fixture
async def nb():
    """A notebook-profile host with session ``s1`` open."""
    client = await start_host(profile="notebook")
    assert (await client.hello())["type"] == "connection/ready"
    assert (await client.open("s1"))["status"] == "ok"
    yield client
    if client.process.returncode is None:
        client.process.kill()
        await client.process.wait()


def items(response):
    return body_of(response)["content_items"]


def result(plain):
    return {"type": "execute_result", "data": {"text/plain": plain}, "metadata": {}}


async def test_the_last_expression_is_the_cells_last_item(nb):
    assert items(await nb.run("1 + 2")) == [result("3")]
    assert items(await nb.run("text('first')\n40 + 2")) == [{"type": "input_text", "text": "first"}, result("42")]
    assert items(await nb.run("await Promise.resolve(7)")) == [result("7")]


@pytest.mark.parametrize("source", ["let x = 1", "undefined", "text('only')", "function g() { return 1 }", ""])
async def test_no_value_no_execute_result(nb, source):
    assert all(item["type"] != "execute_result" for item in items(await nb.run(source)))


async def test_console_goes_to_stdout_and_stderr(nb):
    response = await nb.run(
        "console.log('a', 1)\nconsole.info('i')\nconsole.debug('d')\nconsole.warn('w')\nconsole.error('e')"
    )
    assert items(response) == [
        {"type": "stream", "name": "stdout", "text": "a 1\n"},
        {"type": "stream", "name": "stdout", "text": "i\n"},
        {"type": "stream", "name": "stdout", "text": "d\n"},
        {"type": "stream", "name": "stderr", "text": "w\n"},
        {"type": "stream", "name": "stderr", "text": "e\n"},
    ]


async def test_display_helpers(nb):
    response = await nb.run("display(42)\nhtml('<b>x</b>')\nmarkdown('*m*')\nsvg('<svg/>')")
    assert items(response) == [
        {"type": "display_data", "data": {"text/plain": "42"}, "metadata": {}},
        {"type": "display_data", "data": {"text/html": "<b>x</b>", "text/plain": "<b>x</b>"}, "metadata": {}},
        {"type": "display_data", "data": {"text/markdown": "*m*", "text/plain": "*m*"}, "metadata": {}},
        {"type": "display_data", "data": {"image/svg+xml": "<svg/>", "text/plain": "<svg/>"}, "metadata": {}},
    ]


async def test_a_value_that_throws_when_inspected_is_shown_as_the_failure_and_the_cell_goes_on(nb):
    trap = "new Proxy({}, {get() { throw new Error('proxy get') }, ownKeys() { throw new Error('keys') }})"
    response = await nb.run(
        f"const trapped = {trap};\nconsole.log('n=%d', 1, trapped)\ndisplay(trapped)\ntext('after')\ntrapped"
    )
    assert body_of(response)["error_text"] is None
    assert items(response) == [
        {"type": "stream", "name": "stdout", "text": "[the arguments could not be shown: Error: proxy get]\n"},
        {
            "type": "display_data",
            "data": {"text/plain": "[the value could not be shown: Error: proxy get]"},
            "metadata": {},
        },
        {"type": "input_text", "text": "after"},
        result("[the value could not be shown: Error: proxy get]"),
    ]
    revoked = await nb.run("const r = Proxy.revocable({}, {}); r.revoke(); r.proxy")
    assert body_of(revoked)["error_text"] is None
    assert items(revoked) == [result("<Revoked Proxy>")]


@pytest.mark.unit
def test_a_display_costs_its_bundle():
    bundle = {"text/html": "x" * 1000, "text/plain": "y"}
    assert item_cost({"type": "display_data", "data": bundle, "metadata": {}}) > 1000
    assert item_cost({"type": "input_text", "text": "abc"}) == 256 + len("input_text") + 3


async def test_strict_profile_is_unchanged(host):
    failed = await host.run("console.log(1)")
    assert body_of(failed)["error_text"].startswith("ReferenceError: console is not defined")
    assert items(await host.run("1 + 2")) == []
    assert body_of(await host.run("const kept = 1"))["error_text"] is None
    assert body_of(await host.run("kept"))["error_text"].startswith("ReferenceError: kept is not defined")
    assert text_items(await host.run("text(typeof display)")) == ["undefined"]


async def test_notebook_profile_refuses_v8_before_the_handshake():
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "codemode.runtime",
        "--profile",
        "notebook",
        "--engine",
        "v8",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 2 and stdout == b""
    assert "the notebook profile runs on the quickjs engine for now" in stderr.decode()
