"""Strings holding lone UTF-16 surrogates, from tool code the kernel does not control, never
break a Jupyter message: they arrive as U+FFFD, the request gets its reply and the cell keeps
its output (``codemode.kernel.packing``)."""

from __future__ import annotations

import json

import pytest
from jupyter_client.session import json_packer
from kernel_driver import SURROGATE_TOOLS, execute, kernel_with_tools

from codemode.kernel.packing import safe_packer

pytestmark = pytest.mark.timeout(120)

TOOLS = "import sys\n\nimport codemode\n" + SURROGATE_TOOLS


@pytest.fixture(scope="module")
def kernel(codemode_kernelspec, tmp_path_factory):
    with kernel_with_tools(tmp_path_factory.mktemp("packing"), "cm_surrogate_print_tools", TOOLS) as started:
        yield started


def test_a_tool_printing_lone_surrogates_keeps_the_cell_and_its_output(kernel):
    run = execute(kernel.kc, 'text("first");\ntext(await tools.print_surrogate());\ntext("last");')
    assert run.content["status"] == "ok", run.content
    assert run.codemode["status"] == "completed"
    assert run.stdout == "printed \ufffd here\nfirst\nok\nlast\n"
    assert run.stderr_messages == ["warned \ufffd here\n"]
    assert execute(kernel.kc, 'text("next")').stdout == "next\n"


def test_a_tool_description_with_a_lone_surrogate_shows_in_tools(kernel):
    run = execute(kernel.kc, "%tools doc_surrogate")
    assert run.content["status"] == "ok", run.content
    assert "doc_surrogate: Docstring with a lone surrogate \ufffd in it." in run.stdout


@pytest.mark.unit
def test_the_packer_replaces_lone_surrogates_and_leaves_other_messages_alone():
    pack = safe_packer(json_packer)
    plain = {"text": "caf\u00e9 \U0001f600", "n": 1}
    assert pack(plain) == json_packer(plain)
    packed = pack({"text": "a\udfffb\ud800", "key\udc00": ["\ud83d\ude00"]})
    assert json.loads(packed.decode("utf-8")) == {"text": "a\ufffdb\ufffd", "key\ufffd": ["\U0001f600"]}
