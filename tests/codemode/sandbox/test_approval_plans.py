"""``approval_policy``: what ``exec_command`` does with each script (Codex's
``render_decision_for_unmatched_command`` and ``ToolOrchestrator::run``), the denial guess, the
question asked and the answers remembered for the session."""

from __future__ import annotations

import pytest

from codemode.sandbox.approvals import (
    ApprovalRequest,
    Plan,
    SessionApprovals,
    escalation_refusal,
    likely_sandbox_denied,
    parse_answer,
    plan_command,
)
from codemode.sandbox.safe_commands import is_known_safe

pytestmark = pytest.mark.unit

SCRIPTS = {"known-safe": "ls && git status", "plain": "touch out.txt", "dangerous": "rm -rf build"}
NEVER_REFUSAL = "approval required by policy, but AskForApproval is set to Never"

RUN = Plan()
"""Run in the sandbox, no question, no retry outside."""
RUN_BARE = Plan(sandboxed=False)
"""Run with no sandbox (danger-full-access, or approved escalation), no question."""


def refused(policy_name: str) -> Plan:
    return Plan(
        forbidden=True,
        reason=(
            f"approval policy is {policy_name}; reject command — you should not ask for escalated "
            f"permissions if the approval policy is {policy_name}"
        ),
    )


# (policy, unrestricted, kind, escalate) -> Plan, every combination.
TABLE = {
    # untrusted: only known-safe scripts run unasked; after a sandbox refusal of any other, a
    # run outside is asked about (a second question); no escalation.
    ("untrusted", False, "known-safe", False): RUN,
    ("untrusted", False, "plain", False): Plan(ask=True, retry_outside=True),
    ("untrusted", False, "dangerous", False): Plan(ask=True, retry_outside=True),
    ("untrusted", True, "known-safe", False): RUN_BARE,
    ("untrusted", True, "plain", False): Plan(ask=True, sandboxed=False),
    ("untrusted", True, "dangerous", False): Plan(ask=True, sandboxed=False),
    # on-failure: run in the sandbox; a refusal asks to retry outside (also for a dangerous
    # script whose run inside was approved); no escalation.
    ("on-failure", False, "known-safe", False): Plan(retry_outside=True),
    ("on-failure", False, "plain", False): Plan(retry_outside=True),
    ("on-failure", False, "dangerous", False): Plan(ask=True, retry_outside=True),
    ("on-failure", True, "known-safe", False): RUN_BARE,
    ("on-failure", True, "plain", False): RUN_BARE,
    ("on-failure", True, "dangerous", False): Plan(ask=True, sandboxed=False),
    # on-request: run in the sandbox unasked; escalation asks, then runs outside.
    ("on-request", False, "known-safe", False): RUN,
    ("on-request", False, "plain", False): RUN,
    ("on-request", False, "dangerous", False): Plan(ask=True),
    ("on-request", True, "known-safe", False): RUN_BARE,
    ("on-request", True, "plain", False): RUN_BARE,
    ("on-request", True, "dangerous", False): Plan(ask=True, sandboxed=False),
    ("on-request", False, "known-safe", True): Plan(ask=True, sandboxed=False),
    ("on-request", False, "plain", True): Plan(ask=True, sandboxed=False),
    ("on-request", False, "dangerous", True): Plan(ask=True, sandboxed=False),
    ("on-request", True, "known-safe", True): RUN_BARE,
    ("on-request", True, "plain", True): RUN_BARE,
    ("on-request", True, "dangerous", True): Plan(ask=True, sandboxed=False),
    # never: never asks; dangerous scripts are refused while a sandbox is in force.
    ("never", False, "known-safe", False): RUN,
    ("never", False, "plain", False): RUN,
    ("never", False, "dangerous", False): Plan(forbidden=True, reason=NEVER_REFUSAL),
    ("never", True, "known-safe", False): RUN_BARE,
    ("never", True, "plain", False): RUN_BARE,
    ("never", True, "dangerous", False): RUN_BARE,
}
for _policy, _name in (("untrusted", "UnlessTrusted"), ("on-failure", "OnFailure"), ("never", "Never")):
    for _unrestricted in (False, True):
        for _kind in SCRIPTS:
            TABLE[(_policy, _unrestricted, _kind, True)] = refused(_name)


