"""The Code Mode Jupyter kernel (installed as ``codemode.kernel``).

``CodeModeKernel`` lives in :mod:`codemode.kernel.kernel`; it is loaded on first access so
that importing the helper modules (magics, completion, rendering) does not import ipykernel.
Run the kernel with ``python -m codemode.kernel -f CONNECTION_FILE``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CodeModeKernel"]


def __getattr__(name: str) -> Any:
    if name == "CodeModeKernel":
        from codemode.kernel.kernel import CodeModeKernel

        return CodeModeKernel
    raise AttributeError(f"module 'codemode.kernel' has no attribute {name!r}")
