"""Built-in tools, called through the dispatcher as a cell would."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
import time
from pathlib import Path

import psutil
import pytest

from codemode.cancellation import CancellationToken
from codemode.dispatch import ToolCallRuntime
from codemode.tools.registry import ToolRegistry

sys.path.insert(0, str(Path(__file__).resolve().parent / "dispatch"))
sys.path.insert(0, str(Path(__file__).resolve().parent / "pytools"))
from dispatch_helpers import assert_abort_elapsed  # noqa: E402
from host_harness import HostSession, texts  # noqa: E402
from polling import poll_until  # noqa: E402


@pytest.fixture
async def dispatcher():
    registry = await ToolRegistry.create()
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def call(dispatcher, name, args, token=None):
    return await dispatcher.handle_tool_call(
        "1", "tool-1", {"name": name, "namespace": None}, "function", args, token or CancellationToken()
    )


@pytest.mark.unit
async def test_builtins_are_listed_sorted_with_declarations():
    registry = await ToolRegistry.create()
    assert [t.js_name for t in registry.tools] == [
        "apply_patch",
        "echo",
        "exec_command",
        "list_dir",
        "read_file",
        "sleep",
        "view_image",
        "write_file",
        "write_stdin",
    ]
    sleep = registry.get("sleep")
    declaration = (
        "declare const tools: { sleep(args: {\n  // How long to wait, in milliseconds (at most 2147483647, about 24.8 days).\n  ms: number;\n}): "
        "Promise<{ slept_ms: number; }>; };"
    )
    assert sleep.declaration == declaration
    assert sleep.augmented_description == (
        "Waits for `ms` milliseconds, then returns `{slept_ms}`. Ends at once when the cell is terminated.\n\n"
        f"exec tool declaration:\n```ts\n{declaration}\n```"
    )


@pytest.mark.unit
async def test_disabled_tools_are_hidden():
    from codemode.config import Config

    registry = await ToolRegistry.create(Config(disabled_tools=["exec_command", "sleep"]))
    assert registry.get("exec_command") is None and registry.find("sleep") is None
    assert registry.get("echo") is not None


@pytest.mark.unit
async def test_echo_and_sleep(dispatcher):
    assert (await call(dispatcher, "echo", {"a": [1, None]})).value == {"a": [1, None]}
    assert (await call(dispatcher, "sleep", {"ms": 5})).value == {"slept_ms": 5}


ECHOED = ["fast", "", 42, -1.5, 0, True, False, None, [1, 2], [], {}, {"a": [1, None], "b": {"c": "é"}}]
"""A value of every JSON type (the input of Codex's recorded case ``parallel_tools`` first)."""


@pytest.mark.unit
@pytest.mark.parametrize("value", ECHOED, ids=json.dumps)
async def test_echo_returns_any_json_value_unchanged(dispatcher, value):
    result = await call(dispatcher, "echo", value)
    assert (result.outcome, result.success) == ("completed", True)
    assert (type(result.value), json.dumps(result.value)) == (type(value), json.dumps(value))


@pytest.mark.unit
async def test_echo_declares_that_it_takes_and_returns_any_value():
    echo = (await ToolRegistry.create()).get("echo")
    assert echo.input_schema == {} and echo.output_schema == {}
    assert echo.declaration == "declare const tools: { echo(args: unknown): Promise<unknown>; };"


async def test_cells_echo_values_of_every_type():
    source = (
        'const raced = await Promise.race([tools.sleep({ms: 200}).then(() => "slow"), tools.echo("fast")]);\n'
        "text(raced);\n"
        'const values = [await tools.echo(42), await tools.echo([1, 2]), await tools.echo(""), '
        "await tools.echo(false), await tools.echo(null), await tools.echo({a: {b: [1, 'x']}})];\n"
        "text(JSON.stringify(values));\n"
        "text(JSON.stringify([await tools.echo() === null, await tools.echo(undefined) === null]));"
    )
    async with HostSession([]) as h:
        _, response = await asyncio.wait_for(h.run(source), 60)
    assert (response.kind, texts(response)) == (
        "Result",
        ["fast", '[42,[1,2],"",false,null,{"a":{"b":[1,"x"]}}]', "[true,true]"],
    )


@pytest.mark.unit
@pytest.mark.parametrize(
    ("ms", "problem"),
    [
        (1e21, "1e+21 is greater than the maximum of 2147483647"),  # JSON.stringify(1e21) is 1e+21
        (2**31, "2147483648 is greater than the maximum of 2147483647"),
        (-1, "-1 is less than the minimum of 0"),
    ],
)
async def test_sleep_longer_than_set_timeouts_limit_is_refused(dispatcher, ms, problem):
    """A sleep JavaScript's setTimeout could not wait for is an error, not a sleep without end."""
    result = await call(dispatcher, "sleep", {"ms": ms})
    rule = "maximum" if ms > 0 else "minimum"
    assert (result.outcome, result.error) == (
        "failed",
        f"tool `sleep` received invalid arguments at `ms`: {problem} (schema rule `{rule}`).",
    )
    assert (await call(dispatcher, "sleep", {"ms": 0})).value == {"slept_ms": 0}


@pytest.mark.unit
async def test_sleep_ends_at_once_when_cancelled(dispatcher):
    """Cancelled while it sleeps (its handler has started and awaits its hour), the call ends
    aborted long before the hour is up."""
    tool = dispatcher.registry.find("sleep", None)
    sleep, sleeping = tool.handler, asyncio.Event()

    async def noted_sleep(args, ctx):
        sleeping.set()
        return await sleep(args, ctx)  # runs to its own await before the test sees the event

    tool.handler = noted_sleep
    token = CancellationToken()
    task = asyncio.ensure_future(call(dispatcher, "sleep", {"ms": 3_600_000}, token))
    await sleeping.wait()
    token.cancel()
    result = await asyncio.wait_for(task, 60)
    assert result.outcome == "aborted"
    assert re.fullmatch(r"aborted by user after \d+\.\ds", result.error), result.error


async def test_exec_command_output_exit_code_and_workdir(dispatcher, tmp_path):
    before = time.monotonic()
    cmd = "pwd; echo err >&2; sleep 0.2; exit 3"
    result = (await call(dispatcher, "exec_command", {"cmd": cmd, "workdir": str(tmp_path)})).value
    took = time.monotonic() - before
    assert (result["exit_code"], result["output"]) == (3, f"{tmp_path}\nerr\n")
    assert 0.2 <= result["wall_time_seconds"] <= took


async def test_exec_command_truncates_with_the_nested_budget(dispatcher):
    result = (
        await call(
            dispatcher,
            "exec_command",
            {"cmd": "printf 0123456789012345678901234567890123456789", "max_output_tokens": 5},
        )
    ).value
    assert result["output"] == (
        "Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n"
        "0123456789\u20265 tokens truncated\u20260123456789"
    )
    assert result["original_token_count"] == 10


async def test_exec_command_answers_in_codex_shape(dispatcher):
    """Codex CLI 0.171.0 gave ``{"chunk_id":"d0c96e","wall_time_seconds":0.84,"exit_code":0,
    "original_token_count":1,"output":"hi\\n"}`` for ``echo hi`` (keys in this order;
    ``original_token_count`` present for output within the budget too)."""
    result = (await call(dispatcher, "exec_command", {"cmd": "echo hi", "yield_time_ms": 500})).value
    assert list(result) == ["chunk_id", "wall_time_seconds", "exit_code", "original_token_count", "output"]
    assert re.fullmatch(r"[0-9a-f]{6}", result["chunk_id"])
    assert (result["exit_code"], result["original_token_count"], result["output"]) == (0, 1, "hi\n")
    second = (await call(dispatcher, "exec_command", {"cmd": "printf 0123456789", "max_output_tokens": 5})).value
    assert (second["output"], second["original_token_count"]) == ("0123456789", 3)
    assert second["chunk_id"] != result["chunk_id"]


async def test_exec_command_login_and_shell(dispatcher):
    """Codex's ``login`` runs a login shell; ``shell`` names the shell binary."""
    login = (await call(dispatcher, "exec_command", {"cmd": "shopt -q login_shell && echo login", "login": True})).value
    plain = (await call(dispatcher, "exec_command", {"cmd": "shopt -q login_shell || echo plain"})).value
    sh = (await call(dispatcher, "exec_command", {"cmd": "echo $0", "shell": "sh"})).value
    # A login shell reads the machine's profile files, which may print: the last line is ours.
    assert (login["output"].splitlines()[-1], plain["output"]) == ("login", "plain\n")
    assert sh["output"].strip().endswith("sh") and "bash" not in sh["output"]


@pytest.mark.unit
async def test_exec_command_refuses_an_unknown_shell(dispatcher):
    shell = await call(dispatcher, "exec_command", {"cmd": "echo hi", "shell": "no-such-shell-here"})
    assert (shell.outcome, shell.error) == (
        "failed",
        "exec_command: the shell 'no-such-shell-here' was not found (it must be an executable on the PATH or an "
        "absolute path, outside the folders commands may write).",
    )


async def test_exec_command_default_budget_is_ten_thousand_tokens(dispatcher):
    # 100 000 bytes without max_output_tokens: Codex's per-call default of 10 000 tokens.
    result = (await call(dispatcher, "exec_command", {"cmd": "head -c 100000 /dev/zero | tr '\\0' x"})).value
    assert result["original_token_count"] == 25_000
    assert result["output"].startswith(
        "Warning: truncated output (original token count: 25000)\nTotal output lines: 1\n\n" + "x" * 20_000 + "\u2026"
    )
    assert result["output"].endswith("\u202615000 tokens truncated\u2026" + "x" * 20_000)


@pytest.mark.unit
async def test_exec_command_budget_above_the_frame_safe_limit_is_refused(dispatcher):
    failed = await call(dispatcher, "exec_command", {"cmd": "true", "max_output_tokens": 10**9})
    assert (failed.outcome, failed.error) == (
        "failed",
        "tool `exec_command` received invalid arguments at `max_output_tokens`: 1000000000 is greater than the "
        "maximum of 2000000 (schema rule `maximum`).",
    )


async def test_exec_command_endless_output_is_bounded_and_the_reply_comes(dispatcher):
    # `yes` until the time-out used to print gigabytes, and all of it was kept.
    # Now the kept output is the budget's, and the kernel's memory does not follow the
    # command's output. Peak RSS is sampled during the call: the capture holds ~60 KB and the
    # pipe reads 64 KiB at a time, so 64 MiB of growth allows for allocator noise while `yes`
    # (hundreds of MB/s) would pass it many times over if its output were kept.
    me = psutil.Process()
    baseline = me.memory_info().rss
    peak = baseline
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, me.memory_info().rss)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(done.wait(), 0.02)

    sampler = asyncio.ensure_future(sample())
    try:
        result = (
            await call(dispatcher, "exec_command", {"cmd": "yes", "timeout_ms": 1000, "max_output_tokens": 100})
        ).value
    finally:
        done.set()
        await sampler
    assert result["exit_code"] == 124
    assert peak - baseline < 64 * 2**20
    assert result["original_token_count"] > 100_000
    header, _, body = result["output"].partition("\n\n")
    assert header.startswith("Warning: truncated output (original token count: ")
    # The time-out note comes last, so the kept tail shows it.
    assert body.startswith("y\n" * 100) and body.endswith("\ncommand timed out after 1000 ms and was killed")
    assert len(body.encode()) <= 400 + len("\u2026 tokens truncated\u2026".encode()) + 20


