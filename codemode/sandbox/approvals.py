"""When ``exec_command`` asks a person first, and where it then runs: Codex's ``approval_policy``.

Codex decides in two steps (``codex-rs/core/src/exec_policy.rs``,
``render_decision_for_unmatched_command``; ``codex-rs/core/src/tools/orchestrator.rs``,
``ToolOrchestrator::run``); :func:`plan_command` gives the same answers:

=================  =========================================================================
``untrusted``      known-safe scripts run in the sandbox; any other asks first, then runs in
                   the sandbox; if the sandbox refused it, asks "command failed; retry without
                   sandbox?" and runs it outside when allowed
``on-failure``     runs in the sandbox; if the sandbox refused it, asks "command failed; retry
                   without sandbox?" and runs it outside when allowed
``on-request``     runs in the sandbox without asking; a call with
                   ``sandbox_permissions: "require_escalated"`` asks first and then runs
                   outside the sandbox
``never``          never asks: runs in the sandbox, and what the sandbox refused is the answer
=================  =========================================================================

Under every policy but ``never``, a dangerous script (a forced delete: ``rm -f``, ``rm -rf``,
``find -delete``, in any spelling: :func:`~codemode.sandbox.safe_commands.is_dangerous`) asks
first; under ``never`` it is refused unless there is no sandbox (``danger-full-access``). Escalation
(``require_escalated``) is only for ``on-request``: under the other policies the call is
refused with Codex's text. In ``danger-full-access`` there is no sandbox to leave: commands
run as they are, and only ``untrusted`` (not known-safe) and dangerous scripts ask.

A person answers yes, no, or yes for the rest of the session (the same command, folder and
permissions are then not asked about again; Codex's ``ApprovedForSession``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from codemode.sandbox.safe_commands import is_dangerous, is_known_safe

POLICY_NAMES = {"untrusted": "UnlessTrusted", "on-failure": "OnFailure", "on-request": "OnRequest", "never": "Never"}
"""How Codex's messages spell each ``approval_policy`` (its ``AskForApproval`` variant names)."""

REJECTED_BY_USER = "exec command rejected by user"
"""Codex's result when a person answered no (``codex-rs/core/src/tools/events.rs``)."""

RETRY_REASON = "command failed; retry without sandbox?"
"""Codex's question after the sandbox refused a command under ``on-failure``."""

DENIAL_MARKERS = (
    "operation not permitted",
    "permission denied",
    "read-only file system",
    "seccomp",
    "sandbox",
    "landlock",
    "failed to write file",
)
"""Output that means the sandbox probably refused something (Codex's
``is_likely_sandbox_denied``, ``codex-rs/sandboxing/src/denial.rs``)."""

SIGSYS_EXIT = 128 + 31
"""Exit status of a process a seccomp filter killed."""

Answer = Literal["approved", "approved_for_session", "denied"]


def escalation_refusal(approval_policy: str) -> str:
    """Codex's text refusing ``require_escalated`` under any policy but ``on-request``."""
    name = POLICY_NAMES[approval_policy]
    return (
        f"approval policy is {name}; reject command — you should not ask for escalated permissions "
        f"if the approval policy is {name}"
    )


@dataclass(frozen=True)
class Plan:
    """What to do with one command: ``forbidden`` (then ``reason`` is the call's error),
    else whether to ``ask`` first, whether the first run is ``sandboxed``, and whether a
    sandbox refusal leads to the question of a run outside it (``retry_outside``).

    One difference from Codex: after a refusal, Codex reruns a command approved under
    ``untrusted`` outside the sandbox without asking again. Here the retry is always asked
    about, since the first question was about a run inside the sandbox."""

    forbidden: bool = False
    reason: str = ""
    ask: bool = False
    sandboxed: bool = True
    retry_outside: bool = False


