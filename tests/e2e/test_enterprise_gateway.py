"""The codemode kernel on a real Jupyter Enterprise Gateway, started by EG's own kernel launcher.

One EG (``eg_server.py``) serves the module; its kernels run in the test's folder, where a
``codemode.toml`` names a Python tool module. Over EG's REST API and a kernel's websocket: a
completing cell, a yielded cell and ``%wait``, output holding lone surrogates (arriving as
U+FFFD), the process's output streams, and a flood of displays read by a slow subscriber
connected straight to the kernel's IOPub socket (from the connection file EG's launcher wrote):
nothing dropped. Through ``codemode.gateway.run_on_gateway`` (jupyter_server's gateway client
under nbclient): a notebook whose yielded cell is waited for and whose last cell loads what the
first stored, and a failing notebook; and ``python -m codemode run --gateway-url`` with the
mixed batch of ``test_batch_run.py`` (the processes of each run are recorded while it runs). When the module ends, EG is stopped and no process it
started (launcher, its listener, kernel, runtime host) is left.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import threading
from types import SimpleNamespace

import nbformat
import psutil
import pytest
import requests
from batch_notebooks import MIXED_ARGS, MIXED_COUNTS, MIXED_DETAILS, MIXED_ROWS, mixed_batch, summary_rows
from e2e_servers import POLL_S, cmdline, open_channels, wait_for, ws_execute
from eg_server import AUTH, DISPLAY_NAME, KERNEL_NAME, TOKEN, connection_file, enterprise_gateway
from jupyter_client.blocking import BlockingKernelClient
from protocol_checks import SURROGATE_TOOLS, SlowSubscriber, display_flood

from codemode.gateway import run_on_gateway

pytestmark = pytest.mark.timeout(180)

TOOLS = (
    "import os\nimport sys\n\nimport codemode\n"
    + SURROGATE_TOOLS
    + '''

@codemode.tool
def stream_classes() -> list:
    """The class names of the kernel process's sys.stdout and sys.stderr."""
    return [type(getattr(s, "original", s)).__name__ for s in (sys.stdout, sys.stderr)]


@codemode.tool
def kernel_pid() -> int:
    """The kernel process's id (Python tools run in the kernel's process)."""
    return os.getpid()
