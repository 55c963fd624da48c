"""``python -m codemode COMMAND``: the package's command line.

Commands: ``install`` (the kernelspec; see :mod:`codemode.install`), ``run NOTEBOOK``
(execute a notebook headless with the codemode kernel and print its outputs; see
:mod:`codemode.notebook`) and ``kernel`` (run the kernel itself, the same as
``python -m codemode.kernel``).
"""

from __future__ import annotations

import sys

USAGE = (
    "usage: python -m codemode install [--user | --sys-prefix | --prefix P] [--name N] "
    "[--display-name D]\n"
    "       python -m codemode run NOTEBOOK [--save-to PATH] [--timeout SECONDS]\n"
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
    if command == "run":
        return _run(rest)
    if command == "kernel":
        from codemode.kernel.__main__ import main as kernel_main

        kernel_main(rest)
        return 0
    print(f"Unknown command {command!r}.\n{USAGE}", file=sys.stderr)
    return 2


def _run(argv: list[str]) -> int:
    """``run NOTEBOOK``: execute the notebook and print each cell with its outputs."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m codemode run",
        description="Execute a notebook with the codemode kernel and print its outputs.",
    )
    parser.add_argument("notebook", help="the .ipynb file to execute")
    parser.add_argument("--save-to", metavar="PATH", help="also write the executed notebook here")
    parser.add_argument("--timeout", type=int, default=300, metavar="SECONDS", help="limit per cell")
    args = parser.parse_args(argv)
    from codemode.notebook import run_notebook

    try:
        return run_notebook(args.notebook, save_to=args.save_to, timeout_s=args.timeout)
    except FileNotFoundError as exc:
        print(f"The notebook could not be read: {exc}.", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
