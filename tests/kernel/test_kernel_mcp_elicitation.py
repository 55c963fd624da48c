"""An MCP server's ``elicitation/create`` through the kernel, with ``server-everything``.

codemode's MCP client declares the ``elicitation`` capability (form and URL), so the server offers
its elicitation tools; a request under an execute that allows stdin is put to the person as
``input_request`` questions, one line each; without stdin it is declined, as Codex does when it
asks no one (``approval_policy = "never"``, ``codex exec``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from dependencies import require
from kernel_driver import EVERYTHING, answer, execute, reply_or_question, send_execute
from sandbox_cells import kernel_in

SERVER = f'[mcp_servers.everything]\ncommand = "node"\nargs = ["{EVERYTHING}", "stdio"]\nstartup_timeout_sec = 30\n'
FORM = (
    '// @exec: {"yield_time_ms": 120000}\n'
    "const r = await tools.mcp__everything__trigger_elicitation_request({});\n"
    'text(r.content.map((c) => c.text).join("\\n"));'
)


@pytest.fixture(autouse=True)
def _needs_everything() -> None:
    require(EVERYTHING.exists(), "server-everything is not installed in .npm-tools")


@pytest.fixture(scope="module")
def kernel(codemode_kernelspec, tmp_path_factory):
    with kernel_in(tmp_path_factory.mktemp("elicitation"), SERVER) as k:
        yield k


def converse(kc, code: str, replies: list[str]) -> tuple[list[str], str]:
    """Run ``code`` allowing stdin, answering its questions with ``replies`` in turn; return
    the questions' prompts and what the cell printed."""
    msg_id = send_execute(kc, code, allow_stdin=True)
    prompts = []
    while True:
        kind, message = reply_or_question(kc, msg_id)
        if kind == "done":
            assert message.content["status"] == "ok", message.content
            return prompts, message.stdout
        prompts.append(message["content"]["prompt"])
        assert message["parent_header"]["msg_id"] == msg_id
        assert len(prompts) <= len(replies), prompts
        answer(kc, message, replies[len(prompts) - 1])


def raw_result(printed: str) -> dict:
    """The ``Raw result`` JSON ``trigger-elicitation-request`` prints: what the client answered."""
    return json.loads(printed.split("Raw result: ", 1)[1])


def test_the_server_offers_its_elicitation_tools(kernel):
    listed = execute(kernel.kc, 'text(ALL_TOOLS.map((t) => t.name).filter((n) => n.includes("elicit")).join(" "))')
    assert listed.stdout == "mcp__everything__trigger_elicitation_request mcp__everything__trigger_url_elicitation\n"


def test_a_form_is_asked_field_by_field_and_accepted(kernel):
    replies = ["y", "Ada", "yes", "", "ada@example.com", "", "", "abc", "7", "", "rachel", "Piano, drums"]
    replies += ["Wonder Woman", "", "Dogs"]
    prompts, printed = converse(kernel.kc, FORM, replies)
    assert prompts[0].endswith(
        ": MCP server `everything` asks for input (tool `trigger-elicitation-request`):\n"
        "  Please provide inputs for the following fields:\n"
        "Answer? [y]es / [n]o (decline) / [c]ancel: "
    )
    assert prompts[0].startswith("Cell ")
    assert prompts[1:4] == [
        "  name - Your full, legal name (text; required): ",
        "  check - Agree to the terms and conditions (yes or no): ",
        "  firstLine - Favorite first line of a story (text; empty for It was a dark and stormy night.): ",
    ]
    integer = (
        "  integer - Your favorite integer (do not give us your phone number, pin, or other sensitive info) "
        "(an integer from 1 to 100; empty for 42): "
    )
    assert prompts[7:9] == [integer, "  (Asked again: abc is not an integer.)\n" + integer]
    assert prompts[12] == (
        "  titledSingleSelectEnum - Choose your favorite hero (one of: hero-1 (Superman), hero-2 (Green Lantern), "
        "hero-3 (Wonder Woman); empty for hero-1): "
    )
    assert printed.startswith("✅ User provided the requested information!\n")
    assert raw_result(printed) == {
        "action": "accept",
        "content": {
            "name": "Ada",
            "check": True,
            "firstLine": "It was a dark and stormy night.",
            "email": "ada@example.com",
            "integer": 7,
            "number": 3.14,
            "untitledSingleSelectEnum": "Rachel",
            "untitledMultipleSelectEnum": ["Piano", "Drums"],
            "titledSingleSelectEnum": "hero-3",
            "titledMultipleSelectEnum": ["fish-1"],
            "legacyTitledEnum": "pet-2",
        },
    }


def test_no_declines_and_end_of_input_cancels(kernel):
    prompts, printed = converse(kernel.kc, FORM, ["n"])
    assert len(prompts) == 1 and raw_result(printed) == {"action": "decline"}
    prompts, printed = converse(kernel.kc, FORM, ["y", "Ada", "\x04"])
    assert len(prompts) == 3 and raw_result(printed) == {"action": "cancel"}
    assert printed.startswith("⚠️ User cancelled the elicitation dialog.\n")


def test_without_stdin_the_request_is_declined_as_codex_does_unattended(kernel):
    done = execute(kernel.kc, FORM, allow_stdin=False)
    assert done.stdout.startswith("❌ User declined to provide the requested information.\n")
    assert raw_result(done.stdout) == {"action": "decline"}


def test_a_url_request_shows_the_address_and_yes_accepts(kernel):
    code = (
        '// @exec: {"yield_time_ms": 120000}\n'
        'const r = await tools.mcp__everything__trigger_url_elicitation({url: "https://example.com/sign-in", '
        'message: "Sign in\\nthere", elicitationId: "e-1"});\n'
        'text(r.content.map((c) => c.text).join("\\n"));'
    )
    prompts, printed = converse(kernel.kc, code, ["y"])
    assert prompts[0].split(":", 1)[1] == (
        " MCP server `everything` asks you to open an address (tool `trigger-url-elicitation`):\n"
        "  Sign in\\nthere\n"
        "  address: https://example.com/sign-in\n"
        "Open it? [y]es (accept) / [n]o (decline) / [c]ancel: "
    )
    assert printed.startswith(
        "✅ User completed the URL elicitation flow.\nElicitation ID: e-1\nURL: https://example.com/sign-in\n"
    )
    assert raw_result(printed) == {"action": "accept"}


def test_approval_policy_never_declines_without_asking(codemode_kernelspec, tmp_path: Path):
    with kernel_in(tmp_path / "nb", 'approval_policy = "never"\n' + SERVER) as k:
        prompts, printed = converse(k.kc, FORM, [])
    assert prompts == [] and raw_result(printed) == {"action": "decline"}
