"""``read_file``, ``list_dir`` and ``write_file`` on what is not a plain file: pipes and devices
are refused without blocking, files over ``MAX_READ_BYTES`` are refused, and Jupyter's runtime
files are out of reach (``read_checked`` directly, and the built-ins through the dispatcher)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from sandbox_helpers import call

from codemode.config import SandboxSettings
from codemode.sandbox.files import MAX_READ_BYTES, WriteRefused, read_checked
from codemode.sandbox.policy import SandboxPolicy

pytestmark = pytest.mark.unit

CALL_TIMEOUT_S = 30.0
"""A blocked open or read would hang the call for ever; this bounds the test instead."""

TOO_BIG = "is larger than 8 MiB; read part of it with exec_command (head, tail, sed -n)."
NOT_REGULAR_READ = "is not a regular file (a pipe, device or socket); read it with exec_command."
NOT_REGULAR_WRITE = "is not a regular file (a pipe, device or socket); it was not written."
OUT_OF_REACH = "Jupyter's runtime files and the kernel's history are out of cells' reach."


def workspace_write(ws, hidden=()):
    policy = SandboxPolicy.from_settings(SandboxSettings(exclude_slash_tmp=True), ws, {})
    return policy.with_protection(hidden=hidden)


def test_max_read_bytes_is_8_mib():
    assert MAX_READ_BYTES == 8 * 1024 * 1024


def test_reads_a_file_of_exactly_the_limit(ws):
    (ws / "f.bin").write_bytes(b"a" * MAX_READ_BYTES)
    assert read_checked(workspace_write(ws), ws / "f.bin") == b"a" * MAX_READ_BYTES


def test_refuses_a_file_one_byte_over_the_limit(ws):
    (ws / "f.bin").write_bytes(b"a" * (MAX_READ_BYTES + 1))
    with pytest.raises(WriteRefused) as refused:
        read_checked(workspace_write(ws), ws / "f.bin")
    assert str(refused.value) == f"{str(ws / 'f.bin')!r} {TOO_BIG}"


def test_a_relative_path_is_read_from_the_working_folder(ws, monkeypatch):
    (ws / "f.txt").write_bytes(b"hi")
    monkeypatch.chdir(ws)
    assert read_checked(workspace_write(ws), Path("f.txt")) == b"hi"


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null"])
def test_refuses_devices(ws, path):
    with pytest.raises(WriteRefused) as refused:
        read_checked(workspace_write(ws), Path(path))
    assert str(refused.value) == f"{path!r} {NOT_REGULAR_READ}"


def test_refuses_a_pipe_without_blocking(ws):
    os.mkfifo(ws / "pipe")
    with pytest.raises(WriteRefused) as refused:
        read_checked(workspace_write(ws), ws / "pipe")
    assert str(refused.value) == f"{str(ws / 'pipe')!r} {NOT_REGULAR_READ}"


def test_a_directory_raises_is_a_directory(ws):
    with pytest.raises(IsADirectoryError):
        read_checked(workspace_write(ws), ws)


def test_refuses_hidden_files_also_through_a_symlink(ws, tmp_path):
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "kernel-1.json").write_text('{"key": "secret"}')
    (ws / "link.json").symlink_to(runtime / "kernel-1.json")
    for path in (runtime / "kernel-1.json", ws / "link.json", runtime):
        with pytest.raises(WriteRefused) as refused:
            read_checked(workspace_write(ws, hidden=(runtime,)), path)
        assert str(refused.value) == f"{str(path.resolve())!r} cannot be read: {OUT_OF_REACH}"


def test_without_hidden_paths_anything_readable_is_read(ws, tmp_path):
    (tmp_path / "elsewhere.txt").write_text("x")
    assert read_checked(workspace_write(ws), tmp_path / "elsewhere.txt") == b"x"


@pytest.fixture
async def dispatcher(dispatchers, tmp_path, monkeypatch):
    """Built-ins whose sandbox hides a Jupyter runtime folder holding a connection file."""
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    (runtime / "kernel-1.json").write_text('{"key": "secret"}')
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(runtime))
    return await dispatchers.make()


async def failed(dispatcher, name, args) -> str:
    result = await asyncio.wait_for(call(dispatcher, name, args), CALL_TIMEOUT_S)
    assert result.outcome == "failed", result.value
    return result.error


async def test_read_file_refuses_a_pipe_without_blocking(dispatcher, ws):
    os.mkfifo(ws / "pipe")
    assert (
        await failed(dispatcher, "read_file", {"path": "pipe"}) == f"read_file: {str(ws / 'pipe')!r} {NOT_REGULAR_READ}"
    )


async def test_write_file_refuses_a_pipe_with_a_reader_without_blocking(dispatcher, ws):
    os.mkfifo(ws / "pipe")
    reader = os.open(ws / "pipe", os.O_RDONLY | os.O_NONBLOCK)
    try:
        error = await failed(dispatcher, "write_file", {"path": "pipe", "content": "x"})
        assert (error, os.read(reader, 10)) == (f"write_file: {str(ws / 'pipe')!r} {NOT_REGULAR_WRITE}", b"")
    finally:
        os.close(reader)


async def test_write_file_refuses_a_pipe_without_a_reader_without_blocking(dispatcher, ws):
    os.mkfifo(ws / "pipe")
    error = await failed(dispatcher, "write_file", {"path": "pipe", "content": "x"})
    assert error == f"write_file: {str(ws / 'pipe')!r} {NOT_REGULAR_WRITE}"


async def test_read_file_refuses_dev_zero(dispatcher):
    assert await failed(dispatcher, "read_file", {"path": "/dev/zero"}) == f"read_file: '/dev/zero' {NOT_REGULAR_READ}"


async def test_read_file_refuses_a_file_over_8_mib_and_reads_one_at_the_limit(dispatcher, ws):
    (ws / "big.txt").write_bytes(b"a" * (MAX_READ_BYTES + 1))
    (ws / "fits.txt").write_bytes(b"a" * MAX_READ_BYTES)
    assert await failed(dispatcher, "read_file", {"path": "big.txt"}) == f"read_file: {str(ws / 'big.txt')!r} {TOO_BIG}"
    result = await call(dispatcher, "read_file", {"path": "fits.txt"})
    assert (result.outcome, len(result.value["content"])) == ("completed", MAX_READ_BYTES)


async def test_read_file_on_a_folder_says_to_use_list_dir(dispatcher, ws):
    (ws / "sub").mkdir()
    assert await failed(dispatcher, "read_file", {"path": "sub"}) == "read_file: 'sub' is a directory; use list_dir."


async def test_the_file_builtins_refuse_jupyters_runtime_folder(dispatcher, ws, tmp_path):
    runtime = tmp_path / "runtime"
    connection = runtime / "kernel-1.json"
    (ws / "rt").symlink_to(runtime)
    assert await failed(dispatcher, "read_file", {"path": str(connection)}) == (
        f"read_file: {str(connection)!r} cannot be read: {OUT_OF_REACH}"
    )
    assert await failed(dispatcher, "read_file", {"path": "rt/kernel-1.json"}) == (
        f"read_file: {str(connection)!r} cannot be read: {OUT_OF_REACH}"
    )
    for path in (str(runtime), "rt"):  # named as resolved, like read_file's
        assert await failed(dispatcher, "list_dir", {"path": path}) == (
            f"list_dir: {str(runtime)!r} cannot be listed: {OUT_OF_REACH}"
        )
    assert await failed(dispatcher, "write_file", {"path": "rt/kernel-2.json", "content": "{}"}) == (
        f"write_file: {str(runtime / 'kernel-2.json')!r} cannot be written: {OUT_OF_REACH}"
    )
    assert sorted(p.name for p in runtime.iterdir()) == ["kernel-1.json"]
    assert connection.read_text() == '{"key": "secret"}'
