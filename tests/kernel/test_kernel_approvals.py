"""Approvals of ``exec_command`` through Jupyter's stdin channel, with a real kernel.

The client answers the kernel's ``input_request`` as a front end would (``input_reply``);
"outside" is a folder under the real home, which the sandbox does not let commands write, so a
file appearing there proves the command ran outside the sandbox.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from console_driver import Console
from jupyter_client.session import Session
from kernel_driver import TIMEOUT_S, answer, collect, execute, reply_or_question, send_execute
from sandbox_cells import kernel_in, printed, shell

from codemode.kernel.approvals import ASKED_AGAIN

pytestmark = pytest.mark.usefixtures("codemode_kernelspec", "bubblewrap")


def escalated(path: Path) -> str:
    return shell(f"echo ok > {path}", sandbox_permissions="require_escalated", justification="May I write the report?")


def ask_and_answer(kernel, code: str, answer: str):
    """Run ``code`` allowing stdin, answer the one question with ``answer``; return the
    question's content and the execution. The cell is given a long yield time: a question comes
    only under the execute that follows the cell, so on a slow machine the default 10 s could end
    the execute (the cell yields) before the command asks."""
    msg_id = send_execute(kernel.kc, '// @exec: {"yield_time_ms": 120000}\n' + code, allow_stdin=True)
    question = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
    assert question["msg_type"] == "input_request"
    assert question["parent_header"]["msg_id"] == msg_id
    kernel.kc.input(answer)
    return question["content"], collect(kernel.kc, msg_id)


def test_escalation_asks_and_yes_runs_it_outside_the_sandbox(tmp_path, outside):
    workspace = tmp_path / "nb"
    with kernel_in(workspace) as kernel:
        question, done = ask_and_answer(kernel, escalated(outside / "yes.txt"), "y")
    assert question == {
        "prompt": (
            "Cell 1 asks to run a command outside the sandbox:\n"
            f"  command: echo ok > {outside / 'yes.txt'}\n"
            f"  cwd:     {workspace.resolve()}\n"
            "  reason:  May I write the report?\n"
            "Run it? [y]es / [n]o / [a]lways for this session: "
        ),
        "password": False,
    }
    assert json.loads(done.stdout)["exit_code"] == 0
    assert (outside / "yes.txt").read_text() == "ok\n"


def test_no_rejects_the_call_and_runs_nothing(tmp_path, outside):
    with kernel_in(tmp_path / "nb") as kernel:
        _, done = ask_and_answer(kernel, escalated(outside / "no.txt"), "n")
        assert printed(done) == "ERROR exec command rejected by user"
        # The kernel goes on: the next cell runs, in the sandbox.
        assert json.loads(execute(kernel.kc, shell("echo still")).stdout)["output"] == "still\n"
    assert list(outside.iterdir()) == []


def test_always_approves_the_same_command_for_the_session(tmp_path, outside):
    target = outside / "always.txt"
    with kernel_in(tmp_path / "nb") as kernel:
        ask_and_answer(kernel, escalated(target), "a")
        target.unlink()
        again = execute(kernel.kc, escalated(target), allow_stdin=True)  # not asked: no answer is sent
        assert json.loads(again.stdout)["exit_code"] == 0
    assert target.read_text() == "ok\n"


def test_without_stdin_the_escalation_is_denied_naming_approval_policy(tmp_path, outside):
    with kernel_in(tmp_path / "nb") as kernel:
        done = execute(kernel.kc, escalated(outside / "x.txt"), allow_stdin=False)
    assert printed(done) == (
        'ERROR exec_command needs a person\'s approval here (approval_policy = "on-request"), but no one can be '
        "asked: only a cell run by a front end that allows input (stdin) can ask, and nbclient, papermill, nbval "
        "and most harnesses do not, nor can a cell that runs in the background. The command was not run. Run it "
        "inside the sandbox, or change approval_policy or sandbox_mode in codemode.toml."
    )
    assert list(outside.iterdir()) == []


def test_never_refuses_escalation_without_asking(tmp_path, outside):
    with kernel_in(tmp_path / "nb", 'approval_policy = "never"\n') as kernel:
        done = execute(kernel.kc, escalated(outside / "x.txt"), allow_stdin=True)
    assert printed(done) == (
        "ERROR approval policy is Never; reject command — you should not ask for escalated permissions if the "
        "approval policy is Never"
    )
    assert list(outside.iterdir()) == []


def test_untrusted_asks_before_commands_that_are_not_known_safe(tmp_path):
    workspace = tmp_path / "nb"
    with kernel_in(workspace, 'approval_policy = "untrusted"\n') as kernel:
        safe = execute(kernel.kc, shell("ls -a && pwd"), allow_stdin=True)  # asks nothing
        assert json.loads(safe.stdout)["output"] == f".\n..\ncodemode.toml\n{workspace.resolve()}\n"
        question, done = ask_and_answer(kernel, shell("touch made.txt"), "y")
    assert question["prompt"].startswith("Cell 2 asks to run a command in the sandbox:\n  command: touch made.txt\n")
    assert json.loads(done.stdout)["exit_code"] == 0 and (workspace / "made.txt").exists()


def test_on_failure_offers_to_retry_outside_after_a_sandbox_denial(tmp_path, outside):
    with kernel_in(tmp_path / "nb", 'approval_policy = "on-failure"\n') as kernel:
        question, done = ask_and_answer(kernel, shell(f"echo retried > {outside}/r.txt"), "y")
    assert question["prompt"].endswith(
        "  (command failed; retry without sandbox?)\nRun it? [y]es / [n]o / [a]lways for this session: "
    )
    assert question["prompt"].startswith("Cell 1 asks to run a command outside the sandbox:\n")
    assert json.loads(done.stdout)["exit_code"] == 0
    assert (outside / "r.txt").read_text() == "retried\n"


def test_only_the_front_end_that_sent_the_request_can_answer(tmp_path, outside):
    """A reply from another client (another routing identity, such as a command that read the
    connection file and signs with its key) is ignored: the question stays open until the cell
    yields, and the call is then refused."""
    code = '// @exec: {"yield_time_ms": 2000}\n' + escalated(outside / "forged.txt")
    with kernel_in(tmp_path / "nb") as kernel:
        msg_id = send_execute(kernel.kc, code, allow_stdin=True)
        kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        intruder = kernel.km.client(session=Session(key=kernel.km.session.key))
        intruder.start_channels()
        try:
            intruder.input("a")
            yielded = collect(kernel.kc, msg_id)
        finally:
            intruder.stop_channels()
        waited = execute(kernel.kc, f"%wait {yielded.codemode['cell_id']}")
    assert waited.stdout.startswith("ERROR exec_command needs a person's approval here")
    assert list(outside.iterdir()) == []


LONG_YIELD = '// @exec: {"yield_time_ms": 120000}\n'


def test_a_question_open_when_the_cell_yields_is_withdrawn(tmp_path, outside):
    """No front end answers once the request is over: the question is withdrawn at the yield,
    the call refused as for a cell in the background, and the next question is asked; a reply
    to it without a parent could be the withdrawn question's late answer, so it is asked again."""
    code = '// @exec: {"yield_time_ms": 300}\n' + escalated(outside / "late.txt")
    with kernel_in(tmp_path / "nb") as kernel:
        msg_id = send_execute(kernel.kc, code, allow_stdin=True)
        kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)  # asked; never answered
        yielded = collect(kernel.kc, msg_id)
        assert yielded.codemode["status"] == "running"
        waited = execute(kernel.kc, f"%wait {yielded.codemode['cell_id']}")
        assert waited.stdout.startswith("ERROR exec_command needs a person's approval here")
        msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(outside / "next.txt"), allow_stdin=True)
        first = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        kernel.kc.input("y")
        kind, again = reply_or_question(kernel.kc, msg_id)
        assert kind == "asked"
        assert again["content"]["prompt"] == ASKED_AGAIN + "\n" + first["content"]["prompt"]
        kernel.kc.input("y")  # the front end has answered since: taken
        assert json.loads(collect(kernel.kc, msg_id).stdout)["exit_code"] == 0
    assert sorted(p.name for p in outside.iterdir()) == ["next.txt"]


