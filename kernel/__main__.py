"""``python -m codemode.kernel -f CONNECTION_FILE``: launch the Code Mode kernel.

This is the command in the kernelspec's ``argv`` (see ``kernel.json``), run with Python's
``-P`` so that the notebook's folder (the kernel's working folder) is not put first on
``sys.path``: a file there named like a module the kernel or a library imports (``json.py``,
``regex.py``) must not be imported into the kernel. ``-E`` keeps ``PYTHONPATH`` (and the other
``PYTHON*`` variables) out too: an empty entry in it names the working folder, and Python
imports ``sitecustomize`` from the path before any code of the kernel runs. Started without ``-P`` (by hand, or from
an older kernelspec), or with an empty ``PYTHONPATH`` entry, :func:`main` removes those
entries itself before the kernel starts (:mod:`codemode.kernel.import_path`).
"""

from __future__ import annotations

import sys

from codemode.kernel.import_path import drop_working_folder


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
