"""The host on a stdin or stdout that is not a pipe, as Codex's host runs on them: requests read
from a file, frames written to a file or a terminal, ``/dev/null`` or a closed descriptor as an
empty stdin (a clean end, status 0); frames that cannot be written (a full disk, a client that
stopped reading) end the host at EOF with status 1, said on stderr in Codex's words.

Before, asyncio's pipe transport refused a file (a traceback, status 1) and waited for ever on
``/dev/null``. The host is started as the client starts it (``default_host_command``)."""

from __future__ import annotations

import asyncio
import json
import os
import pty
import subprocess
import threading
import tty

import pytest
from rt_client import HostClient, text_items

from codemode.host import default_host_command
from codemode.runtime.stdio_files import OutputPump
from codemode.wire import messages
from codemode.wire.framing import PROTOCOL_VERSION, encode_frame

pytestmark = pytest.mark.timeout(60)

REQUESTS = [
    messages.hello([PROTOCOL_VERSION], []),
    messages.operation_request(1, messages.open_body("s1")),
    messages.operation_request(2, messages.shutdown_body("s1")),
]
ANSWERS = [
    {"type": "connection/ready", "selectedVersion": PROTOCOL_VERSION, "capabilities": []},
    {
        "type": "operation/response",
        "id": 1,
        "result": {"status": "ok", "value": {"type": "session/ready", "sessionId": "s1"}},
    },
    {
        "type": "operation/response",
        "id": 2,
        "result": {"status": "ok", "value": {"type": "session/closed", "sessionId": "s1"}},
    },
]


def _frames(data: bytes) -> list[dict]:
    """The messages of a stream of frames (4-byte little-endian length, JSON)."""
    found = []
    while data:
        length = int.from_bytes(data[:4], "little")
        found.append(json.loads(data[4 : 4 + length]))
        data = data[4 + length :]
    return found


def _run(shell_redirections: str, tmp_path, requests: bytes = b"") -> tuple[int, bytes, str]:
    """Run the host under ``sh`` with ``shell_redirections`` applied to it; ``requests`` are in
    ``$REQUESTS``, frames written to ``$FRAMES`` are returned (else the stdout pipe's bytes)."""
    (tmp_path / "requests.bin").write_bytes(requests)
    frames = tmp_path / "frames.bin"
    done = subprocess.run(
        ["sh", "-c", f'exec "$@" {shell_redirections}', "sh", *default_host_command()],
        capture_output=True,
        timeout=30,
        env={**os.environ, "REQUESTS": str(tmp_path / "requests.bin"), "FRAMES": str(frames)},
    )
    out = frames.read_bytes() if frames.exists() else done.stdout
    return done.returncode, out, done.stderr.decode()


def test_requests_from_a_file_and_frames_to_a_file_are_answered(tmp_path):
    requests = b"".join(encode_frame(m) for m in REQUESTS)
    status, out, stderr = _run('< "$REQUESTS" > "$FRAMES"', tmp_path, requests)
    assert (status, _frames(out)) == (0, ANSWERS), stderr


def test_requests_from_a_file_with_frames_on_a_pipe(tmp_path):
    requests = b"".join(encode_frame(m) for m in REQUESTS)
    status, out, stderr = _run('< "$REQUESTS"', tmp_path, requests)
    assert (status, _frames(out)) == (0, ANSWERS), stderr


@pytest.mark.parametrize("stdin", ["< /dev/null", "<&-", '< "$REQUESTS"'])
def test_an_empty_or_closed_stdin_is_a_clean_end(tmp_path, stdin):
    status, out, stderr = _run(stdin, tmp_path)
    assert (status, out, stderr) == (0, b"", "")


def test_frames_to_a_closed_stdout_go_nowhere(tmp_path):
    requests = b"".join(encode_frame(m) for m in REQUESTS)
    status, out, stderr = _run('< "$REQUESTS" >&-', tmp_path, requests)
    assert (status, out, stderr) == (0, b"", "")


def test_a_stdout_that_refuses_writes_ends_the_host_with_status_1(tmp_path):
    """Codex's host: ``Error: code-mode writer task failed: ...``, status 1 (the cause as Rust
    shows an ``io::Error``)."""
    requests = b"".join(encode_frame(m) for m in REQUESTS)
    status, _, stderr = _run('< "$REQUESTS" > /dev/full', tmp_path, requests)
    assert (status, stderr) == (1, WRITE_FAILED + "No space left on device (os error 28)\n")


