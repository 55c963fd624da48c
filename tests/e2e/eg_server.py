"""A real Jupyter Enterprise Gateway on 127.0.0.1 for the end-to-end tests, with a codemode
kernelspec that starts kernels through EG's own Python kernel launcher.

EG runs from the virtualenv ``scripts/install-tools.sh`` made (:mod:`enterprise_gateway`), with
an auth token, in the test's folder (the kernels' working folder too). Its kernelspec
:data:`KERNEL_NAME` (written into ``tmp_path/eg-data``, which leads ``JUPYTER_PATH``) has
``metadata.process_proxy`` EG's ``DistributedProcessProxy`` on ``localhost``: EG starts
``launch_ipykernel.py --kernel-class-name codemode.kernel.kernel.CodeModeKernel`` as a local
process, which sends its connection file, encrypted, to EG's response address (127.0.0.1) and
listens for EG's interrupts and shutdown. The launcher writes that connection file into the
kernel's ``TMPDIR``, ``tmp_path/kernel-tmp`` (:func:`connection_file`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from e2e_servers import ServerProcess, jupyter_app
from enterprise_gateway import gateway_executable, require_enterprise_gateway, write_kernelspec

TOKEN = "codemode-eg-token"
AUTH = {"Authorization": f"token {TOKEN}"}
KERNEL_NAME = "codemode_eg"
DISPLAY_NAME = "Code Mode (JavaScript) on Enterprise Gateway"


@contextlib.contextmanager
def enterprise_gateway(tmp_path: Path) -> Iterator[tuple[str, ServerProcess]]:
    """A running Enterprise Gateway: ``(base_url, ServerProcess)``; stopped with everything it
    started on leaving."""
    require_enterprise_gateway()
    data = tmp_path / "eg-data"
    write_kernelspec(data, KERNEL_NAME, DISPLAY_NAME)
    kernel_tmp = tmp_path / "kernel-tmp"
    kernel_tmp.mkdir(exist_ok=True)
    env = {
        "JUPYTER_PATH": os.pathsep.join(p for p in (str(data), os.environ.get("JUPYTER_PATH", "")) if p),
        "EG_RESPONSE_IP": "127.0.0.1",
        "EG_KERNEL_LOG_DIR": str(tmp_path),
        "TMPDIR": str(kernel_tmp),
    }
    with jupyter_app(
        tmp_path,
        "enterprisegateway",
        f"--EnterpriseGatewayApp.auth_token={TOKEN}",
        f"--EnterpriseGatewayApp.allowed_kernels=['{KERNEL_NAME}']",
        f"--EnterpriseGatewayApp.default_kernel_name={KERNEL_NAME}",
        "--EnterpriseGatewayApp.remote_hosts=['localhost']",
        "--EnterpriseGatewayApp.list_kernels=True",  # the tests check that no kernel is left
        # EG refuses kernels to root by default; the tests (and CI) may run as root.
        "--EnterpriseGatewayApp.unauthorized_users=['codemode-nobody']",
        ready_path="/api/kernelspecs",
        token=TOKEN,
        command=[str(gateway_executable())],
        env=env,
    ) as running:
        yield running


def connection_file(tmp_path: Path, kernel_id: str) -> Path:
    """The connection file EG's launcher wrote for ``kernel_id`` (``kernel-ID_*.json`` in the
    kernel's ``TMPDIR``)."""
    (found,) = (tmp_path / "kernel-tmp").glob(f"kernel-{kernel_id}_*.json")
    return found