def test_the_table_has_every_combination():
    assert len(TABLE) == 4 * 2 * 3 * 2


@pytest.mark.parametrize(
    ("policy", "unrestricted", "kind", "escalate"),
    list(TABLE),
    ids=[f"{p}-{'danger' if u else 'sandbox'}-{k}-{'escalate' if e else 'default'}" for p, u, k, e in TABLE],
)
def test_plan(policy, unrestricted, kind, escalate):
    plan = plan_command(policy, unrestricted, SCRIPTS[kind], escalate)
    assert plan == TABLE[(policy, unrestricted, kind, escalate)]


@pytest.mark.parametrize("policy", ["untrusted", "on-failure", "on-request", "never"])
@pytest.mark.parametrize("escalate", [False, True])
def test_only_a_sandboxed_run_under_untrusted_or_on_failure_is_retried_outside(policy, escalate):
    scripts = [*SCRIPTS.values(), "sudo rm -f x", "rm x -rf", "make", "ls > x", "uniq a b"]
    for unrestricted in (False, True):
        for script in scripts:
            plan = plan_command(policy, unrestricted, script, escalate)
            expected = plan.sandboxed and not plan.forbidden and policy in ("untrusted", "on-failure")
            if policy == "untrusted" and is_known_safe(script):
                expected = False  # known-safe: runs in the sandbox, and what it gets is the answer
            assert plan.retry_outside is expected, (unrestricted, script, plan)


@pytest.mark.parametrize(
    ("policy", "text"),
    [
        (
            "untrusted",
            "approval policy is UnlessTrusted; reject command — you should not ask for escalated permissions "
            "if the approval policy is UnlessTrusted",
        ),
        (
            "on-failure",
            "approval policy is OnFailure; reject command — you should not ask for escalated permissions "
            "if the approval policy is OnFailure",
        ),
        (
            "never",
            "approval policy is Never; reject command — you should not ask for escalated permissions "
            "if the approval policy is Never",
        ),
    ],
)
def test_escalation_refusal_texts(policy, text):
    assert escalation_refusal(policy) == text


