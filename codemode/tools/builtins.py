"""Built-in tools, available with no configuration.

- ``echo(value)`` -> the same JSON value, of any type (``null`` when the cell passes none or
  ``undefined``, which the host sends as ``null``);
- ``sleep({ms})`` -> ``{slept_ms}``; ends at once when cancelled;
- ``exec_command``: a shell command in the sandbox, and ``write_stdin`` for one still running
  (:mod:`codemode.tools.exec_command`, :mod:`codemode.tools.exec_sessions`);
- ``apply_patch("*** Begin Patch...")``: Codex's patch format, written through the sandbox
  (:mod:`codemode.tools.apply_patch`); ``view_image({path})`` -> ``{image_url}``
  (:mod:`codemode.tools.view_image`);
- ``read_file({path})`` -> ``{content}``; ``write_file({path, content})`` -> ``{bytes_written}``
  (exclusive: never overlaps another call of the cell; only where the sandbox policy lets
  cells write, :mod:`codemode.sandbox.files`); ``list_dir({path})`` ->
  ``{entries: [{name, type, size}]}`` sorted by name.

The file work runs in threads of the built-ins' own lane (:data:`codemode.tools.threads.BUILTINS`),
never shared with Python tools, whose blocked calls therefore cannot hold these up. Relative
paths are resolved against the kernel's working directory. Failures raise
:class:`~codemode.errors.ToolCallError` with a sentence saying what went wrong.
"""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

from codemode.config import SandboxSettings
from codemode.errors import ToolCallError
from codemode.sandbox import Sandbox
from codemode.sandbox.files import WriteRefused, opened_within_reach, read_checked, write_checked
from codemode.tools.apply_patch import apply_patch_tool
from codemode.tools.base import Handler, Tool, ToolContext
from codemode.tools.exec_command import exec_command_tool, write_stdin_tool
from codemode.tools.exec_sessions import ExecSessions
from codemode.tools.threads import BUILTINS
from codemode.tools.view_image import view_image_tool


async def _echo(args: Any, ctx: ToolContext) -> Any:
    return args


MAX_SLEEP_MS = 2**31 - 1
"""The longest ``sleep``: JavaScript's ``setTimeout`` takes no longer delay (a larger one fires at
once there); here a larger one is refused by the schema, so ``1e21`` is an error, not a sleep
that never ends."""


async def _sleep(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
    # An aborted call's handler task is cancelled (sleep does not wait for cancellation), which
    # ends the sleep at once; a timeout racing the token cost ~60 us per call.
    ms = int(args["ms"])
    await asyncio.sleep(ms / 1000)
    return {"slept_ms": ms}


def _path(args: dict[str, Any]) -> Path:
    return Path(args["path"]).expanduser()


def _read_file_handler(sandbox: Sandbox) -> Handler:
    async def read_file(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return await _read_file(sandbox, _path(args))

    return read_file


async def _read_file(sandbox: Sandbox, path: Path) -> dict[str, Any]:
    try:
        data = await BUILTINS.run("read_file", read_checked, sandbox.policy, path)
    except WriteRefused as exc:
        raise ToolCallError(f"read_file: {exc}") from None
    except FileNotFoundError:
        raise ToolCallError(f"read_file: {str(path)!r} does not exist.") from None
    except IsADirectoryError:
        raise ToolCallError(f"read_file: {str(path)!r} is a directory; use list_dir.") from None
    except OSError as exc:
        raise ToolCallError(f"read_file: {str(path)!r} cannot be read ({exc.strerror}).") from None
    return {"content": data.decode("utf-8", "replace")}


def _write_file_handler(sandbox: Sandbox) -> Handler:
    async def write_file(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        path = _path(args)
        data = args["content"].encode("utf-8", "surrogatepass")
        try:
            await BUILTINS.run("write_file", write_checked, sandbox.policy, path, data)
        except WriteRefused as exc:
            raise ToolCallError(f"write_file: {exc}") from None
        except OSError as exc:
            raise ToolCallError(f"write_file: {str(path)!r} cannot be written ({exc.strerror}).") from None
        return {"bytes_written": len(data)}

    return write_file


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


def _list_dir_handler(sandbox: Sandbox) -> Handler:
    async def list_dir(args: dict[str, Any], ctx: ToolContext) -> dict[str, Any]:
        return await _list_dir(sandbox, _path(args))

    return list_dir


async def _list_dir(sandbox: Sandbox, path: Path) -> dict[str, Any]:
    def scan() -> list[dict[str, Any]]:
        fd = opened_within_reach(sandbox.policy, path, os.O_RDONLY | os.O_DIRECTORY, "listed")
        try:
            with os.scandir(fd) as it:
                return sorted((_entry(e) for e in it), key=lambda e: e["name"])
        finally:
            os.close(fd)

    try:
        entries = await BUILTINS.run("list_dir", scan)
    except WriteRefused as exc:
        raise ToolCallError(f"list_dir: {exc}") from None
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


def builtin_tools(sandbox: Sandbox | None = None, sessions: ExecSessions | None = None) -> list[Tool]:
    """Fresh :class:`Tool` objects for every built-in (source ``builtin``), bound to ``sandbox``
    (default: Codex's default settings for the working directory); ``exec_command`` and
    ``write_stdin`` share ``sessions`` (the owner ends them: :meth:`ExecSessions.aclose`)."""
    sandbox = sandbox or Sandbox.from_settings(SandboxSettings())
    sessions = sessions if sessions is not None else ExecSessions()
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
                {
                    "ms": {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": MAX_SLEEP_MS,
                        "description": "How long to wait, in milliseconds (at most 2147483647, about 24.8 days).",
                    }
                },
                ["ms"],
            ),
            output_schema=_obj({"slept_ms": {"type": "integer"}}, ["slept_ms"]),
        ),
        exec_command_tool(sandbox, sessions),
        write_stdin_tool(sessions),
        apply_patch_tool(sandbox),
        view_image_tool(sandbox),
        Tool(
            name="read_file",
            description="Reads a UTF-8 text file and returns `{content}`.",
            handler=_read_file_handler(sandbox),
            input_schema=_obj({"path": _PATH}, ["path"]),
            output_schema=_obj({"content": {"type": "string"}}, ["content"]),
        ),
        Tool(
            name="write_file",
            description="Writes `content` to a file (parent folders are created) and returns `{bytes_written}`.",
            handler=_write_file_handler(sandbox),
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
            handler=_list_dir_handler(sandbox),
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
