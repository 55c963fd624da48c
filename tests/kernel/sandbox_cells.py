"""Cells and kernels for the sandbox tests: a kernel in a given workspace and config, and cells
that print a built-in's JSON result (or ``ERROR`` and the message of its error)."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

from kernel_driver import KERNEL_NAME, Kernel, start_kernel, stop_kernel


@contextlib.contextmanager
def kernel_in(
    folder: Path, toml: str = "", env: dict[str, str] | None = None, kernel_name: str = KERNEL_NAME
) -> Iterator[Kernel]:
    """A kernel of the kernelspec ``kernel_name`` whose workspace is ``folder``, configured by ``toml``."""
    folder.mkdir(parents=True, exist_ok=True)
    if toml:
        (folder / "codemode.toml").write_text(toml)
    kernel = start_kernel(folder, env, kernel_name=kernel_name)
    try:
        yield kernel
    finally:
        stop_kernel(kernel)


def shell(cmd: str, **extra) -> str:
    """A cell printing the JSON result of ``exec_command``, or its error's message."""
    args = json.dumps({"cmd": cmd, **extra})
    return f"try {{ text(JSON.stringify(await tools.exec_command({args}))); }} catch (e) {{ text('ERROR ' + (e?.message ?? e)); }}"


def write(path: str, content: str = "x") -> str:
    args = json.dumps({"path": path, "content": content})
    return f"try {{ text(JSON.stringify(await tools.write_file({args}))); }} catch (e) {{ text('ERROR ' + (e?.message ?? e)); }}"


def read(path: str) -> str:
    args = json.dumps({"path": path})
    return (
        f"try {{ text((await tools.read_file({args})).content); }} catch (e) {{ text('ERROR ' + (e?.message ?? e)); }}"
    )


def printed(execution) -> str:
    """What the cell printed, without the newline ``text()`` ends its line with."""
    return execution.stdout.removesuffix("\n")


def listing(path: str) -> str:
    """A cell printing the names ``list_dir`` gives for ``path``, or its error's message."""
    args = json.dumps({"path": path})
    return (
        f"try {{ text((await tools.list_dir({args})).entries.map((e) => e.name).join(' ')); }} "
        "catch (e) { text('ERROR ' + (e?.message ?? e)); }"
    )
