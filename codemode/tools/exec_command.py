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
import time
from collections.abc import AsyncIterator
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
from codemode.sandbox.policy import SandboxPolicy
from codemode.sandbox.seccomp import SeccompUnavailable, filter_fd
from codemode.tools.base import Tool, ToolContext
from codemode.tools.commands import CommandRun, run_command
from codemode.tools.exec_sessions import (
    DEFAULT_EXEC_YIELD_TIME_MS,
    DEFAULT_WRITE_STDIN_YIELD_TIME_MS,
    Collected,
    ExecProcess,
    ExecSessions,
    clamp_poll,
    clamp_yield,
)
from codemode.tools.serde_arguments import SerdeField, SerdeStruct
from codemode.tools.spawn import CommandLine, marked
from codemode.wire.truncation import DEFAULT_MAX_OUTPUT_TOKENS

MAX_OUTPUT_TOKENS_LIMIT = 2_000_000
"""Largest ``max_output_tokens`` accepted (8 MB of text). The reply to the runtime host is one
frame of at most 64 MiB (the host protocol's frame limit) and JSON may spell one byte of text with six (``\\u0001``):
8 MB stays under the limit even then, so a larger budget cannot make a valid call fail at the
transport instead of with a clear schema error."""

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


@contextlib.asynccontextmanager
async def _prepared(
    sandbox: Sandbox, args: dict[str, Any], sandboxed: bool, cwd: Path
) -> AsyncIterator[tuple[CommandLine, dict[str, str], tuple[int, ...]]]:
    """The command line (when ``sandboxed``, built for each attempt around bubblewrap's status
    descriptor: :func:`~codemode.tools.spawn.spawn`), its environment and the
    descriptors it must get, held (the sandbox's masks, the seccomp filter's descriptor) until
    the context ends: for as long as the command runs. Raises :class:`ToolCallError` when the
    sandbox cannot be set up."""
    policy = sandbox.policy
    shell = _shell(args.get("shell"), policy.writable_folders())
    command = [shell, "-lc" if args.get("login") else "-c", args["cmd"]]
    env = command_environment(sandbox.environment, os.environ)
    if not policy.network_access:
        env[NETWORK_DISABLED_VARIABLE] = "1"
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
            launch = _sandboxed_line(bwrap, policy, cwd, seccomp_fd, command, masked)
        else:
            launch = command
        try:
            yield launch, env, () if seccomp_fd is None else (seccomp_fd,)
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)


async def _run(sandbox: Sandbox, ctx: ToolContext, args: dict[str, Any], cwd: Path, sandboxed: bool) -> CommandRun:
    """Run the command to its end or its ``timeout_ms`` (codemode's own argument)."""
    max_tokens = args.get("max_output_tokens")
    budget = DEFAULT_MAX_OUTPUT_TOKENS if max_tokens is None else max_tokens
    async with _prepared(sandbox, args, sandboxed, cwd) as (command, env, pass_fds):
        try:
            return await run_command(
                command,
                cwd=str(cwd),
                env=env,
                max_output_tokens=budget,
                timeout_ms=args.get("timeout_ms"),
                cancellation=ctx.cancellation,
                pass_fds=pass_fds,
            )
        except OSError as exc:
            raise ToolCallError(f"exec_command could not start {_program(command)}: {exc}.") from None


async def _start(sandbox: Sandbox, args: dict[str, Any], cwd: Path, sandboxed: bool) -> ExecProcess:
    """Start the command for Codex's yield: it keeps the sandbox's masks until it ends."""
    closer = contextlib.AsyncExitStack()
    try:
        command, env, pass_fds = await closer.enter_async_context(_prepared(sandbox, args, sandboxed, cwd))
        try:
            return await ExecProcess.start(
                command, cwd=str(cwd), env=env, pass_fds=pass_fds, tty=bool(args.get("tty")), closer=closer
            )
        except OSError as exc:
            raise ToolCallError(f"exec_command could not start {_program(command)}: {exc}.") from None
    except BaseException:
        await closer.aclose()
        raise


def _sandboxed_line(
    bwrap: str, policy: SandboxPolicy, cwd: Path, seccomp_fd: int, command: list[str], masked: list[Path]
) -> CommandLine:
    """The sandboxed command line, built for each start (:func:`~codemode.tools.spawn.spawn`):
    the connection files to hide are those existing then, and the seccomp filter is read from
    its start again. Built once, with no retry, when no ``bash`` outside the writable folders
    can write the start mark."""
    bash = find_program("bash", policy.writable_folders())
    if bash is None:
        return bwrap_argv(bwrap, policy, cwd, seccomp_fd, command, masked)
    marker = bash

    def line(status_fd: int) -> list[str]:
        os.lseek(seccomp_fd, 0, os.SEEK_SET)
        return bwrap_argv(bwrap, policy, cwd, seccomp_fd, marked(marker, status_fd, command), masked)

    return line


