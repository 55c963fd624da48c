"""``python -m codemode.kernel -f CONNECTION_FILE``: launch the Code Mode kernel.

This is the command in the kernelspec's ``argv`` (see ``kernel.json``).
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> None:
    """Start an ``IPKernelApp`` running :class:`codemode.kernel.kernel.CodeModeKernel`.

    ``argv`` defaults to ``sys.argv[1:]``. Returns when the kernel shuts down.
    """
    from codemode.kernel.kernel import CodeModeKernel
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(argv=argv, kernel_class=CodeModeKernel)


if __name__ == "__main__":
    main()
