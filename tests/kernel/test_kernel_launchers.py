"""The kernel class keeps its process's protections when a launcher other than codemode's starts
it with ipykernel's plain ``IPKernelApp`` (``codemode.kernel.protections``).

Two such launchers, each started in a folder that also holds a Python tool module (named in
``codemode.toml``) and a file shadowing a module the kernel imports only after it was created
(``jsonschema.py``, which raises on import):

- ``ipykernel_launcher``: ``python -m ipykernel_launcher -f CONNECTION_FILE
  --IPKernelApp.kernel_class=codemode.kernel.kernel.CodeModeKernel``, without ``-P`` (a
  kernelspec written by hand): the working folder is first on ``sys.path``;
- ``enterprise-gateway``: Jupyter Enterprise Gateway's Python kernel launcher
  (``launch_ipykernel.py CONNECTION_FILE --kernel-id ID --public-key KEY --kernel-class-name
  codemode.kernel.kernel.CodeModeKernel``, as EG's kernelspecs run it, without the response
  address that only EG answers), which writes the connection file itself; the environment's
  ``PYTHONPATH=:`` puts the working folder on ``sys.path`` there.

Each protection is checked through the Jupyter protocol: a tool's output holding lone
surrogates arrives with U+FFFD (the packer); a flood of display messages reaches a slow second
IOPub subscriber whole (the high-water mark and ``XPUB_NODROP``); a tool reports the process's
output streams (``KernelOutStream``) and that the working folder is not on ``sys.path``, and
every request (checked with ``jsonschema``) runs beside the shadow.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from enterprise_gateway import KERNEL_CLASS, launcher_script, require_enterprise_gateway
from jupyter_client.blocking import BlockingKernelClient
from jupyter_client.manager import KernelManager
from kernel_driver import SURROGATE_TOOLS, TIMEOUT_S, SlowSubscriber, collect, execute, send_execute
from protocol_checks import FLOOD_PAYLOAD, display_flood

pytestmark = pytest.mark.timeout(180)

SHADOWS = ("jsonschema",)
"""Modules the kernel imports only after it was created (the request checks' schemas)."""

TOOLS = (
    "import os\nimport sys\n\nimport codemode\n"
    + SURROGATE_TOOLS
    + '''

@codemode.tool
def process_state() -> dict:
    """The kernel process's output stream classes, the sys.path entries naming the working
    folder and whether jsonschema was imported."""
    here = os.path.abspath(os.getcwd())
    return {
        "stdout": type(getattr(sys.stdout, "original", sys.stdout)).__name__,
        "stderr": type(getattr(sys.stderr, "original", sys.stderr)).__name__,
        "working_folder_on_path": [p for p in sys.path if os.path.abspath(p or os.curdir) == here],
        "jsonschema": "jsonschema" in sys.modules,
    }
'''
)

CONNECTION_FILE_WAIT_S = 60.0
"""Upper bound (seconds) for EG's launcher to write the connection file."""


@dataclass
class Launched:
    """A kernel started by another launcher: its client (channels started) and working folder."""

    kc: BlockingKernelClient
    cwd: Path


@contextlib.contextmanager
def ipykernel_launcher(cwd: Path, env: dict[str, str]) -> Iterator[Launched]:
    """The kernel class under ``python -m ipykernel_launcher`` (the codemode kernelspec's
    environment, no ``-E``/``-P``); shut down on leaving."""
    km = KernelManager(kernel_name="codemode")
    km.kernel_spec.argv = [
        sys.executable,
        "-m",
        "ipykernel_launcher",
        "-f",
        "{connection_file}",
        f"--IPKernelApp.kernel_class={KERNEL_CLASS}",
    ]
    km.start_kernel(cwd=str(cwd), env=env)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=TIMEOUT_S)
        yield Launched(kc, cwd)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)


def _connection_info(path: Path, launcher: subprocess.Popen[bytes], log: Path) -> dict[str, Any]:
    """The connection file EG's launcher writes at ``path`` (it picks the ports and the key),
    once it is complete; ``AssertionError`` with the launcher's log when it exits or takes
    longer than :data:`CONNECTION_FILE_WAIT_S`."""
    end = time.monotonic() + CONNECTION_FILE_WAIT_S
    while time.monotonic() < end:
        assert launcher.poll() is None, f"EG's launcher exited ({launcher.returncode}):\n{log.read_text()}"
        with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
            info = json.loads(path.read_text())
            if info.get("key"):
                return info
        time.sleep(0.05)
    raise AssertionError(f"EG's launcher wrote no connection file in {CONNECTION_FILE_WAIT_S} s:\n{log.read_text()}")