def plan_command(approval_policy: str, unrestricted: bool, script: str, escalate: bool) -> Plan:
    """The :class:`Plan` for ``script`` under ``approval_policy``; ``unrestricted`` is True in
    ``danger-full-access``; ``escalate`` is ``sandbox_permissions == "require_escalated"``."""
    if escalate and approval_policy != "on-request":
        return Plan(forbidden=True, reason=escalation_refusal(approval_policy))
    sandboxed = not unrestricted
    if approval_policy == "untrusted" and is_known_safe(script):
        return Plan(sandboxed=sandboxed)
    if is_dangerous(script):
        if approval_policy == "never":
            if unrestricted:
                return Plan(sandboxed=False)
            return Plan(forbidden=True, reason="approval required by policy, but AskForApproval is set to Never")
        retry = sandboxed and not escalate and approval_policy in ("untrusted", "on-failure")
        return Plan(ask=True, sandboxed=sandboxed and not escalate, retry_outside=retry)
    if approval_policy == "never":
        return Plan(sandboxed=sandboxed)
    if approval_policy == "on-failure":
        return Plan(sandboxed=sandboxed, retry_outside=sandboxed)
    if approval_policy == "untrusted":
        return Plan(ask=True, sandboxed=sandboxed, retry_outside=sandboxed)
    # on-request: only an escalation asks, and there is nothing to escalate from without a sandbox.
    if escalate and sandboxed:
        return Plan(ask=True, sandboxed=False)
    return Plan(sandboxed=sandboxed)


def likely_sandbox_denied(exit_code: int | None, output: str) -> bool:
    """True when a sandboxed command's failure looks like the sandbox's doing (Codex's rule:
    a marker of :data:`DENIAL_MARKERS` in the output, or death by seccomp's SIGSYS; exit
    statuses 2, 126 and 127 are the command's own)."""
    if exit_code == 0:
        return False
    lowered = output.lower()
    if any(marker in lowered for marker in DENIAL_MARKERS):
        return True
    return exit_code == SIGSYS_EXIT


@dataclass(frozen=True)
class ApprovalRequest:
    """What a person is asked: run ``command`` in ``cwd`` outside the sandbox (or at all, when
    ``sandboxed``), for cell ``cell_id``; ``justification`` is the cell's own reason, and
    ``reason`` the runtime's (Codex's retry question)."""

    cell_id: str
    command: str
    cwd: str
    sandboxed: bool
    justification: str | None = None
    reason: str | None = None

    def prompt(self) -> str:
        """The text of the Jupyter ``input_request``. What the cell chose (the command, its
        folder, the justification) is shown with control characters escaped (``\\n``,
        ``\\x1b``), so that it cannot add lines of its own or steer the terminal."""
        where = "in the sandbox" if self.sandboxed else "outside the sandbox"
        lines = [f"Cell {self.cell_id} asks to run a command {where}:", f"  command: {on_one_line(self.command)}"]
        lines.append(f"  cwd:     {on_one_line(self.cwd)}")
        if self.justification:
            lines.append(f"  reason:  {on_one_line(self.justification)}")
        if self.reason:
            lines.append(f"  ({self.reason})")
        if len(self.command) > LONG_COMMAND_CHARS:
            # A long command can push its start out of view: say so next to the question.
            lines.append(f"  (the command is {len(self.command)} characters long: read all of it above)")
        lines.append("Run it? [y]es / [n]o / [a]lways for this session: ")
        return "\n".join(lines)


LONG_COMMAND_CHARS = 200
"""A command longer than this gets its length said next to the question."""

_SPACE_RUN = re.compile(r" {4,}")


def on_one_line(text: str) -> str:
    """``text`` on one line, as it is: control characters (C0, DEL, C1), format characters
    (bidirectional overrides, zero-width characters) and every separator but the plain space as
    Python escapes, and a run of four or more spaces as ``[N spaces]``, so that nothing the cell
    chose can hide, reorder or push away a part of the question."""
    out = []
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Cf", "Zl", "Zp") or (category == "Zs" and char != " "):
            out.append(char.encode("unicode_escape").decode("ascii"))
        else:
            out.append(char)
    return _SPACE_RUN.sub(lambda m: f"[{len(m.group())} spaces]", "".join(out))


def parse_answer(text: str) -> Answer:
    """A person's reply: ``y``/``yes`` → approved, ``a``/``always`` → approved for the
    session, anything else (an empty line, end of input) → denied."""
    word = text.strip().lower()
    if word in ("y", "yes"):
        return "approved"
    if word in ("a", "always"):
        return "approved_for_session"
    return "denied"


@dataclass
class SessionApprovals:
    """Commands approved "for the session": exact (command, folder, sandboxed) triples, as
    Codex's ``ApprovalStore`` keys them."""

    approved: set[tuple[str, str, bool]] = field(default_factory=set)

    def covers(self, request: ApprovalRequest) -> bool:
        """True when the same request was approved for the session before."""
        return (request.command, request.cwd, request.sandboxed) in self.approved

    def remember(self, request: ApprovalRequest) -> None:
        """Approve ``request`` for the rest of the session."""
        self.approved.add((request.command, request.cwd, request.sandboxed))
