"""``approval_policy`` end to end: ``exec_command`` through the dispatcher, a scripted person
answering, commands really running in (or, once approved, outside) bubblewrap."""

from __future__ import annotations

import pytest
from sandbox_helpers import Dispatchers, call, require_bwrap, run

from codemode.sandbox.approvals import ApprovalRequest

NO_ONE = (
    'exec_command needs a person\'s approval here (approval_policy = "on-request"), but no one can be asked: '
    "only a cell run by a front end that allows input (stdin) can ask, and nbclient, papermill, nbval and most "
    "harnesses do not, nor can a cell that runs in the background. The command was not run. Run it inside the "
    "sandbox, or change approval_policy or sandbox_mode in codemode.toml."
)
RETRY = "command failed; retry without sandbox?"


class Person:
    """Answers approval requests from a script of answers, recording each request."""

    def __init__(self, *answers: str | None) -> None:
        self.answers = list(answers)
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest):
        self.asked.append(request)
        return self.answers.pop(0)


@pytest.fixture
async def make(ws, monkeypatch):
    """``await make(person, **settings)``: a dispatcher where only the workspace is writable."""
    require_bwrap()
    monkeypatch.delenv("TMPDIR", raising=False)
    made = Dispatchers(ws, monkeypatch)

    async def build(person=None, **settings):
        dispatcher = await made.make(exclude_slash_tmp=True, **settings)
        dispatcher.approver = person
        return dispatcher

    yield build
    await made.close()


async def test_on_request_escalation_asks_then_runs_outside(make, ws, outside):
    person = Person("approved")
    cmd = f"touch {outside}/f"
    args = {"sandbox_permissions": "require_escalated", "justification": "Write the report outside?"}
    result = await run(await make(person), cmd, **args)
    assert (result["exit_code"], result["output"]) == (0, "")
    assert (outside / "f").exists()
    assert person.asked == [ApprovalRequest("1", cmd, str(ws), False, "Write the report outside?")]


async def test_on_request_without_escalation_runs_in_the_sandbox_unasked(make, outside):
    person = Person()
    result = await run(await make(person), f"touch {outside}/f")
    assert (result["exit_code"], result["output"]) == (1, f"touch: cannot touch '{outside}/f': Read-only file system\n")
    assert (person.asked, list(outside.iterdir())) == ([], [])


async def test_approved_for_the_session_is_not_asked_again_for_the_same_command(make, ws, outside):
    person = Person("approved_for_session", "approved")
    dispatcher = await make(person)
    cmd = f"echo x >> {outside}/log"
    for _ in range(2):
        await run(dispatcher, cmd, sandbox_permissions="require_escalated")
    assert (outside / "log").read_text() == "x\nx\n"
    assert len(person.asked) == 1
    (ws / "sub").mkdir()
    await run(dispatcher, cmd, sandbox_permissions="require_escalated", workdir="sub")
    assert [r.cwd for r in person.asked] == [str(ws), str(ws / "sub")]
    assert (outside / "log").read_text() == "x\nx\nx\n"


@pytest.mark.unit
async def test_a_denied_command_does_not_run(make, outside):
    person = Person("denied")
    result = await call(
        await make(person), "exec_command", {"cmd": f"touch {outside}/f", "sandbox_permissions": "require_escalated"}
    )
    assert (result.outcome, result.error) == ("failed", "exec command rejected by user")
    assert list(outside.iterdir()) == []


@pytest.mark.unit
@pytest.mark.parametrize("person", [None, Person(None)], ids=["no-approver", "no-answer"])
async def test_when_no_one_can_be_asked_the_command_does_not_run(make, outside, person):
    result = await call(
        await make(person), "exec_command", {"cmd": f"touch {outside}/f", "sandbox_permissions": "require_escalated"}
    )
    assert (result.outcome, result.error) == ("failed", NO_ONE)
    assert list(outside.iterdir()) == []


async def test_untrusted_asks_to_run_then_again_to_retry_a_sandbox_refusal_outside(make, ws, outside):
    # The first yes was for a run inside the sandbox; leaving it is a second question.
    person = Person("approved", "approved")
    cmd = f"touch {outside}/f"
    result = await run(await make(person, approval_policy="untrusted"), cmd)
    assert (result["exit_code"], result["output"]) == (0, "")
    assert (outside / "f").exists()
    assert person.asked == [
        ApprovalRequest("1", cmd, str(ws), True),
        ApprovalRequest("1", cmd, str(ws), False, None, RETRY),
    ]


async def test_untrusted_retry_denied_returns_the_rejection_and_runs_nothing_outside(make, ws, outside):
    person = Person("approved", "denied")
    cmd = f"touch {outside}/f"
    result = await call(await make(person, approval_policy="untrusted"), "exec_command", {"cmd": cmd})
    assert (result.outcome, result.error) == ("failed", "exec command rejected by user")
    assert list(outside.iterdir()) == []
    assert [r.sandboxed for r in person.asked] == [True, False]


