"""Built-in tools, available with no configuration.

- ``echo(value)`` -> the same JSON value, of any type (``null`` when the cell passes none or
  ``undefined``, which the host sends as ``null``);
- ``sleep({ms})`` -> ``{slept_ms}``; ends at once when cancelled;
- ``exec_command({cmd, workdir?, timeout_ms?, max_output_tokens?})`` ->
  ``{exit_code, output, wall_time_seconds, original_token_count?}`` (the shape of Codex's
  nested ``exec_command`` result): ``bash -c cmd`` in its own process group, stdout and
  stderr merged; on cancellation or timeout the whole group is killed and the dispatcher
  awaits that cleanup (``waits_for_cancellation``); when the command exits, anything it
  left running is killed too, and the command runs under :mod:`codemode.tools.launcher`, so it
  dies with the kernel even after a SIGKILL (no orphans). ``output`` is cut to
  ``max_output_tokens`` (default :data:`~codemode.output.DEFAULT_MAX_OUTPUT_TOKENS`) with Codex's truncation
  text (:func:`codemode.output.truncated_text`), and
  ``original_token_count`` is then the whole output's estimate; the output is captured with
  memory bounded by that budget (:class:`~codemode.tools.capture.OutputCapture`), so a command
  that prints without end costs neither memory nor a reply too large to send;
- ``read_file({path})`` -> ``{content}``; ``write_file({path, content})`` -> ``{bytes_written}``
  (exclusive: never overlaps another call of the cell); ``list_dir({path})`` ->
  ``{entries: [{name, type, size}]}`` sorted by name.

The file work runs in threads of the built-ins' own lane (:data:`codemode.tools.threads.BUILTINS`),
never shared with Python tools, whose blocked calls therefore cannot hold these up. Relative
paths are resolved against the kernel's working directory. Failures raise
:class:`~codemode.errors.ToolCallError` with a sentence saying what went wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import stat
import time
from pathlib import Path
from typing import Any

from ..errors import ToolCallError
from ..output import DEFAULT_MAX_OUTPUT_TOKENS
from .base import Tool, ToolContext
from .capture import OutputCapture
from .launcher import launcher_argv
from .threads import BUILTINS

KILL_GRACE_S = 2.0
"""After SIGTERM, how long a cancelled command's group gets before SIGKILL."""

MAX_OUTPUT_TOKENS_LIMIT = 2_000_000
"""Largest ``max_output_tokens`` accepted (8 MB of text). The reply to the runtime host is one
frame of at most 64 MiB (the host protocol's frame limit) and JSON may spell one byte of text with six (``\\u0001``):
8 MB stays under the limit even then, so a larger budget cannot make a valid call fail at the
transport instead of with a clear schema error."""

READ_CHUNK_BYTES = 1 << 16
"""How much of a command's output is read at a time."""


async def _echo(args: Any, ctx: ToolContext) -> Any:
    return args


