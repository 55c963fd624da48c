"""The ``exec_command`` built-in: a shell command, run in the sandbox unless a person allows otherwise.

``exec_command({cmd, workdir?, timeout_ms?, max_output_tokens?, sandbox_permissions?,
justification?, login?, shell?, tty?, yield_time_ms?, prefix_rule?})`` ->
``{chunk_id, wall_time_seconds, exit_code, original_token_count, output}``, the keys in this
order: the shape of Codex's nested ``exec_command`` result (``UnifiedExecCodeModeResult`` in
Codex's ``codex-rs/core/src/tools/context.rs``; Codex CLI 0.171.0 returned e.g.
``{"chunk_id":"d0c96e","wall_time_seconds":0.84,"exit_code":0,"original_token_count":1,
"output":"hi\\n"}`` for ``echo hi``). ``chunk_id`` is six random lowercase hex digits (Codex's
``generate_chunk_id``), ``original_token_count`` Codex's estimate of the whole output
(``ceil(bytes / 4)``) whether or not ``output`` was cut, ``exit_code`` None when a signal we
did not send ended the command. Codex adds ``session_id`` (and leaves out ``exit_code``) when
the process still runs after ``yield_time_ms``, for ``write_stdin``; codemode has no
``write_stdin`` and waits for the command to end, so its result never has ``session_id``.

Codex's arguments: ``cmd``, ``workdir``, ``max_output_tokens``, ``sandbox_permissions``,
``justification`` as in Codex; ``login: true`` runs ``bash -lc`` (a login shell) instead of
``bash -c``; ``shell`` names the shell binary (found on the ``PATH`` outside the writable
folders, as ``bash`` is); ``yield_time_ms`` is accepted and changes nothing (the result comes
when the command ends; ``timeout_ms``, codemode's own, bounds it); ``prefix_rule`` (an approval
prefix Codex remembers) is accepted and not used; ``tty: true`` (a PTY) is refused with a
sentence saying so, since the output of a command without a terminal differs.

``bash -c cmd`` runs through :func:`codemode.tools.commands.run_command` (process group,
budgeted output, timeout, cancellation), with the environment of ``[shell_environment_policy]``
(:func:`codemode.sandbox.environment.command_environment`).

Where it runs follows :func:`codemode.sandbox.approvals.plan_command`: in the sandbox
(:mod:`codemode.sandbox.bwrap`) unless ``sandbox_mode`` is ``danger-full-access`` or a person
approved running it outside. A person is asked through :attr:`ToolContext.request_approval`
(the kernel sends a Jupyter ``input_request``); when no one can be asked, a command that needs
approval is refused with a sentence naming ``approval_policy``. When the sandbox cannot be set
up here, a sandboxed command is refused with the reason and the fix: it never runs unsandboxed
instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
from pathlib import Path
from typing import Any

from codemode.errors import ToolCallError
from codemode.sandbox import Sandbox
from codemode.sandbox.approvals import (
    REJECTED_BY_USER,
    RETRY_REASON,
    ApprovalRequest,
    likely_sandbox_denied,
    plan_command,
)
from codemode.sandbox.bwrap import bwrap_argv, find_program, masked_paths, usable_bwrap
from codemode.sandbox.environment import command_environment
from codemode.sandbox.seccomp import SeccompUnavailable, filter_fd
from codemode.tools.base import Tool, ToolContext
from codemode.tools.commands import CommandRun, run_command
from codemode.wire.truncation import DEFAULT_MAX_OUTPUT_TOKENS

MAX_OUTPUT_TOKENS_LIMIT = 2_000_000
"""Largest ``max_output_tokens`` accepted (8 MB of text). The reply to the runtime host is one
frame of at most 64 MiB (the host protocol's frame limit) and JSON may spell one byte of text with six (``\\u0001``):
8 MB stays under the limit even then, so a larger budget cannot make a valid call fail at the
transport instead of with a clear schema error."""

TTY_REFUSED = (
    "exec_command: tty: true (a terminal for the command) is not supported by codemode, which has no "
    "write_stdin either; the command was not run. Leave tty out to run it with plain pipes."
)

NETWORK_DISABLED_VARIABLE = "CODEX_SANDBOX_NETWORK_DISABLED"
"""Set to ``1`` for commands that have no network, as Codex sets it."""


def _no_one_to_ask(sandbox: Sandbox) -> str:
    return (
        f'exec_command needs a person\'s approval here (approval_policy = "{sandbox.approval_policy}"), '
        "but no one can be asked: only a cell run by a front end that allows input (stdin) can ask, "
        "and nbclient, papermill, nbval and most harnesses do not, nor can a cell that runs in the "
        "background. The command was not run. Run it inside the sandbox, or change approval_policy "
        "or sandbox_mode in codemode.toml."
    )


def _ended_cell_cannot_ask(sandbox: Sandbox, ended_cell: str) -> str:
    return (
        f'exec_command needs a person\'s approval here (approval_policy = "{sandbox.approval_policy}"), '
        f"but the call came through a function that cell {ended_cell} declared, and cell {ended_cell} has "
        "ended: such a call cannot ask, since the cells share one context and which running cell called the "
        "function cannot be told. The command was not run. Call tools.exec_command in the cell that needs "
        "it, or give the function that cell's tools (f(tools)), or run the command inside the sandbox."
    )


async def _approve(sandbox: Sandbox, ctx: ToolContext, request: ApprovalRequest) -> None:
    """Return when a person approved ``request`` (now or earlier for the session); raise
    :class:`ToolCallError` otherwise. A call through the helpers of an ended notebook cell
    (:attr:`ToolContext.via_ended_cell`) is refused without asking: asking would show the
    question under the cell in the foreground, for code that may be another cell's (one in the
    background)."""
    if sandbox.approvals.covers(request):
        return
    if ctx.via_ended_cell is not None:
        raise ToolCallError(_ended_cell_cannot_ask(sandbox, ctx.via_ended_cell))
    asking = asyncio.ensure_future(ctx.request_approval(request))
    cancelled = asyncio.ensure_future(ctx.cancellation.wait())
    try:
        await asyncio.wait({asking, cancelled}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        cancelled.cancel()
        if not asking.done():
            asking.cancel()
    if not asking.done() or asking.cancelled():
        raise ToolCallError("exec_command was cancelled while waiting for approval; the command was not run.")
    answer = asking.result()
    if answer is None:
        raise ToolCallError(_no_one_to_ask(sandbox))
    if answer == "denied":
        raise ToolCallError(REJECTED_BY_USER)
    if answer == "approved_for_session":
        sandbox.approvals.remember(request)


async def _run(sandbox: Sandbox, ctx: ToolContext, args: dict[str, Any], cwd: Path, sandboxed: bool) -> CommandRun:
    policy = sandbox.policy
    shell = _shell(args.get("shell"), policy.writable_folders())
    command = [shell, "-lc" if args.get("login") else "-c", args["cmd"]]
    env = command_environment(sandbox.environment, os.environ)
    if not policy.network_access:
        env[NETWORK_DISABLED_VARIABLE] = "1"
    max_tokens = args.get("max_output_tokens")
    budget = DEFAULT_MAX_OUTPUT_TOKENS if max_tokens is None else max_tokens
    masks: contextlib.AbstractContextManager[list[Path]] = (
        masked_paths(policy) if sandboxed else contextlib.nullcontext([])
    )
    with masks as masked:
        seccomp_fd = None
        if sandboxed:
            bwrap, problem = await asyncio.to_thread(usable_bwrap, policy.writable_folders())
            if bwrap is None:
                raise ToolCallError(f"exec_command cannot run the command in the sandbox: {problem}")
            unsafe = policy.unprotectable()
            if unsafe:
                raise ToolCallError(
                    f"exec_command cannot run the command in the sandbox: {str(unsafe[0])!r} must stay read-only, "
                    "but it is a symlink inside a writable folder, which a command could replace. Replace the "
                    'symlink with the folder or file itself, or set sandbox_mode to "read-only" or "danger-full-access".'
                )
            try:
                seccomp_fd = filter_fd(policy.network_access)
            except SeccompUnavailable as exc:
                raise ToolCallError(
                    f"exec_command cannot run the command in the sandbox: {exc}. Install libseccomp "
                    '(Debian/Ubuntu: libseccomp2), or set sandbox_mode = "danger-full-access".'
                ) from None
            command = bwrap_argv(bwrap, policy, cwd, seccomp_fd, command, masked)
        try:
            return await run_command(
                command,
                cwd=str(cwd),
                env=env,
                max_output_tokens=budget,
                timeout_ms=args.get("timeout_ms"),
                cancellation=ctx.cancellation,
                pass_fds=() if seccomp_fd is None else (seccomp_fd,),
            )
        except OSError as exc:
            raise ToolCallError(f"exec_command could not start {command[0]}: {exc}.") from None
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)


def _shell(name: str | None, writable: list[Path]) -> str:
    """The shell binary: ``name`` (``bash`` when None) on the ``PATH`` outside ``writable``
    (:func:`find_program`), or ``name`` itself when it is an absolute path outside them. Only
    the default falls back to ``/bin/sh``. Raises :class:`ToolCallError` when it is not found."""
    if name is None:
        return find_program("bash", writable) or "/bin/sh"
    if os.path.isabs(name):
        real = Path(os.path.realpath(name))
        inside = any(real.is_relative_to(Path(os.path.realpath(folder))) for folder in writable)
        if not inside and os.access(real, os.X_OK) and real.is_file():
            return name
    else:
        found = find_program(name, writable)
        if found is not None:
            return found
    raise ToolCallError(
        f"exec_command: the shell {name!r} was not found (it must be an executable on the PATH or an "
        "absolute path, outside the folders commands may write)."
    )


def chunk_id() -> str:
    """Six random lowercase hex digits, as Codex's ``generate_chunk_id``."""
    return secrets.token_hex(3)


