"""Jupyter Enterprise Gateway for the tests: where ``scripts/install-tools.sh`` installs it, and the
command of EG's Python kernel launcher for the codemode kernel class.

The script installs EG (``jupyter_enterprise_gateway``, :data:`EG_VERSION`) into a virtualenv of
its own, because its pins (``jupyter_server<2``, ``jupyter_client<7``, ``pyzmq<25``) conflict with
the project's, and copies EG's Python kernel launcher (``launch_ipykernel.py``, shipped only in
EG's source archive) beside it. The launcher itself runs in the kernel's environment (this one),
which needs ``pycryptodomex`` for it (the ``test`` extra installs it).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from dependencies import require

EG_VERSION = "3.3.0"
"""The Enterprise Gateway release the script installs (keep in step with ``eg_version`` there)."""

KERNEL_CLASS = "codemode.kernel.kernel.CodeModeKernel"
"""The kernel class EG's launcher is given (``--kernel-class-name``)."""


def prefix() -> Path:
    """``$CODEMODE_TOOLS_CACHE/enterprise-gateway-VERSION`` (default ``~/.cache/codemode``, or
    ``$XDG_CACHE_HOME/codemode``), as the script computes it."""
    cache = os.environ.get("CODEMODE_TOOLS_CACHE") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "codemode"
    )
    return Path(cache) / f"enterprise-gateway-{EG_VERSION}"


def gateway_executable() -> Path:
    """The ``jupyter-enterprisegateway`` command of EG's virtualenv."""
    return prefix() / "venv" / "bin" / "jupyter-enterprisegateway"


def launcher_script() -> Path:
    """EG's Python kernel launcher, ``etc/kernel-launchers/python/scripts/launch_ipykernel.py``."""
    return prefix() / "launch_ipykernel.py"


def require_enterprise_gateway() -> None:
    """Skip (fail under CI) unless the script installed EG and its launcher."""
    require(
        gateway_executable().is_file() and launcher_script().is_file(),
        f"Jupyter Enterprise Gateway {EG_VERSION} is not installed in {prefix()}",
    )


def launcher_options() -> list[str]:
    """What follows the launcher's path in a codemode kernelspec for EG (EG's own kernelspecs'
    ``argv``, ``etc/kernelspecs/python_distributed/kernel.json``, with ``--kernel-class-name``):
    EG fills in the ``{...}`` placeholders when it starts a kernel."""
    return [
        "--RemoteProcessProxy.kernel-id",
        "{kernel_id}",
        "--RemoteProcessProxy.response-address",
        "{response_address}",
        "--RemoteProcessProxy.public-key",
        "{public_key}",
        "--RemoteProcessProxy.port-range",
        "{port_range}",
        "--RemoteProcessProxy.spark-context-initialization-mode",
        "none",
        "--kernel-class-name",
        KERNEL_CLASS,
    ]


PROCESS_PROXY = "enterprise_gateway.services.processproxies.distributed.DistributedProcessProxy"
"""EG's process proxy that starts a kernel with its launcher on one of its ``remote_hosts``
(``localhost``: a local process, no ssh), answering on EG's response address."""


def kernelspec(display_name: str) -> dict[str, Any]:
    """An EG kernelspec for the codemode kernel class: EG's launcher run by this environment's
    Python, the codemode kernelspec's ``env`` and interrupt mode, :data:`PROCESS_PROXY`."""
    return {
        "display_name": display_name,
        "language": "javascript",
        "interrupt_mode": "signal",
        "env": {"PYDEVD_DISABLE_FILE_VALIDATION": "1"},
        "metadata": {"process_proxy": {"class_name": PROCESS_PROXY}, "debugger": False},
        "argv": [sys.executable, str(launcher_script()), *launcher_options()],
    }


def write_kernelspec(data_dir: Path, name: str, display_name: str) -> Path:
    """Write :func:`kernelspec` as ``data_dir/kernels/NAME/kernel.json`` (``data_dir`` is then
    a ``JUPYTER_PATH`` entry); returns the kernelspec's folder."""
    folder = data_dir / "kernels" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(kernelspec(display_name), indent=2) + "\n")
    return folder
