"""What a benchmark ran on: CPU, cores, kernel, Python, the engines' and peers' versions, load."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import subprocess
from importlib import metadata

PACKAGES = ("quickjs-ng", "ipykernel", "mini-racer")
"""Python packages whose versions a result depends on (the engines, the Python peer)."""


def cpu_model() -> str:
    """The ``model name`` of ``/proc/cpuinfo`` (``platform.processor()`` where there is none)."""
    with contextlib.suppress(OSError):
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def versions() -> dict[str, str]:
    """Version of each package of :data:`PACKAGES` (``"missing"`` when not installed)."""
    found = {}
    for package in PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            found[package] = "missing"
    return found


def deno_version() -> str | None:
    """``deno --version``'s first line, or None when ``deno`` is not on ``PATH``."""
    deno = shutil.which("deno")
    if deno is None:
        return None
    done = subprocess.run([deno, "--version"], capture_output=True, text=True, timeout=30)
    return done.stdout.splitlines()[0] if done.stdout else "deno (version unknown)"


def describe() -> str:
    """One line: CPU model, cores, OS kernel, Python and package versions (and Deno's if present)."""
    parts = [
        cpu_model(),
        f"{os.cpu_count()} cores",
        f"Linux {platform.release()}" if platform.system() == "Linux" else platform.platform(),
        f"Python {platform.python_version()}",
        *(f"{name} {version}" for name, version in versions().items()),
    ]
    deno = deno_version()
    if deno:
        parts.append(deno)
    return ", ".join(parts)


def load() -> str:
    """The 1, 5 and 15 minute load averages (``os.getloadavg``), e.g. ``"0.52 0.61 0.70"``."""
    return " ".join(f"{value:.2f}" for value in os.getloadavg())