def _result(run: CommandRun) -> dict[str, Any]:
    """Codex's result, its keys in Codex's order (see the module docstring)."""
    return {
        "chunk_id": chunk_id(),
        "wall_time_seconds": run.wall_time_seconds,
        "exit_code": run.exit_code,
        "original_token_count": run.original_token_count,
        "output": run.output,
    }


def _handler(sandbox: Sandbox):  # noqa: ANN202 - returns the handler coroutine function
    async def exec_command(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        if args.get("tty"):
            raise ToolCallError(TTY_REFUSED)
        workdir = args.get("workdir")
        cwd = Path.cwd() if workdir is None else (Path.cwd() / Path(workdir).expanduser()).resolve()
        if not cwd.is_dir():
            raise ToolCallError(f"exec_command: the working directory {workdir!r} does not exist.")
        escalate = args.get("sandbox_permissions") == "require_escalated"
        plan = plan_command(sandbox.approval_policy, sandbox.policy.unrestricted, args["cmd"], escalate)
        if plan.forbidden:
            raise ToolCallError(plan.reason)
        request = ApprovalRequest(ctx.cell_id, args["cmd"], str(cwd), plan.sandboxed, args.get("justification"))
        if plan.ask:
            await _approve(sandbox, ctx, request)
        run = await _run(sandbox, ctx, args, cwd, plan.sandboxed)
        if (
            plan.sandboxed
            and plan.retry_outside
            and not run.cancelled
            and likely_sandbox_denied(run.exit_code, run.output)
        ):
            # Asked even when the first question was answered: that one was about a run inside
            # the sandbox, and this one leaves it.
            retry = ApprovalRequest(ctx.cell_id, args["cmd"], str(cwd), False, request.justification, RETRY_REASON)
            await _approve(sandbox, ctx, retry)
            run = await _run(sandbox, ctx, args, cwd, sandboxed=False)
        if run.cancelled:
            raise ToolCallError("exec_command was cancelled; its process group was killed.")
        return _result(run)

    return exec_command


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def exec_command_tool(sandbox: Sandbox) -> Tool:
    """The ``exec_command`` :class:`Tool`, bound to ``sandbox``."""
    return Tool(
        name="exec_command",
        description=(
            "Runs a shell command (bash -c) in its own process group, stdout and stderr merged, inside "
            "the sandbox the kernel's configuration sets (sandbox_mode). Output over `max_output_tokens` "
            "keeps its start and end, and `original_token_count` gives the size of the whole. "
            "Terminating the cell kills the command's whole process group."
        ),
        handler=_handler(sandbox),
        input_schema=_obj(
            {
                "cmd": {"type": "string", "description": "The shell command line to run."},
                "workdir": {"type": "string", "description": "Working directory; default: the kernel's."},
                "timeout_ms": {
                    "type": "integer",
                    "minimum": 1,
                    "description": "Kill the command after this many milliseconds.",
                },
                "max_output_tokens": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": MAX_OUTPUT_TOKENS_LIMIT,
                    "description": (
                        f"Most tokens (4 bytes each) of `output`; default {DEFAULT_MAX_OUTPUT_TOKENS}. "
                        "Longer output keeps its start and end around a `…N tokens truncated…` marker."
                    ),
                },
                "sandbox_permissions": {
                    "type": "string",
                    "enum": ["use_default", "require_escalated"],
                    "description": (
                        '"require_escalated" asks the user to run this command outside the sandbox; '
                        'the default, "use_default", runs it inside.'
                    ),
                },
                "justification": {
                    "type": "string",
                    "description": (
                        'With "require_escalated" only: a short question for the user that says why the '
                        "command must leave the sandbox."
                    ),
                },
                "login": {"type": "boolean", "description": "True runs a login shell (`bash -lc`)."},
                "shell": {"type": "string", "description": "Shell binary to launch; default bash."},
                "tty": {
                    "type": "boolean",
                    "description": "Codex's PTY switch: only false is supported (plain pipes).",
                },
                "yield_time_ms": {
                    "type": "integer",
                    "minimum": 0,
                    "description": (
                        "Accepted for Codex's programs; the result comes when the command ends "
                        "(bound it with `timeout_ms`)."
                    ),
                },
                "prefix_rule": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Accepted for Codex's programs; not used.",
                },
            },
            ["cmd"],
        ),
        output_schema=_obj(
            {
                "chunk_id": {"type": "string", "description": "Six random hex digits naming this output."},
                "wall_time_seconds": {"type": "number"},
                "exit_code": {"type": ["integer", "null"]},
                "original_token_count": {
                    "type": "integer",
                    "description": "Approximate token count (bytes / 4) of the whole output, before truncation.",
                },
                "output": {"type": "string"},
            },
            ["chunk_id", "wall_time_seconds", "exit_code", "original_token_count", "output"],
        ),
        waits_for_cancellation=True,
    )
