"""Install the codemode kernelspec: ``python -m codemode install [options]``.

The template is the repository's ``kernel.json`` (shipped inside the package as
``codemode/kernel/resources/kernel.json``). The installer writes a copy whose ``argv[0]`` is
the absolute ``sys.executable`` (so the kernel runs in the environment it was installed from),
applies ``--display-name``, adds the three logos and hands the folder to
``jupyter_client.kernelspec.KernelSpecManager.install_kernel_spec``
(the kernelspec format of Jupyter's "Kernel specs" documentation; the option set follows
``python -m ipykernel install``).

Where it goes: ``--user`` (the user's Jupyter data dir), ``--sys-prefix`` (``sys.prefix``),
``--prefix P``. With none of them, the kernel goes to ``sys.prefix`` when running inside a
virtual environment and to the user's data dir otherwise, so a plain ``python -m codemode
install`` never needs root.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from codemode.config.session_defaults import ENGINES, NOTEBOOK_ENGINES, PROFILES, combination_problem

DEFAULT_NAME = "codemode"
DEFAULT_DISPLAY_NAME = "Code Mode (JavaScript)"
V8_NAME = "codemode-v8"
V8_DISPLAY_NAME = "Code Mode (JavaScript, V8)"
NOTEBOOK_NAME = "codemode-notebook"
NOTEBOOK_DISPLAY_NAME = "Code Mode Notebook (JavaScript)"


@dataclass(frozen=True)
class Kernelspec:
    """One of the kernelspecs ``install`` names by default: its kernel ``name``, the
    ``display_name`` launchers show, and the ``engine`` / ``profile`` its env chooses (None:
    the config's)."""

    name: str
    display_name: str
    engine: str | None = None
    profile: str | None = None


KERNELSPECS = (
    Kernelspec(DEFAULT_NAME, DEFAULT_DISPLAY_NAME),
    Kernelspec(V8_NAME, V8_DISPLAY_NAME, engine="v8"),
    Kernelspec(NOTEBOOK_NAME, NOTEBOOK_DISPLAY_NAME, profile="notebook"),
)
"""The kernelspecs ``install`` writes by default: plain, ``--engine v8`` and ``--profile
notebook`` (the notebook profile does not run on V8 yet, :data:`NOTEBOOK_ENGINES`)."""
KERNEL_NAMES = tuple(spec.name for spec in KERNELSPECS)
"""Their names."""


def default_kernelspec(engine: str | None = None, profile: str | None = None) -> Kernelspec:
    """The kernelspec ``install --engine engine --profile profile`` writes when given no
    ``--name`` / ``--display-name``: named after the choices that differ from the defaults
    (``v8``, ``notebook``), with ``engine`` and ``profile`` as given (None: the config's).

    Raises :class:`InstallError` for a combination that cannot run (:data:`NOTEBOOK_ENGINES`).
    """
    if engine is not None and profile is not None and combination_problem(engine, profile) is not None:
        raise InstallError(
            f"The notebook profile runs on the {' or '.join(NOTEBOOK_ENGINES)} engine for now; "
            "install it without --engine v8."
        )
    named = next(
        spec
        for spec in KERNELSPECS
        if (spec.engine == "v8") == (engine == "v8") and (spec.profile == "notebook") == (profile == "notebook")
    )
    return Kernelspec(named.name, named.display_name, engine, profile)


def kernelspec_named(name: str) -> Kernelspec | None:
    """The entry of :data:`KERNELSPECS` called ``name``, or None."""
    return next((spec for spec in KERNELSPECS if spec.name == name), None)


LOGO_FILES = ("logo-32x32.png", "logo-64x64.png", "logo-svg.svg")


class InstallError(RuntimeError):
    """The kernelspec could not be written; ``str(e)`` says why and what to do."""


@dataclass
class InstallTarget:
    """Where to install: ``user`` for the user's data dir, else ``prefix`` (a folder)."""

    user: bool = False
    prefix: str | None = None


def resources_dir() -> Path:
    """The folder holding ``kernel.json`` and the logos inside the installed package."""
    return Path(str(resources.files("codemode.kernel") / "resources"))


def load_template() -> dict[str, Any]:
    """Read the kernelspec template (``kernel.json``) as a dict.

    Raises :class:`InstallError` when it is missing or is not a JSON object with ``argv``.
    """
    path = resources_dir() / "kernel.json"
    try:
        spec = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InstallError(
            f"The kernelspec template {path} could not be read ({exc}); reinstall codemode-kernel."
        ) from exc
    if not isinstance(spec, dict) or not isinstance(spec.get("argv"), list) or not spec["argv"]:
        raise InstallError(f"The kernelspec template {path} has no argv list; reinstall codemode-kernel.")
    return spec


def build_spec(
    *,
    display_name: str = DEFAULT_DISPLAY_NAME,
    executable: str | None = None,
    engine: str | None = None,
    profile: str | None = None,
) -> dict[str, Any]:
    """The kernel.json content to install: the template with an absolute interpreter path.

    ``executable`` defaults to ``sys.executable``; it is made absolute. ``engine``: the
    runtime host's JavaScript engine for this kernelspec (``env`` ``CODEMODE_ENGINE``, which
    the kernel prefers to ``[session] engine``); ``profile``: its cells' profile (``env``
    ``CODEMODE_PROFILE``, preferred to ``[session] profile``); None leaves the choice to the
    config.
    """
    spec = load_template()
    spec["argv"] = [os.path.abspath(executable or sys.executable), *spec["argv"][1:]]
    spec["display_name"] = display_name
    for variable, value in (("CODEMODE_ENGINE", engine), ("CODEMODE_PROFILE", profile)):
        if value is not None:
            spec["env"] = {**spec.get("env", {}), variable: value}
    return spec


def write_spec_dir(folder: Path, spec: dict[str, Any]) -> None:
    """Write ``kernel.json`` and the logos into ``folder`` (created if needed, mode 0755)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)  # mkdtemp makes 0700, unreadable for a system-wide install
    (folder / "kernel.json").write_text(json.dumps(spec, indent=2) + "\n", encoding="utf-8")
    source = resources_dir()
    for name in LOGO_FILES:
        shutil.copyfile(source / name, folder / name)


def default_target() -> InstallTarget:
    """``sys.prefix`` inside a virtual environment, the user's data dir otherwise."""
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        return InstallTarget(prefix=sys.prefix)
    return InstallTarget(user=True)


def install(
    *,
    name: str = DEFAULT_NAME,
    display_name: str = DEFAULT_DISPLAY_NAME,
    target: InstallTarget | None = None,
    executable: str | None = None,
    engine: str | None = None,
    profile: str | None = None,
) -> str:
    """Install the kernelspec and return the folder it was written to (``engine`` and
    ``profile`` as for :func:`build_spec`).

    Raises :class:`InstallError` when the template is unusable or Jupyter refuses the name
    or the destination (e.g. no permission).
    """
    from jupyter_client.kernelspec import KernelSpecManager

    target = target or default_target()
    spec = build_spec(display_name=display_name, executable=executable, engine=engine, profile=profile)
    with tempfile.TemporaryDirectory(prefix="codemode-kernelspec-") as tmp:
        folder = Path(tmp) / name
        write_spec_dir(folder, spec)
        try:
            return KernelSpecManager().install_kernel_spec(
                str(folder), kernel_name=name, user=target.user, prefix=target.prefix
            )
        except (OSError, ValueError) as exc:
            raise InstallError(f"The kernelspec {name!r} could not be installed: {exc}") from exc


def install_kernelspec(
    *,
    user: bool = False,
    prefix: str | None = None,
    name: str = DEFAULT_NAME,
    display_name: str = DEFAULT_DISPLAY_NAME,
) -> str:
    """Keyword form of :func:`install` (``user`` or ``prefix``; neither: :func:`default_target`).

    Returns the folder written; raises :class:`InstallError` like :func:`install`.
    """
    target = InstallTarget(user=user, prefix=prefix) if (user or prefix) else None
    return install(name=name, display_name=display_name, target=target)


def build_parser() -> argparse.ArgumentParser:
    """The ``install`` command's argument parser."""
    parser = argparse.ArgumentParser(
        prog="python -m codemode install",
        description="Install the Code Mode (JavaScript) Jupyter kernelspec.",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="install for the current user")
    where.add_argument("--sys-prefix", action="store_true", help=f"install into sys.prefix ({sys.prefix})")
    where.add_argument("--prefix", metavar="P", help="install into the prefix P")
    parser.add_argument(
        "--name",
        help=f"kernel name (default {DEFAULT_NAME!r}; with --engine v8 {V8_NAME!r}, with --profile notebook "
        f"{NOTEBOOK_NAME!r})",
    )
    parser.add_argument(
        "--display-name",
        help=f"name shown in launchers (default {DEFAULT_DISPLAY_NAME!r}; with --engine v8 {V8_DISPLAY_NAME!r}, "
        f"with --profile notebook {NOTEBOOK_DISPLAY_NAME!r})",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        help="the JavaScript engine of this kernelspec's cells (default: [session] engine of codemode.toml)",
    )
    parser.add_argument(
        "--profile",
        choices=PROFILES,
        help="how this kernelspec's cells behave: strict (each cell exactly as Codex's exec) or notebook "
        "(declarations persist, the last expression is shown; QuickJS only for now) (default: [session] profile "
        "of codemode.toml)",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the process exit status (0 on success, 1 on failure)."""
    args = build_parser().parse_args(argv)
    if args.user:
        target = InstallTarget(user=True)
    elif args.sys_prefix:
        target = InstallTarget(prefix=sys.prefix)
    elif args.prefix:
        target = InstallTarget(prefix=args.prefix)
    else:
        target = default_target()
    try:
        default = default_kernelspec(args.engine, args.profile)
        name = args.name or default.name
        display_name = args.display_name or default.display_name
        where = install(name=name, display_name=display_name, target=target, engine=args.engine, profile=args.profile)
    except InstallError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"Installed kernelspec {name} in {where}")
    return 0