async def test_exec_command_output_over_the_frame_limit_is_cut_not_refused(dispatcher):
    # 50 MB used to fail with the 64 MiB frame-limit error once JSON-encoded.
    result = (await call(dispatcher, "exec_command", {"cmd": "yes | head -c 50000000"})).value
    assert result["exit_code"] == 0
    assert result["original_token_count"] == 12_500_000
    assert result["output"] == (
        "Warning: truncated output (original token count: 12500000)\nTotal output lines: 25000000\n\n"
        + "y\n" * 10_000
        + "\u202612490000 tokens truncated\u2026"
        + "y\n" * 10_000
    )


async def test_exec_command_timeout_kills_the_command(dispatcher):
    result = (await call(dispatcher, "exec_command", {"cmd": "echo start; sleep 30", "timeout_ms": 200})).value
    assert (result["exit_code"], result["output"]) == (124, "start\n\ncommand timed out after 200 ms and was killed")


def _sleepers(seconds: str) -> list[psutil.Process]:
    """Live (not zombie) processes running ``sleep <seconds>``: found by their command line, so
    also inside the sandbox's own PID namespace."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        if process.info["cmdline"] == ["sleep", seconds] and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process)
    return found


@pytest.fixture(params=["workspace-write", "danger-full-access"])
async def either_dispatcher(request):
    """A dispatcher whose commands run in the sandbox (the default) or without one."""
    from codemode.config import Config, SandboxSettings

    registry = await ToolRegistry.create(Config(sandbox=SandboxSettings(sandbox_mode=request.param)))
    yield ToolCallRuntime(registry)
    await registry.aclose()


async def test_exec_command_cancellation_kills_the_process_group_and_waits(either_dispatcher, tmp_path):
    dispatcher = either_dispatcher
    marker = tmp_path / "started"
    seconds = f"60.{os.getpid()}1"
    token = CancellationToken()
    seen_started: list[float] = []
    dispatcher.add_listener(lambda e: e.kind == "started" and seen_started.append(time.monotonic()))
    before = time.monotonic()
    task = asyncio.ensure_future(
        call(dispatcher, "exec_command", {"cmd": f"sleep {seconds} & echo yes > {marker}; wait"}, token)
    )
    # The command's file is the event; nothing reports its writing: polled.
    await poll_until(lambda: marker.exists() and marker.read_text().strip(), "the command started")
    assert len(_sleepers(seconds)) == 1
    await asyncio.sleep(0.3)  # not to wait for anything: time passes, so a zeroed elapsed time fails
    cancelled_at = time.monotonic()
    token.cancel()
    result = await asyncio.wait_for(task, 5)
    assert result.outcome == "aborted"
    assert_abort_elapsed(
        result.error, shell=True, at_least=cancelled_at - seen_started[0], at_most=time.monotonic() - before
    )
    assert _sleepers(seconds) == []


async def test_exec_command_leaves_no_background_processes(either_dispatcher, tmp_path):
    seconds = f"60.{os.getpid()}2"
    result = (await call(either_dispatcher, "exec_command", {"cmd": f"sleep {seconds} & echo started"})).value
    assert (result["exit_code"], result["output"]) == (0, "started\n")
    # The launcher kills what is left right after the command's exit; nothing reports the end
    # of a process that is not ours: polled.
    await poll_until(lambda: not _sleepers(seconds), "the background sleep killed")


@pytest.mark.unit
async def test_file_tools(dispatcher, tmp_path):
    target = tmp_path / "sub" / "note.txt"
    written = (await call(dispatcher, "write_file", {"path": str(target), "content": "héllo"})).value
    assert written == {"bytes_written": 6}
    assert (await call(dispatcher, "read_file", {"path": str(target)})).value == {"content": "héllo"}
    os.symlink(target, tmp_path / "link")
    listing = (await call(dispatcher, "list_dir", {"path": str(tmp_path)})).value
    assert listing == {
        "entries": [
            {"name": "link", "type": "symlink", "size": len(str(target))},
            {"name": "sub", "type": "dir", "size": None},
        ]
    }
    assert (await call(dispatcher, "list_dir", {"path": str(target.parent)})).value["entries"] == [
        {"name": "note.txt", "type": "file", "size": 6}
    ]


@pytest.mark.unit
async def test_file_tool_errors_are_sentences(dispatcher, tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x")
    missing = await call(dispatcher, "read_file", {"path": str(tmp_path / "nope")})
    assert missing.outcome == "failed" and missing.error == f"read_file: {str(tmp_path / 'nope')!r} does not exist."
    directory = await call(dispatcher, "read_file", {"path": str(tmp_path)})
    assert directory.error == f"read_file: {str(tmp_path)!r} is a directory; use list_dir."
    not_dir = await call(dispatcher, "list_dir", {"path": str(tmp_path / "nope")})
    assert not_dir.error == f"list_dir: {str(tmp_path / 'nope')!r} does not exist."
    a_file = await call(dispatcher, "list_dir", {"path": str(target)})
    assert a_file.error == f"list_dir: {str(target)!r} is not a directory; use read_file."
    extra = await call(dispatcher, "write_file", {"path": "x", "content": "y", "mode": "a"})
    assert extra.error == (
        "tool `write_file` received invalid arguments at the top level: Additional properties are not allowed "
        '("mode" was unexpected) (schema rule `additionalProperties`).'
    )