async def test_untrusted_does_not_ask_to_retry_what_the_sandbox_allowed(make, ws):
    person = Person("approved")
    result = await run(await make(person, approval_policy="untrusted"), "touch inside")
    assert (result["exit_code"], result["output"]) == (0, "")
    assert (ws / "inside").exists()
    assert person.asked == [ApprovalRequest("1", "touch inside", str(ws), True)]


async def test_untrusted_runs_known_safe_commands_unasked(make):
    person = Person()
    result = await run(await make(person, approval_policy="untrusted"), "echo hi && pwd")
    assert result["exit_code"] == 0
    assert person.asked == []


async def test_on_failure_asks_to_retry_outside_after_a_sandbox_refusal(make, ws, outside):
    person = Person("approved")
    cmd = f"touch {outside}/f"
    result = await run(await make(person, approval_policy="on-failure"), cmd)
    assert (result["exit_code"], result["output"]) == (0, "")
    assert (outside / "f").exists()
    assert person.asked == [ApprovalRequest("1", cmd, str(ws), False, None, RETRY)]


async def test_on_failure_retry_denied_returns_the_rejection(make, outside):
    person = Person("denied")
    result = await call(await make(person, approval_policy="on-failure"), "exec_command", {"cmd": f"touch {outside}/f"})
    assert (result.outcome, result.error) == ("failed", "exec command rejected by user")
    assert list(outside.iterdir()) == []


async def test_on_failure_does_not_ask_about_the_commands_own_failure(make):
    person = Person()
    result = await run(await make(person, approval_policy="on-failure"), "echo nope; exit 3")
    assert (result["exit_code"], result["output"]) == (3, "nope\n")
    assert person.asked == []


async def test_on_failure_asks_again_before_retrying_an_approved_dangerous_command_outside(make, ws, outside):
    (outside / "f").write_text("x")
    person = Person("approved", "approved")
    cmd = f"rm -f {outside}/f"
    result = await run(await make(person, approval_policy="on-failure"), cmd)
    assert (result["exit_code"], result["output"]) == (0, "")
    assert list(outside.iterdir()) == []
    assert person.asked == [
        ApprovalRequest("1", cmd, str(ws), True),
        ApprovalRequest("1", cmd, str(ws), False, None, RETRY),
    ]


async def test_a_retry_approved_for_the_session_is_not_asked_again(make, ws, outside):
    person = Person("approved_for_session")
    dispatcher = await make(person, approval_policy="on-failure")
    cmd = f"echo x >> {outside}/log"
    for _ in range(2):
        await run(dispatcher, cmd)
    assert (outside / "log").read_text() == "x\nx\n"
    assert person.asked == [ApprovalRequest("1", cmd, str(ws), False, None, RETRY)]


async def test_on_request_asks_before_a_dangerous_command_and_runs_it_in_the_sandbox(make, ws):
    (ws / "build").mkdir()
    (ws / "build" / "x.o").write_text("")
    person = Person("approved")
    result = await run(await make(person), "rm -rf build")
    assert (result["exit_code"], result["output"]) == (0, "")
    assert list(ws.iterdir()) == []
    assert person.asked == [ApprovalRequest("1", "rm -rf build", str(ws), True)]


@pytest.mark.unit
async def test_never_refuses_a_dangerous_command_without_running_it(make, ws):
    (ws / "build").mkdir()
    person = Person()
    result = await call(await make(person, approval_policy="never"), "exec_command", {"cmd": "rm -rf build"})
    assert (result.outcome, result.error) == (
        "failed",
        "approval required by policy, but AskForApproval is set to Never",
    )
    assert (ws / "build").is_dir()
    assert person.asked == []


@pytest.mark.unit
async def test_never_refuses_escalation_with_codexs_text(make, outside):
    result = await call(
        await make(Person(), approval_policy="never"),
        "exec_command",
        {"cmd": f"touch {outside}/f", "sandbox_permissions": "require_escalated"},
    )
    assert (result.outcome, result.error) == (
        "failed",
        "approval policy is Never; reject command — you should not ask for escalated permissions "
        "if the approval policy is Never",
    )
    assert list(outside.iterdir()) == []


async def test_danger_full_access_runs_dangerous_commands_under_never(make, ws, outside):
    (outside / "f").write_text("x")
    result = await run(
        await make(Person(), approval_policy="never", sandbox_mode="danger-full-access"), f"rm -f {outside}/f"
    )
    assert result["exit_code"] == 0
    assert list(outside.iterdir()) == []
