"""``python -m codemode.kernel -f CONNECTION_FILE``: launch the Code Mode kernel.

This is the command in the kernelspec's ``argv`` (see ``kernel.json``), run with Python's
``-P`` so that the notebook's folder (the kernel's working folder) is not put first on
``sys.path``: a file there named like a module the kernel or a library imports (``json.py``,
``regex.py``) must not be imported into the kernel. Started without ``-P`` (by hand, or from
an older kernelspec), :func:`main` removes that entry itself before the kernel starts.
"""

from __future__ import annotations

import os
import sys


def drop_working_folder(path: list[str]) -> None:
    """Remove the entry ``python -m`` puts first on ``path`` for the working folder (``""``
    or its absolute path), unless Python already left it out (``-P``, ``PYTHONSAFEPATH``)."""
    if sys.flags.safe_path or not path:
        return
    if os.path.abspath(path[0] or os.curdir) == os.path.abspath(os.getcwd()):
        del path[0]


def main(argv: list[str] | None = None) -> None:
    """Start the kernel application (:mod:`codemode.kernel.app`) running
    :class:`codemode.kernel.kernel.CodeModeKernel`.

    ``argv`` defaults to ``sys.argv[1:]``. Returns when the kernel shuts down.
    """
    drop_working_folder(sys.path)
    from codemode.kernel.app import launch

    launch(argv)


if __name__ == "__main__":
    main()