'''
)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory):
    """``(base_url, server, folder)`` of a running EG; on teardown EG is stopped (SIGTERM) and
    every process it started must be gone."""
    folder = tmp_path_factory.mktemp("enterprise-gateway")
    (folder / "eg_tools.py").write_text(TOOLS)
    (folder / "codemode.toml").write_text('[python_tools]\nmodules = ["eg_tools"]\n')
    with enterprise_gateway(folder) as (base, server):
        yield base, server, folder
        assert server.terminate() is not None, f"EG ignored SIGTERM; output:\n{server.output()}"
        server.assert_all_gone()


def _slow_subscriber(folder, kernel_id):
    """A slow IOPub subscriber and a client connected straight to the kernel's sockets."""
    info = json.loads(connection_file(folder, kernel_id).read_text())
    info["ip"] = "127.0.0.1"  # the launcher binds 0.0.0.0
    kc = BlockingKernelClient()
    kc.load_connection_info(info)
    kc.start_channels()
    return kc, SlowSubscriber(SimpleNamespace(kc=kc), delay_s=0.002)


def test_eg_launches_the_kernel_class_with_its_protections(gateway):
    base, server, folder = gateway
    specs = requests.get(f"{base}/api/kernelspecs", headers=AUTH, timeout=5).json()["kernelspecs"]
    spec = specs[KERNEL_NAME]["spec"]
    assert spec["display_name"] == DISPLAY_NAME
    assert spec["metadata"]["process_proxy"]["class_name"].endswith("DistributedProcessProxy")

    created = requests.post(f"{base}/api/kernels", headers=AUTH, json={"name": KERNEL_NAME}, timeout=60)
    assert created.status_code == 201, created.text
    kernel_id = created.json()["id"]
    ws = open_channels(base, kernel_id, TOKEN)
    try:
        done = ws_execute(ws, 'text("via enterprise gateway")')
        assert done.reply["content"]["status"] == "ok", done.reply["content"]
        assert done.stdout == "via enterprise gateway\n"
        server.remember()

        yielded = ws_execute(ws, '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 1000});\ntext("slept");\n')
        assert yielded.reply["metadata"]["codemode"]["status"] == "running"
        waited = ws_execute(ws, "%wait")
        assert waited.reply["metadata"]["codemode"]["status"] == "completed"
        assert waited.stdout == "slept\n"

        surrogates = ws_execute(ws, "text(await tools.print_surrogate())")
        assert surrogates.reply["content"]["status"] == "ok", surrogates.reply["content"]
        assert surrogates.stdout == "printed \ufffd here\nok\n"
        assert [m["content"]["text"] for m in surrogates.of_type("stream") if m["content"]["name"] == "stderr"] == [
            "warned \ufffd here\n"
        ]
        streams = ws_execute(ws, "text(JSON.stringify(await tools.stream_classes()))")
        assert streams.stdout == '["KernelOutStream","KernelOutStream"]\n'
        server.remember()
        started = "\n".join(server.commands.values())
        assert "launch_ipykernel.py" in started and "codemode.runtime" in started, started
    finally:
        ws.close()

    kc, slow = _slow_subscriber(folder, kernel_id)
    try:
        slow.wait_subscribed(kc)
        msg_id = kc.execute(display_flood(1200))
        slow.start(msg_id)
        reply = kc.get_shell_msg(timeout=120)
        received = slow.result()
    finally:
        slow.close()
        kc.stop_channels()
    assert reply["parent_header"]["msg_id"] == msg_id
    assert reply["content"]["status"] == "ok", reply["content"]
    assert [m["msg_type"] for m in received] == ["display_data"] * 1200

    deleted = requests.delete(f"{base}/api/kernels/{kernel_id}", headers=AUTH, timeout=30)
    assert deleted.status_code == 204, deleted.text


@contextlib.contextmanager
def watching(server):
    """Record ``server``'s descendants every :data:`e2e_servers.POLL_S` while the block runs (a
    run's kernel comes and goes inside it), so that the module's teardown checks them too;
    yields the new command lines seen, filled in when the block ends."""
    seen: list[str] = []
    before = set(server.commands)
    stop = threading.Event()

    def poll() -> None:
        while not stop.wait(POLL_S):
            server.remember()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()
        seen.extend(command for pid, command in server.commands.items() if pid not in before)


def kernels_on(base):
    """The ids of the kernels EG runs."""
    return [kernel["id"] for kernel in requests.get(f"{base}/api/kernels", headers=AUTH, timeout=5).json()]


def _notebook(path, *sources):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": DISPLAY_NAME, "language": "javascript"}
    nbformat.write(nb, path)
    return path


def _stdout(cell) -> str:
    return "".join(o["text"] for o in cell.outputs if o["output_type"] == "stream" and o["name"] == "stdout")


def test_run_on_gateway_executes_a_notebook_with_a_yield_and_a_wait(gateway, tmp_path):
    base, server, _ = gateway
    path = _notebook(
        tmp_path / "waits.ipynb",
        'store("answer", 42); text("stored")',
        '// @exec: {"yield_time_ms": 100}\nawait tools.sleep({ms: 1000}); text("slept")',
        "%wait",
        'text(load("answer"))',
        "text(await tools.print_surrogate())",
    )
    with watching(server) as started:
        run = run_on_gateway(path, base, TOKEN, timeout_s=60)
    assert any("launch_ipykernel.py" in command for command in started), started
    assert kernels_on(base) == []
    assert (run.failure, run.timed_out) == (None, False)
    assert [_stdout(cell) for cell in run.nb.cells] == [
        "stored\n",
        "",
        "slept\n",
        "42\n",
        "printed \ufffd here\nok\n",
    ]


def test_run_on_gateway_reports_a_failing_cell(gateway, tmp_path):
    base, server, _ = gateway
    path = _notebook(tmp_path / "fails.ipynb", 'text("before")', 'throw new Error("boom on the gateway")', 'text("x")')
    with watching(server):
        run = run_on_gateway(path, base, TOKEN, timeout_s=60)
    assert "boom on the gateway" in run.failure
    assert kernels_on(base) == []
    assert [_stdout(cell) for cell in run.nb.cells] == ["before\n", "", ""]


def test_the_mixed_batch_with_gateway_url_gives_the_local_summary(gateway, tmp_path):
    """``python -m codemode run ... --gateway-url URL --jobs 2`` on the mixed batch of
    ``test_batch_run.py``: each notebook's kernel on EG, the killed notebook's kernel (its pid,
    which its first cell writes into a marker in the kernels' working folder) killed from here,
    the same summary as a local batch, the executed notebooks saved here, no kernel left on EG."""
    base, server, folder = gateway
    marker = mixed_batch(tmp_path, KERNEL_NAME, folder / f"{tmp_path.name}-started", "String(await tools.kernel_pid())")
    saved = tmp_path / "saved"
    argv = [sys.executable, "-m", "codemode", "run", *MIXED_ARGS, "--gateway-url", base, "--jobs", "2"]
    with watching(server) as started:
        command = subprocess.Popen(
            [*argv, "--save-to", str(saved)],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "JUPYTER_GATEWAY_AUTH_TOKEN": TOKEN},
        )
        wait_for(lambda: marker.exists() and marker.read_text(), "the notebook to be killed to start", 180)
        kernel = psutil.Process(int(marker.read_text()))
        assert "launch_ipykernel.py" in cmdline(kernel)
        kernel.kill()
        stdout, stderr = command.communicate(timeout=180)
    assert command.returncode == 1, stdout + stderr
    assert summary_rows(stdout) == MIXED_ROWS, stdout + stderr
    assert stdout.endswith(MIXED_COUNTS), stdout
    for detail in MIXED_DETAILS:
        assert detail in stdout, (detail, stdout)
    stored = nbformat.read(saved / "b_store.ipynb", 4)
    assert [[o.get("text") for o in cell.outputs] for cell in stored.cells] == [[], ["42\n"]]
    kernel_ids = {re.search(r"--RemoteProcessProxy\.kernel-id (\S+)", c) for c in started if "launch_ipykernel.py" in c}
    assert len({match.group(1) for match in kernel_ids if match}) == 7, started  # all but the unreadable one
    assert kernels_on(base) == []
    assert [cmdline(p) for p in server.remember() if "launch_ipykernel.py" in cmdline(p)] == []