def interrupted_question(kernel, path: Path) -> dict:
    """Ask about writing ``path`` and withdraw the question by interrupting the kernel; returns
    the withdrawn question."""
    msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(path), allow_stdin=True)
    question = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
    kernel.km.interrupt_kernel()
    stopped = collect(kernel.kc, msg_id)
    assert stopped.content["status"] == "error", stopped.content
    return question


def test_a_late_answer_to_an_interrupted_question_does_not_approve_the_next(tmp_path, outside):
    """The issue's case: a question withdrawn by an interrupt, then its late ``y`` without a
    parent (as ``KernelClient.input()`` and ``jupyter console`` send it) arrives while the next
    question is open. Before the fix it approved the next command; now that question is asked
    again, and the answer to it decides."""
    with kernel_in(tmp_path / "nb") as kernel:
        interrupted_question(kernel, outside / "first.txt")
        msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(outside / "second.txt"), allow_stdin=True)
        second = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        kernel.kc.input("y")  # the late answer
        kind, again = reply_or_question(kernel.kc, msg_id)
        assert kind == "asked", "the late answer approved the next question"
        assert again["content"]["prompt"] == ASKED_AGAIN + "\n" + second["content"]["prompt"]
        assert again["parent_header"]["msg_id"] == msg_id
        kernel.kc.input("n")
        assert printed(collect(kernel.kc, msg_id)) == "ERROR exec command rejected by user"
        assert list(outside.iterdir()) == []

        # A reply naming its question is taken even after a withdrawal; a late reply naming
        # the withdrawn question answers nothing, and counts as that question's answer.
        withdrawn = interrupted_question(kernel, outside / "third.txt")
        msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(outside / "fourth.txt"), allow_stdin=True)
        fourth = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        answer(kernel.kc, withdrawn, "y")
        answer(kernel.kc, fourth, "y")
        assert json.loads(collect(kernel.kc, msg_id).stdout)["exit_code"] == 0
        withdrawn = interrupted_question(kernel, outside / "fifth.txt")
        msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(outside / "sixth.txt"), allow_stdin=True)
        kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        answer(kernel.kc, withdrawn, "y")
        kernel.kc.input("n")  # the withdrawn question had its answer: this one is for the open one
        assert printed(collect(kernel.kc, msg_id)) == "ERROR exec command rejected by user"
    assert sorted(p.name for p in outside.iterdir()) == ["fourth.txt"]