async def _sleep(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    ms = int(args["ms"])
    try:
        await asyncio.wait_for(ctx.cancellation.wait(), ms / 1000)
    except TimeoutError:
        return {"slept_ms": ms}
    raise ToolCallError(f"sleep was cancelled before {ms} ms had passed.")


def _settle_once(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


async def _exited(process: asyncio.subprocess.Process) -> int | None:
    """Wait for the process itself to exit, not for its pipes to close (asyncio's ``wait()``
    also waits for EOF, which a background child holding stdout would delay forever)."""
    if process.returncode is not None:
        return process.returncode
    try:
        pidfd = os.pidfd_open(process.pid)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        loop = asyncio.get_running_loop()
        ready = loop.create_future()
        loop.add_reader(pidfd, _settle_once, ready)
        try:
            await ready
        finally:
            loop.remove_reader(pidfd)
            os.close(pidfd)
    while process.returncode is None:
        # The child watcher sets the code right after the exit; poll briefly for it.
        await asyncio.sleep(0.01)
    return process.returncode


def _kill_group(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, sig)


async def _exec_command(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    cmd = args["cmd"]
    workdir = args.get("workdir")
    if workdir is not None and not Path(workdir).is_dir():
        raise ToolCallError(f"exec_command: the working directory {workdir!r} does not exist.")
    timeout_ms = args.get("timeout_ms")
    shell = shutil.which("bash") or "/bin/sh"
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_exec(
            *launcher_argv(shell, ["-c", cmd]),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            cwd=workdir,
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolCallError(f"exec_command could not start {shell}: {exc}.") from None
    assert process.stdout is not None
    max_tokens = args.get("max_output_tokens")
    capture = OutputCapture(DEFAULT_MAX_OUTPUT_TOKENS if max_tokens is None else max_tokens)

    async def pump() -> None:
        assert process.stdout is not None
        while True:
            chunk = await process.stdout.read(READ_CHUNK_BYTES)
            if not chunk:
                return
            capture.feed(chunk)

    reader = asyncio.ensure_future(pump())
    waiter = asyncio.ensure_future(_exited(process))
    cancelled = asyncio.ensure_future(ctx.cancellation.wait())
    timed_out = False
    try:
        timeout = None if timeout_ms is None else timeout_ms / 1000
        done, _ = await asyncio.wait({waiter, cancelled}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if waiter not in done:
            timed_out = not cancelled.done()
            _kill_group(process.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(asyncio.shield(waiter), KILL_GRACE_S)
            except TimeoutError:
                _kill_group(process.pid, signal.SIGKILL)
                await waiter
    finally:
        cancelled.cancel()
        # Whatever the command left behind in its group goes too: no orphans.
        _kill_group(process.pid, signal.SIGKILL)
        if not waiter.done():
            await waiter
        with contextlib.suppress(Exception):
            await process.wait()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(reader), 1.0)
        reader.cancel()
    if ctx.cancellation.cancelled:
        raise ToolCallError("exec_command was cancelled; its process group was killed.")
    capture.finish()
    if timed_out:
        capture.feed_text(f"\ncommand timed out after {timeout_ms} ms and was killed")
    result: dict[str, Any] = {
        "exit_code": 124 if timed_out else process.returncode,
        "output": capture.render(),
        "wall_time_seconds": round(time.monotonic() - started, 3),
    }
    if capture.truncated:
        result["original_token_count"] = capture.original_token_count
    return result


def _path(args: dict[str, Any]) -> Path:
    return Path(args["path"]).expanduser()


async def _read_file(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    path = _path(args)
    try:
        data = await BUILTINS.run("read_file", path.read_bytes)
    except FileNotFoundError:
        raise ToolCallError(f"read_file: {str(path)!r} does not exist.") from None
    except IsADirectoryError:
        raise ToolCallError(f"read_file: {str(path)!r} is a directory; use list_dir.") from None
    except OSError as exc:
        raise ToolCallError(f"read_file: {str(path)!r} cannot be read ({exc.strerror}).") from None
    return {"content": data.decode("utf-8", "replace")}


async def _write_file(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    path = _path(args)
    data = args["content"].encode("utf-8", "surrogatepass")

    def write() -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    try:
        await BUILTINS.run("write_file", write)
    except OSError as exc:
        raise ToolCallError(f"write_file: {str(path)!r} cannot be written ({exc.strerror}).") from None
    return {"bytes_written": len(data)}


def _entry(entry: os.DirEntry[str]) -> dict[str, Any]:
    try:
        info = entry.stat(follow_symlinks=False)
    except OSError:
        return {"name": entry.name, "type": "other", "size": None}
    if stat.S_ISLNK(info.st_mode):
        kind = "symlink"
    elif stat.S_ISDIR(info.st_mode):
        kind = "dir"
    elif stat.S_ISREG(info.st_mode):
        kind = "file"
    else:
        kind = "other"
    return {"name": entry.name, "type": kind, "size": None if kind == "dir" else info.st_size}


async def _list_dir(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    path = _path(args)

    def scan() -> list[dict[str, Any]]:
        with os.scandir(path) as it:
            return sorted((_entry(e) for e in it), key=lambda e: e["name"])

    try:
        entries = await BUILTINS.run("list_dir", scan)
    except FileNotFoundError:
        raise ToolCallError(f"list_dir: {str(path)!r} does not exist.") from None
    except NotADirectoryError:
        raise ToolCallError(f"list_dir: {str(path)!r} is not a directory; use read_file.") from None
    except OSError as exc:
        raise ToolCallError(f"list_dir: {str(path)!r} cannot be listed ({exc.strerror}).") from None
    return {"entries": entries}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_PATH = {"type": "string", "description": "File system path, absolute or relative to the kernel's working directory."}


def builtin_tools() -> list[Tool]:
    """Fresh :class:`Tool` objects for every built-in (source ``builtin``)."""
    return [
        Tool(
            name="echo",
            description="Returns its argument unchanged: any JSON value (null when none is given).",
            handler=_echo,
            input_schema={},
            output_schema={},
            any_input=True,
        ),
        Tool(
            name="sleep",
            description="Waits for `ms` milliseconds, then returns `{slept_ms}`. Ends at once when the cell is terminated.",
            handler=_sleep,
            input_schema=_obj(
                {"ms": {"type": "integer", "minimum": 0, "description": "How long to wait, in milliseconds."}}, ["ms"]
            ),
            output_schema=_obj({"slept_ms": {"type": "integer"}}, ["slept_ms"]),
        ),
        Tool(
            name="exec_command",
            description=(
                "Runs a shell command (bash -c) in its own process group, stdout and stderr merged. "
                "Output over `max_output_tokens` keeps its start and end, and `original_token_count` "
                "gives the size of the whole. Terminating the cell kills the command's whole process group."
            ),
            handler=_exec_command,
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
                },
                ["cmd"],
            ),
            output_schema=_obj(
                {
                    "exit_code": {"type": ["integer", "null"]},
                    "output": {"type": "string"},
                    "wall_time_seconds": {"type": "number"},
                    "original_token_count": {
                        "type": "integer",
                        "description": "Present when `output` was truncated: the token count of the whole output.",
                    },
                },
                ["exit_code", "output", "wall_time_seconds"],
            ),
            waits_for_cancellation=True,
        ),
        Tool(
            name="read_file",
            description="Reads a UTF-8 text file and returns `{content}`.",
            handler=_read_file,
            input_schema=_obj({"path": _PATH}, ["path"]),
            output_schema=_obj({"content": {"type": "string"}}, ["content"]),
        ),
        Tool(
            name="write_file",
            description="Writes `content` to a file (parent folders are created) and returns `{bytes_written}`.",
            handler=_write_file,
            input_schema=_obj(
                {"path": _PATH, "content": {"type": "string", "description": "The text to write (UTF-8)."}},
                ["path", "content"],
            ),
            output_schema=_obj({"bytes_written": {"type": "integer"}}, ["bytes_written"]),
            supports_parallel=False,
        ),
        Tool(
            name="list_dir",
            description="Lists a folder: `{entries: [{name, type, size}]}` sorted by name; `type` is file, dir, symlink or other.",
            handler=_list_dir,
            input_schema=_obj({"path": _PATH}, ["path"]),
            output_schema=_obj(
                {
                    "entries": {
                        "type": "array",
                        "items": _obj(
                            {
                                "name": {"type": "string"},
                                "type": {"enum": ["file", "dir", "symlink", "other"]},
                                "size": {"type": ["integer", "null"]},
                            },
                            ["name", "type", "size"],
                        ),
                    }
                },
                ["entries"],
            ),
        ),
    ]
