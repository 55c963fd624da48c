"""``python -m codemode COMMAND``: the package's command line.

Commands: ``install`` (the kernelspec; see :mod:`codemode.install`) and ``kernel`` (run the
kernel itself, the same as ``python -m codemode.kernel``; used by kernelspecs that say
``-m codemode kernel``).
"""

from __future__ import annotations

import sys

USAGE = (
    "usage: python -m codemode install [--user | --sys-prefix | --prefix P] [--name N] "
    "[--display-name D]\n"
    "       python -m codemode kernel -f CONNECTION_FILE"
)


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a command; returns the exit status (2 for a usage error)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if args else 2
    command, rest = args[0], args[1:]
    if command == "install":
        from codemode.install import main as install_main

        return install_main(rest)
    if command == "kernel":
        from codemode.kernel.__main__ import main as kernel_main

        kernel_main(rest)
        return 0
    print(f"Unknown command {command!r}.\n{USAGE}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