def yielded_question(kernel, path: Path) -> dict:
    """Ask about writing ``path`` in a cell that yields after 1 s, leaving the question
    unanswered, so that it is withdrawn at the yield; returns the withdrawn question."""
    msg_id = send_execute(kernel.kc, '// @exec: {"yield_time_ms": 1000}\n' + escalated(path), allow_stdin=True)
    question = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
    assert collect(kernel.kc, msg_id).codemode["status"] == "running"
    return question


def asked_again(kernel, msg_id: str, question: dict) -> None:
    """Assert that the next thing to come for request ``msg_id`` is ``question`` asked again."""
    kind, again = reply_or_question(kernel.kc, msg_id)
    assert kind == "asked", "a late answer was taken as the open question's answer"
    assert again["content"]["prompt"] == ASKED_AGAIN + "\n" + question["content"]["prompt"]
    assert again["parent_header"]["msg_id"] == msg_id


def test_each_withdrawn_question_absorbs_one_late_answer(tmp_path, outside):
    """Two questions withdrawn unanswered (their cells yielded), then two late ``y`` without a
    parent while a third question is open. The kernel kept one "withdrawn" flag per front end,
    which the first ``y`` cleared, so the second ran the third command outside the sandbox; now
    each withdrawn question takes one late answer, the open question is asked again after each,
    and the answer after them decides."""
    with kernel_in(tmp_path / "nb") as kernel:
        yielded_question(kernel, outside / "a.txt")
        yielded_question(kernel, outside / "b.txt")
        msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(outside / "c.txt"), allow_stdin=True)
        third = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        kernel.kc.input("y")
        kernel.kc.input("y")
        asked_again(kernel, msg_id, third)
        asked_again(kernel, msg_id, third)
        kernel.kc.input("n")
        assert printed(collect(kernel.kc, msg_id)) == "ERROR exec command rejected by user"
    assert list(outside.iterdir()) == []


