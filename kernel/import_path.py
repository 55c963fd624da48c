"""The working folder off the kernel's import path.

The kernel runs in the notebook's folder. A file there named like a module that the kernel or a
library imports (``json.py``, ``mcp.py``) must not be imported into the kernel: codemode's
kernelspec runs Python with ``-P`` (the folder is not put first on ``sys.path``) and ``-E``
(``PYTHONPATH`` is ignored), and :func:`drop_working_folder` removes the entries that still name it
when the kernel was started otherwise. This module imports nothing but the standard library's
``os``, so that :mod:`codemode.kernel.__main__` can call it before anything else is imported.
"""

from __future__ import annotations

import os


def drop_working_folder(path: list[str]) -> None:
    """Remove every entry of ``path`` that names the working folder (``""`` or its absolute
    path): the one ``python -m`` puts first unless Python left it out (``-P``,
    ``PYTHONSAFEPATH``), and those an empty ``PYTHONPATH`` entry adds (``PYTHONPATH=:/opt/x``,
    as ``export PYTHONPATH=$PYTHONPATH:/opt/x`` makes it)."""
    here = os.path.abspath(os.getcwd())
    path[:] = [entry for entry in path if os.path.abspath(entry or os.curdir) != here]