WRITE_FAILED = "Error: code-mode writer task failed: failed to write code-mode host message: "


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        ([messages.operation_request(1, messages.open_body("s1"))], (1, WRITE_FAILED + "Broken pipe (os error 32)\n")),
        ([], (0, "")),
    ],
    ids=["a-frame-written-after", "nothing-written-after"],
)
def test_a_client_that_stops_reading(after, expected):
    """The client closes its end of the host's stdout after the handshake, sends ``after``, then
    ends stdin: a frame the host could not write makes its status 1, said on stderr (Codex's
    host does the same); with nothing written after, the end is clean. The host goes on until
    EOF either way."""
    host = subprocess.Popen(
        default_host_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert host.stdin is not None and host.stdout is not None and host.stderr is not None
    host.stdin.write(encode_frame(REQUESTS[0]))
    host.stdin.flush()
    length = int.from_bytes(host.stdout.read(4), "little")
    assert json.loads(host.stdout.read(length)) == ANSWERS[0]
    host.stdout.close()
    host.stdin.write(b"".join(encode_frame(m) for m in after))
    host.stdin.flush()
    assert host.poll() is None
    host.stdin.close()
    assert (host.wait(30), host.stderr.read().decode()) == expected


def test_a_handshake_answer_nobody_reads_ends_the_host_at_once():
    """Codex's host: the hello's answer cannot be written, so it exits at once (status 1, its
    words on stderr) though stdin stays open."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    host = subprocess.Popen(default_host_command(), stdin=subprocess.PIPE, stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    assert host.stdin is not None and host.stderr is not None
    try:
        host.stdin.write(encode_frame(REQUESTS[0]))
        host.stdin.flush()
        status = host.wait(30)
        assert (status, host.stderr.read().decode()) == (
            1,
            "Error: failed to write code-mode host hello\n\nCaused by:\n    Broken pipe (os error 32)\n",
        )
    finally:
        host.kill()
        host.stdin.close()


async def _host_on_a_terminal(env: dict[str, str]) -> HostClient:
    """Our host with stdin on a pipe and stdout on a terminal in raw mode (frames unchanged),
    read through the terminal's other side."""
    controller, terminal = pty.openpty()
    tty.setraw(terminal)
    process = await asyncio.create_subprocess_exec(
        *default_host_command(),
        stdin=asyncio.subprocess.PIPE,
        stdout=terminal,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **env},
    )
    os.close(terminal)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**31 - 1)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(controller, "rb", 0))
    process.stdout = reader
    return HostClient(process)


async def test_a_host_ending_on_its_own_delivers_its_last_answer_through_a_terminal():
    """The host that exits after a terminate it cannot carry out (status 3) writes its answer,
    8 MB of text, whole before it ends, though a thread copies its frames to the terminal."""
    host = await _host_on_a_terminal({"CODEMODE_HOST_NO_INTERRUPT": "1"})
    try:
        await host.hello()
        await host.open("s1")
        cell_id, first = await host.execute("yield_control(); text('x'.repeat(8000000)); while (true) {}")
        assert "Yielded" in first
        _, answer = host.start_request({"method": "session/terminate", "sessionId": "s1", "cellId": cell_id})
        outcome = (await asyncio.wait_for(answer, 30))["value"]["outcome"]
        assert text_items(outcome["LiveCell"]) == ["x" * 8_000_000]
        assert await asyncio.wait_for(host.process.wait(), 30) == 3
        await host.wait_for(lambda: ("s1", cell_id) in host.closed_cells)
    finally:
        if host.process.returncode is None:
            host.process.kill()
            await host.process.wait()


@pytest.mark.unit
def test_an_output_pump_delivers_what_its_pipe_holds_at_finish(tmp_path):
    """What was written into the pump's pipe before :meth:`OutputPump.finish` reaches the file,
    also more than a pipe holds (the writer waits for the pump meanwhile)."""
    data = bytes(range(256)) * 12_000  # ~3 MB, many pipe-fulls
    with open(tmp_path / "out.bin", "wb") as target:
        pump = OutputPump(target.fileno())
        writer = threading.Thread(target=lambda: os.write(pump.pipe_in, data) and None)
        writer.start()
        writer.join()
        pump.finish(10)
        os.close(pump.pipe_in)
    assert (tmp_path / "out.bin").read_bytes() == data