def test_late_answers_naming_a_withdrawn_question_or_none_count_one_each(tmp_path, outside):
    """Three questions withdrawn (interrupts); a late reply naming the second and two without a
    parent are the three late answers, each refused or ignored, and the reply after them
    answers the open question. A reply naming the first message of the open question (sent
    before it was asked again) answers it."""
    with kernel_in(tmp_path / "nb") as kernel:
        withdrawn = [interrupted_question(kernel, outside / f"w{n}.txt") for n in range(3)]
        msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(outside / "open.txt"), allow_stdin=True)
        question = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        answer(kernel.kc, withdrawn[1], "y")  # ignored: no question is asked again
        kernel.kc.input("y")
        asked_again(kernel, msg_id, question)
        kernel.kc.input("y")
        asked_again(kernel, msg_id, question)
        kernel.kc.input("y")  # all three are answered: taken
        assert json.loads(collect(kernel.kc, msg_id).stdout)["exit_code"] == 0

        interrupted_question(kernel, outside / "w3.txt")
        msg_id = send_execute(kernel.kc, LONG_YIELD + escalated(outside / "last.txt"), allow_stdin=True)
        question = kernel.kc.get_stdin_msg(timeout=TIMEOUT_S)
        kernel.kc.input("y")
        asked_again(kernel, msg_id, question)
        answer(kernel.kc, question, "n")
        assert printed(collect(kernel.kc, msg_id)) == "ERROR exec command rejected by user"
    assert sorted(p.name for p in outside.iterdir()) == ["open.txt"]


def test_jupyter_console_answers_and_is_asked_again_after_an_interrupt(codemode_kernelspec, tmp_path, outside):
    """``jupyter console`` answers without a parent: its ``y`` is taken, and after a question
    withdrawn by Ctrl-C the next question comes again once answered, then its ``y`` runs it."""
    cell = (
        'await tools.exec_command({cmd: "echo ok > %s/%s", sandbox_permissions: "require_escalated"}); text("wrote %s")'
    )
    with Console(tmp_path) as console:
        console.wait_for("In [1]")
        console.keys(cell % (outside, "one.txt", "one"), "Enter")
        console.wait_for("Run it? [y]es / [n]o / [a]lways for this session:")
        console.keys("y", "Enter")
        console.wait_for("wrote one")
        console.keys(cell % (outside, "never.txt", "never"), "Enter")
        console.wait_for("never.txt\n")
        console.keys("C-c")
        console.wait_for("In [3]")
        console.keys(cell % (outside, "two.txt", "two"), "Enter")
        console.wait_for("two.txt\n")
        console.keys("y", "Enter")
        console.wait_for(ASKED_AGAIN)
        console.keys("y", "Enter")
        console.wait_for("wrote two")
        console.wait_for("In [4]")
        console.quit()
    assert sorted(p.name for p in outside.iterdir()) == ["one.txt", "two.txt"]