def _program(command: CommandLine) -> str:
    """The program a command line starts (bubblewrap for a sandboxed one), for an error."""
    return command(-1)[0] if callable(command) else command[0]


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
    """Codex's result for a command that ended, its keys in Codex's order (see the module docstring)."""
    return {
        "chunk_id": chunk_id(),
        "wall_time_seconds": run.wall_time_seconds,
        "exit_code": run.exit_code,
        "original_token_count": run.original_token_count,
        "output": run.output,
    }


def yielded_result(seen: Collected, started: float, session_id: int | None) -> dict[str, Any]:
    """Codex's result for a window of a command's output: ``exit_code`` once it ended,
    ``session_id`` while it runs (``UnifiedExecCodeModeResult``'s order)."""
    result: dict[str, Any] = {"chunk_id": chunk_id(), "wall_time_seconds": round(time.monotonic() - started, 3)}
    if seen.ended:
        result["exit_code"] = seen.exit_code
    else:
        result["session_id"] = session_id
    result["original_token_count"] = seen.original_token_count
    result["output"] = seen.output
    return result


async def _yielding(
    sandbox: Sandbox, sessions: ExecSessions, ctx: ToolContext, args: dict[str, Any], cwd: Path, sandboxed: bool
) -> tuple[dict[str, Any], Collected]:
    """Start the command and wait ``yield_time_ms`` (clamped) for it; a command still running
    then becomes a session. A cancelled call kills its command."""
    started = time.monotonic()
    process = await _start(sandbox, args, cwd, sandboxed)
    max_tokens = args.get("max_output_tokens")
    budget = DEFAULT_MAX_OUTPUT_TOKENS if max_tokens is None else max_tokens
    yield_ms = clamp_yield(args.get("yield_time_ms", DEFAULT_EXEC_YIELD_TIME_MS))
    try:
        seen = await process.collect(yield_ms, budget, ctx.cancellation)
    except BaseException:
        await process.aclose()
        raise
    if ctx.cancellation.cancelled:
        await process.aclose()
        raise ToolCallError("exec_command was cancelled; its process group was killed.")
    if seen.ended:
        await process.aclose()
        return yielded_result(seen, started, None), seen
    session_id = await sessions.store(process)
    return yielded_result(seen, started, session_id), seen