@contextlib.contextmanager
def enterprise_gateway_launcher(cwd: Path, env: dict[str, str]) -> Iterator[Launched]:
    """The kernel class under EG's ``launch_ipykernel.py`` with ``--kernel-class-name``, its
    environment's ``PYTHONPATH`` starting with an empty entry; shut down on leaving."""
    require_enterprise_gateway()
    connection_file = cwd / "eg-kernel.json"
    log = cwd / "eg-launcher.log"
    argv = [
        sys.executable,
        str(launcher_script()),
        str(connection_file),
        "--kernel-id",
        str(uuid.uuid4()),
        "--public-key",
        "unused-without-a-response-address",
        "--RemoteProcessProxy.spark-context-initialization-mode",
        "none",
        "--kernel-class-name",
        KERNEL_CLASS,
    ]
    with open(log, "wb") as out:
        launcher = subprocess.Popen(
            argv,
            cwd=cwd,
            env={**env, "PYTHONPATH": ":/nonexistent-codemode-path"},
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        kc = BlockingKernelClient()
        kc.load_connection_info(_connection_info(connection_file, launcher, log))
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=TIMEOUT_S)
            yield Launched(kc, cwd)
        finally:
            kc.shutdown()
            kc.stop_channels()
            launcher.wait(TIMEOUT_S)
    finally:
        if launcher.poll() is None:
            launcher.kill()
            launcher.wait()


LAUNCHERS = {"ipykernel_launcher": ipykernel_launcher, "enterprise-gateway": enterprise_gateway_launcher}


@pytest.fixture(scope="module", params=sorted(LAUNCHERS))
def launched(request, codemode_kernelspec, tmp_path_factory) -> Iterator[Launched]:
    folder = tmp_path_factory.mktemp(f"launched-{request.param}")
    for name in SHADOWS:
        (folder / f"{name}.py").write_text(
            f'raise ImportError("the shadow {name}.py in the working folder was imported")\n'
        )
    (folder / "launched_tools.py").write_text(TOOLS)
    (folder / "codemode.toml").write_text('[python_tools]\nmodules = ["launched_tools"]\n')
    env = {k: v for k, v in os.environ.items() if k not in ("CODEMODE_CONFIG", "CODEMODE_PROFILE", "CODEMODE_ENGINE")}
    with LAUNCHERS[request.param](folder, env) as kernel:
        yield kernel


def test_output_holding_lone_surrogates_arrives_with_replacement_characters(launched):
    run = execute(launched.kc, 'text("first");\ntext(await tools.print_surrogate());\ntext("last");')
    assert run.content["status"] == "ok", run.content
    assert run.codemode["status"] == "completed"
    assert run.stdout == "printed \ufffd here\nfirst\nok\nlast\n"
    assert run.stderr_messages == ["warned \ufffd here\n"]
    described = execute(launched.kc, "%tools doc_surrogate")
    assert described.content["status"] == "ok", described.content
    assert "doc_surrogate: Docstring with a lone surrogate \ufffd in it." in described.stdout


@pytest.mark.parametrize("launched", ["enterprise-gateway"], indirect=True)  # the same kernel init either way
def test_a_flood_of_displays_reaches_a_slow_subscriber_whole_and_in_order(launched):
    count = 1200  # more than ZeroMQ's default high-water mark, 8 KiB each (more than the socket buffers hold)
    subscriber = SlowSubscriber(launched, delay_s=0.002)
    try:
        subscriber.wait_subscribed(launched.kc)
        msg_id = send_execute(launched.kc, display_flood(count))
        subscriber.start(msg_id)
        fast = collect(launched.kc, msg_id, timeout=120)
        received = subscriber.result()
    finally:
        subscriber.close()
    assert fast.content["status"] == "ok", fast.content
    for messages in (fast.messages, received):
        assert [m["msg_type"] for m in messages] == ["display_data"] * count
        assert all(m["content"]["data"]["image/png"] == FLOOD_PAYLOAD for m in messages)


def test_the_process_has_the_kernel_streams_and_imports_nothing_from_its_folder(launched):
    state = execute(launched.kc, "text(JSON.stringify(await tools.process_state()))")
    assert state.content["status"] == "ok", state.content
    assert json.loads(state.stdout) == {
        "stdout": "KernelOutStream",
        "stderr": "KernelOutStream",
        "working_folder_on_path": [],
        "jsonschema": True,  # imported after the kernel was created, not from its shadow
    }