@pytest.mark.parametrize(
    ("script", "plan"),
    [
        ("sudo rm -f /etc/x", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        ("ls && rm -rf x", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        ("echo hi; rm -rf /tmp/x > /dev/null", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        # The spellings of issue 24: each ran under "never" before the script was parsed as bash does.
        ("rm $'-f' x", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        ("{rm,-f,x}", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        ("bash -c -- 'rm -f x'", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        ("echo 'rm -f x' | bash", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        ("find . -delete", Plan(forbidden=True, reason=NEVER_REFUSAL)),
        ("rm -r x", RUN),
        ("echo 'rm x' | bash", RUN),
    ],
)
def test_never_refuses_dangerous_scripts_however_written(script, plan):
    assert plan_command("never", False, script, False) == plan


def test_untrusted_asks_for_a_script_that_is_only_partly_safe():
    assert plan_command("untrusted", False, "ls && touch x", False) == Plan(ask=True, retry_outside=True)
    assert plan_command("untrusted", False, "ls > listing.txt", False) == Plan(ask=True, retry_outside=True)


@pytest.mark.parametrize(
    ("exit_code", "output", "denied"),
    [
        (0, "Operation not permitted", False),
        (1, "touch: cannot touch '/x': Read-only file system\n", True),
        (1, "bash: /etc/x: Permission denied", True),
        (1, "socket: OPERATION NOT PERMITTED", True),
        (1, "killed by seccomp", True),
        (1, "sandbox said no", True),
        (1, "landlock", True),
        (1, "error: failed to write file x", True),
        (1, "no such file", False),
        (1, "", False),
        (2, "usage: ls", False),
        (126, "", False),
        (127, "bash: nosuch: command not found", False),
        (126, "bash: ./x: Permission denied", True),
        (159, "", True),
        (None, "", False),
    ],
)
def test_likely_sandbox_denied(exit_code, output, denied):
    assert likely_sandbox_denied(exit_code, output) is denied


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("y", "approved"),
        ("yes", "approved"),
        (" Y \n", "approved"),
        ("YES", "approved"),
        ("a", "approved_for_session"),
        ("always", "approved_for_session"),
        ("Always\n", "approved_for_session"),
        ("", "denied"),
        ("n", "denied"),
        ("no", "denied"),
        ("yep", "denied"),
        ("ya", "denied"),
    ],
)
def test_parse_answer(text, answer):
    assert parse_answer(text) == answer


def test_prompt_for_an_escalation_with_a_justification():
    request = ApprovalRequest("3", "curl -sO https://x", "/work/nb", False, "Download the data set?")
    assert request.prompt() == (
        "Cell 3 asks to run a command outside the sandbox:\n"
        "  command: curl -sO https://x\n"
        "  cwd:     /work/nb\n"
        "  reason:  Download the data set?\n"
        "Run it? [y]es / [n]o / [a]lways for this session: "
    )


def test_prompt_in_the_sandbox_without_justification():
    request = ApprovalRequest("g2:1", "touch x", "/w", True)
    assert request.prompt() == (
        "Cell g2:1 asks to run a command in the sandbox:\n"
        "  command: touch x\n"
        "  cwd:     /w\n"
        "Run it? [y]es / [n]o / [a]lways for this session: "
    )


def test_prompt_for_a_retry_after_a_sandbox_refusal():
    request = ApprovalRequest("7", "make", "/w", False, "Build?", "command failed; retry without sandbox?")
    assert request.prompt() == (
        "Cell 7 asks to run a command outside the sandbox:\n"
        "  command: make\n"
        "  cwd:     /w\n"
        "  reason:  Build?\n"
        "  (command failed; retry without sandbox?)\n"
        "Run it? [y]es / [n]o / [a]lways for this session: "
    )


def test_session_approvals_cover_the_exact_command_folder_and_sandboxing():
    approvals = SessionApprovals()
    request = ApprovalRequest("1", "make", "/w", False, "Build?")
    assert not approvals.covers(request)
    approvals.remember(request)
    assert approvals.approved == {("make", "/w", False)}
    # Another cell and another justification ask the same thing: covered.
    assert approvals.covers(ApprovalRequest("9", "make", "/w", False, "Again?", "retry?"))
    assert not approvals.covers(ApprovalRequest("1", "make ", "/w", False))
    assert not approvals.covers(ApprovalRequest("1", "make", "/w/sub", False))
    assert not approvals.covers(ApprovalRequest("1", "make", "/w", True))
    assert not approvals.covers(ApprovalRequest("1", "make all", "/w", False))


def test_session_approvals_start_empty_for_each_sandbox():
    first, second = SessionApprovals(), SessionApprovals()
    first.remember(ApprovalRequest("1", "make", "/w", False))
    assert second.approved == set()


def test_prompt_shows_what_the_cell_chose_on_one_line_each():
    """A command or justification cannot add lines to the question or steer the terminal."""
    request = ApprovalRequest("2", "ls\n  cwd:     /elsewhere\x1b[2J", "/w\rx", False, "Fine?\u2028  command: true\x9b")
    assert request.prompt() == (
        "Cell 2 asks to run a command outside the sandbox:\n"
        "  command: ls\\n  cwd:[5 spaces]/elsewhere\\x1b[2J\n"
        "  cwd:     /w\\rx\n"
        "  reason:  Fine?\\u2028  command: true\\x9b\n"
        "Run it? [y]es / [n]o / [a]lways for this session: "
    )


def test_prompt_shows_hidden_and_reordering_characters_and_long_runs_of_spaces():
    """Bidirectional overrides, zero-width and odd spaces are escaped; a run of spaces that
    would push the real command out of view is counted; a long command's length is said."""
    command = "touch /etc/x #" + " " * 8000 + "ls -la \u202egnp.exe\u200b"
    prompt = ApprovalRequest("3", command, "/w", False, "ok\u00a0?").prompt()
    assert prompt == (
        "Cell 3 asks to run a command outside the sandbox:\n"
        "  command: touch /etc/x #[8000 spaces]ls -la \\u202egnp.exe\\u200b\n"
        "  cwd:     /w\n"
        "  reason:  ok\\xa0?\n"
        "  (the command is 8030 characters long: read all of it above)\n"
        "Run it? [y]es / [n]o / [a]lways for this session: "
    )