def _handler(sandbox: Sandbox, sessions: ExecSessions):  # noqa: ANN202 - returns the handler coroutine function
    async def exec_command(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
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
        if args.get("timeout_ms") is not None and not args.get("tty"):
            return await _to_the_end(sandbox, ctx, args, cwd, plan, request)
        result, seen = await _yielding(sandbox, sessions, ctx, args, cwd, plan.sandboxed)
        if plan.sandboxed and plan.retry_outside and seen.ended and likely_sandbox_denied(seen.exit_code, seen.output):
            retry = ApprovalRequest(ctx.cell_id, args["cmd"], str(cwd), False, request.justification, RETRY_REASON)
            await _approve(sandbox, ctx, retry)
            result, seen = await _yielding(sandbox, sessions, ctx, args, cwd, sandboxed=False)
        return result

    return exec_command


async def _to_the_end(
    sandbox: Sandbox, ctx: ToolContext, args: dict[str, Any], cwd: Path, plan: Any, request: ApprovalRequest
) -> dict[str, Any]:
    """codemode's ``timeout_ms``: the command runs to its end, killed at the time-out."""
    run = await _run(sandbox, ctx, args, cwd, plan.sandboxed)
    if plan.sandboxed and plan.retry_outside and not run.cancelled and likely_sandbox_denied(run.exit_code, run.output):
        # Asked even when the first question was answered: that one was about a run inside
        # the sandbox, and this one leaves it.
        retry = ApprovalRequest(ctx.cell_id, args["cmd"], str(cwd), False, request.justification, RETRY_REASON)
        await _approve(sandbox, ctx, retry)
        run = await _run(sandbox, ctx, args, cwd, sandboxed=False)
    if run.cancelled:
        raise ToolCallError("exec_command was cancelled; its process group was killed.")
    return _result(run)


def _write_stdin_handler(sessions: ExecSessions):  # noqa: ANN202 - returns the handler coroutine function
    async def write_stdin(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        started = time.monotonic()
        try:
            process = sessions.get(args["session_id"])
        except KeyError as exc:
            raise ToolCallError(f"write_stdin failed: {exc.args[0]}") from None
        chars = args.get("chars", "")
        if chars:
            try:
                process.write(chars.encode("utf-8", "surrogatepass"))
            except PermissionError as exc:
                raise ToolCallError(f"write_stdin failed: {exc}") from None
            except OSError:
                raise ToolCallError("write_stdin failed: failed to write to stdin") from None
        wanted = args.get("yield_time_ms", DEFAULT_WRITE_STDIN_YIELD_TIME_MS)
        yield_ms = clamp_yield(wanted) if chars else clamp_poll(wanted)
        max_tokens = args.get("max_output_tokens")
        budget = DEFAULT_MAX_OUTPUT_TOKENS if max_tokens is None else max_tokens
        seen = await process.collect(yield_ms, budget, ctx.cancellation)
        if seen.ended:
            await sessions.forget(process)
        return yielded_result(seen, started, process.session_id)

    return write_stdin


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


EXEC_ARGUMENTS = SerdeStruct(
    (
        SerdeField("cmd", "String", required=True, optional=False),
        SerdeField("workdir", "String"),
        SerdeField("shell", "String"),
        SerdeField("login", "bool"),
        SerdeField("tty", "bool", optional=False),
        SerdeField("yield_time_ms", "u64", optional=False),
        SerdeField("max_output_tokens", "usize"),
        SerdeField("sandbox_permissions", "enum", optional=False, variants=("use_default", "require_escalated")),
        SerdeField("justification", "String"),
        SerdeField("prefix_rule", "Vec<String>"),
        SerdeField("timeout_ms", "u64"),
    )
)
"""Codex's ``ExecCommandArgs`` (``codex-rs/core/src/tools/handlers/unified_exec.rs``), with
codemode's ``timeout_ms``."""

WRITE_STDIN_ARGUMENTS = SerdeStruct(
    (
        SerdeField("session_id", "i32", required=True, optional=False),
        SerdeField("chars", "String", optional=False),
        SerdeField("yield_time_ms", "u64", optional=False),
        SerdeField("max_output_tokens", "usize"),
    )
)
"""Codex's ``WriteStdinArgs``."""

_MAX_TOKENS = {
    "type": "integer",
    "minimum": 0,
    "maximum": MAX_OUTPUT_TOKENS_LIMIT,
    "description": (
        f"Most tokens (4 bytes each) of `output`; default {DEFAULT_MAX_OUTPUT_TOKENS}. "
        "Longer output keeps its start and end around a `…N tokens truncated…` marker."
    ),
}

_RESULT = _obj(
    {
        "chunk_id": {"type": "string", "description": "Six random hex digits naming this output."},
        "wall_time_seconds": {"type": "number"},
        "exit_code": {"type": ["integer", "null"], "description": "Set once the command ended."},
        "session_id": {
            "type": "integer",
            "description": "Set while the command still runs: pass it to write_stdin.",
        },
        "original_token_count": {
            "type": "integer",
            "description": "Approximate token count (bytes / 4) of the whole output, before truncation.",
        },
        "output": {"type": "string"},
    },
    ["chunk_id", "wall_time_seconds", "original_token_count", "output"],
)


def exec_command_tool(sandbox: Sandbox, sessions: ExecSessions) -> Tool:
    """The ``exec_command`` :class:`Tool`, bound to ``sandbox``; long commands become ``sessions``."""
    return Tool(
        name="exec_command",
        description=(
            "Runs a shell command (bash -c) in its own process group, stdout and stderr merged, inside "
            "the sandbox the kernel's configuration sets (sandbox_mode). Returns after `yield_time_ms` "
            "(default 10000) with `session_id` when the command still runs (continue with write_stdin), "
            "else with its `exit_code`. Output over `max_output_tokens` keeps its start and end, and "
            "`original_token_count` gives the size of the whole. Terminating the cell during the call "
            "kills the command's whole process group."
        ),
        handler=_handler(sandbox, sessions),
        input_schema=_obj(
            {
                "cmd": {"type": "string", "description": "The shell command line to run."},
                "workdir": {"type": "string", "description": "Working directory; default: the kernel's."},
                "timeout_ms": {
                    "type": "integer",
                    "minimum": 1,
                    "description": (
                        "codemode's own: wait for the command's end, killing it after this many "
                        "milliseconds (no session_id then)."
                    ),
                },
                "max_output_tokens": _MAX_TOKENS,
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
                    "description": "True runs the command in a pseudo-terminal, whose input write_stdin types.",
                },
                "yield_time_ms": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "How long to wait for the command before returning (250 to 30000; default 10000).",
                },
                "prefix_rule": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Accepted for Codex's programs; not used.",
                },
            },
            ["cmd"],
        ),
        output_schema=_RESULT,
        waits_for_cancellation=True,
        arguments=EXEC_ARGUMENTS,
    )


def write_stdin_tool(sessions: ExecSessions) -> Tool:
    """The ``write_stdin`` :class:`Tool`: input for, and output of, a command of ``sessions``."""
    return Tool(
        name="write_stdin",
        description=(
            "Writes `chars` to a running exec_command session's terminal and returns its output since the "
            "last call, after `yield_time_ms` (default 250) or when it ends; empty `chars` only polls "
            "(5000 ms at least)."
        ),
        handler=_write_stdin_handler(sessions),
        input_schema=_obj(
            {
                "session_id": {"type": "integer", "description": "The session_id exec_command returned."},
                "chars": {"type": "string", "description": "Characters to type; default none (a poll)."},
                "yield_time_ms": {
                    "type": "integer",
                    "minimum": 0,
                    "description": "How long to wait for output before returning.",
                },
                "max_output_tokens": _MAX_TOKENS,
            },
            ["session_id"],
        ),
        output_schema=_RESULT,
        arguments=WRITE_STDIN_ARGUMENTS,
    )
