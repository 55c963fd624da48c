"""Run a notebook of code-mode cells headless and print what each cell shows.

This is the ``python -m codemode run NOTEBOOK`` command: it makes sure the codemode
kernelspec is installed (into the running environment's prefix), executes every cell
with ``nbclient`` against the real kernel and tools, prints each cell's source and its
outputs as a terminal user would read them, and optionally saves the executed notebook.

Exit status: 0 when every cell ran, 1 when a cell failed (the run stops at the first
failing cell unless the cell is tagged ``raises-exception``, as in nbclient).
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any, TextIO

KERNEL_NAME = "codemode"


def _ensure_kernelspec() -> None:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(KERNEL_NAME)
    except NoSuchKernel:
        from codemode.install import install_kernelspec

        install_kernelspec(prefix=sys.prefix)


def _describe_output(output: dict[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return str(output.get("text", ""))
    if kind == "error":
        return f"{output.get('ename')}: {output.get('evalue')}\n"
    data = output.get("data", {})
    for mime, payload in data.items():
        if mime.startswith(("image/", "audio/")):
            size = len(base64.b64decode(payload)) if isinstance(payload, str) else 0
            return f"[{mime}, {size} bytes]\n"
    text = data.get("text/plain", "")
    return (text if isinstance(text, str) else "".join(text)) + "\n"


def print_notebook(nb: Any, out: TextIO) -> None:
    """Write every code cell's source and outputs of ``nb`` (an nbformat node) to ``out``."""
    for number, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code":
            continue
        out.write(f"── cell {number} " + "─" * 40 + "\n")
        out.write(cell.source.rstrip() + "\n")
        if cell.get("execution_count") is None and not cell.get("outputs"):
            out.write("── not run\n")
            continue
        out.write("── output\n")
        for output in cell.get("outputs", []):
            out.write(_describe_output(output))
    out.flush()


def run_notebook(
    path: str | Path,
    *,
    save_to: str | Path | None = None,
    timeout_s: int = 300,
    out: TextIO = sys.stdout,
    record_timing: bool = True,
) -> int:
    """Execute the notebook at ``path`` with the codemode kernel and print its outputs.

    The kernel runs with the notebook's folder as working directory, so a
    ``codemode.toml`` beside the notebook configures its tools.
    ``timeout_s`` bounds each cell. ``record_timing`` keeps nbclient's per-cell execution
    times in the cells' metadata. Returns the process exit status (0 or 1).
    Raises ``FileNotFoundError`` when ``path`` does not exist.
    """
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    _ensure_kernelspec()
    client = NotebookClient(
        nb,
        kernel_name=KERNEL_NAME,
        timeout=timeout_s,
        record_timing=record_timing,
        resources={"metadata": {"path": str(path.parent.resolve())}},
    )
    status = 0
    try:
        client.execute()
    except CellExecutionError as exc:
        status = 1
        failure = str(exc)
    except CellTimeoutError:
        status = 1
        failure = (
            f"A cell ran longer than the time limit of {timeout_s} s and was interrupted. "
            "Raise the limit with --timeout SECONDS if the cell is meant to run that long."
        )
    print_notebook(nb, out)
    if status:
        out.write(f"\nA cell failed:\n{failure}\n")
    if save_to is not None:
        nbformat.write(nb, save_to)
    return status
