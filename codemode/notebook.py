"""Run a notebook of code-mode cells headless and print what each cell shows.

This is the ``python -m codemode run NOTEBOOK`` command: it makes sure the codemode
kernelspec is installed (into the running environment's prefix), executes every cell
with ``nbclient`` against the real kernel and tools, prints each cell's source (shortened:
lines cut at :data:`MAX_LINE_CHARS` characters, and the middle of a cell of more than
:data:`MAX_SOURCE_LINES` lines left out) and its outputs as a terminal user would read them,
and optionally saves the executed notebook.

The kernel is started with CurveZMQ encryption of its sockets (jupyter_client's
``KernelManager.transport_encryption = "auto"``, for a kernelspec that declares
``supported_encryption: ["curve"]`` as ``kernel.json`` does; the kernel manager makes the key
pair and passes it in the connection file), so the kernel application has no reason to warn
that it runs over TCP without encryption. With a kernelspec installed before that declaration,
or a libzmq without CurveZMQ, the kernel runs unencrypted, as before, and the warning shows.

nbclient sends every request with ``allow_stdin`` false, so the kernel runs them headless
(:mod:`codemode.kernel.headless`): a cell that did not ask to yield runs to its end before its
reply. A cell that asked to yield and still runs when the last cell has run fails the run:
the last reply names it (``metadata.codemode.still_running``, read by :class:`LastReply`).

Exit status: 0 when every cell ran, 1 when a cell failed (the run stops at the first
failing cell unless the cell is tagged ``raises-exception``, as in nbclient), the last cell
left a yielded cell running, the notebook ran past its time limit or its kernel died; 2 when
the notebook could not be run (:class:`NotebookError`); 130 when Ctrl-C stopped it
(``codemode/__main__.py`` runs it in a worker process, :mod:`codemode.batch.isolated`). Many
notebooks at once are :mod:`codemode.batch`'s.
"""

from __future__ import annotations

import base64
import binascii
import io
import math
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from codemode.install import DEFAULT_NAME as KERNEL_NAME
from codemode.install import KERNEL_NAMES, InstallTarget, install, kernelspec_named

MAX_LINE_CHARS = 100
"""Longest source line printed whole; longer ones are cut and end with ``…``."""
MAX_SOURCE_LINES = 12
"""Most source lines printed for a cell; of a longer cell, the first and last few are."""
HEAD_LINES, TAIL_LINES = 8, 3


class NotebookError(ValueError):
    """A notebook that cannot be run: not JSON, not valid against its nbformat schema, or one
    that asks for a kernel that is not codemode's. ``python -m codemode run`` exits with 2."""


def read_notebook(path: Path) -> Any:
    """The notebook at ``path`` as an nbformat v4 node. It is checked against the JSON schema
    of the nbformat version it declares before nbformat converts it (nbformat's own reading
    fails with a ``TypeError`` on ``{"cells": 3}``). Raises ``FileNotFoundError`` and
    :class:`NotebookError` (the reason, naming the path)."""
    import json

    import nbformat
    from nbformat.validator import get_validator

    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise NotebookError(f"{path} is not a notebook: it is not JSON ({exc}).") from None
    version = data.get("nbformat") if isinstance(data, dict) else None
    if not isinstance(version, int):
        raise NotebookError(f"{path} is not a notebook: it has no nbformat version.")
    minor = data.get("nbformat_minor", 0)
    try:
        validator = get_validator(version, minor if isinstance(minor, int) else 0)
    except ImportError:  # nbformat has no module for this version
        validator = None
    if validator is None:
        raise NotebookError(f"{path} is not a notebook nbformat can read: nbformat {version} is unknown.")
    error = next(iter(validator.iter_errors(data)), None)
    if error is not None:
        raise NotebookError(f"{path} is not a valid notebook (nbformat {version}): {error.message}.")
    return nbformat.reads(text, as_version=4)


def clear_outputs(nb: Any) -> None:
    """Remove the saved outputs, execution counts and execution times of every code cell of
    ``nb``, so that after a run only the cells that ran have them: a cell that did not run (after
    a failing cell) shows ``not run`` and is saved empty, not with an earlier run's outputs."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)


def kernel_name_of(nb: Any) -> str:
    """The codemode kernel a notebook asks for (one of ``codemode.install.KERNEL_NAMES``:
    ``codemode-v8`` runs its cells on V8, ``codemode-notebook`` in the notebook profile);
    a notebook that names no kernel gets ``codemode``. Raises :class:`NotebookError` for a
    notebook whose kernelspec names another kernel (a ``python3`` notebook's cells are not
    JavaScript)."""
    spec = nb.get("metadata", {}).get("kernelspec", {})
    name = str(spec.get("name", ""))
    if not name:
        return KERNEL_NAME
    if name not in KERNEL_NAMES:
        raise NotebookError(
            f"The notebook's kernelspec is {name!r}, not a codemode kernel ({', '.join(KERNEL_NAMES)}): "
            "run it with its own kernel (jupyter execute), or set its kernelspec to codemode."
        )
    return name


def _ensure_kernelspec(name: str) -> None:
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        KernelSpecManager().get_kernel_spec(name)
    except NoSuchKernel:
        spec = kernelspec_named(name)
        assert spec is not None  # kernel_name_of gives only these names
        install(
            name=name,
            display_name=spec.display_name,
            target=InstallTarget(prefix=sys.prefix),
            engine=spec.engine,
            profile=spec.profile,
        )


def _describe_output(output: dict[str, Any]) -> str:
    kind = output.get("output_type")
    if kind == "stream":
        return str(output.get("text", ""))
    if kind == "error":
        return f"{output.get('ename')}: {output.get('evalue')}\n"
    data = output.get("data", {})
    for mime, payload in data.items():
        if mime.startswith(("image/", "audio/")):
            return f"[{mime}, {media_size(mime, payload)}]\n"
    text = data.get("text/plain", "")
    return (text if isinstance(text, str) else "".join(text)) + "\n"


def is_text_mime(mime: str) -> bool:
    """Whether a bundle holds ``mime`` as text rather than base64: ``text/*``, JSON and the
    ``+xml`` / ``+json`` types (``image/svg+xml``), as nbformat keeps them (nbformat v4 schema,
    ``mimebundle``: only binary types are base64-encoded)."""
    return (
        mime.startswith("text/")
        or mime in ("application/json", "application/javascript")
        or mime.endswith(("+xml", "+json"))
    )


def media_size(mime: str, payload: Any) -> str:
    """How big an image or audio output is, as :func:`print_notebook` shows it: ``N characters``
    for a text type (:func:`is_text_mime`), ``N bytes`` decoded for a base64 one (a payload may
    be a string or, in a saved notebook, a list of lines), ``N characters of invalid base64``
    when it does not decode."""
    text = payload if isinstance(payload, str) else "".join(payload) if isinstance(payload, list) else ""
    if is_text_mime(mime):
        return f"{len(text)} characters"
    try:
        return f"{len(base64.b64decode(text))} bytes"
    except (binascii.Error, ValueError):
        return f"{len(text)} characters of invalid base64"


def shorten_source(source: str) -> str:
    """``source`` as :func:`print_notebook` shows it: trailing blanks removed, each line of more
    than :data:`MAX_LINE_CHARS` characters cut (ending with ``…``), and of more than
    :data:`MAX_SOURCE_LINES` lines the first :data:`HEAD_LINES` and last :data:`TAIL_LINES`
    with one line saying how many are left out between them."""
    lines = [
        line if len(line) <= MAX_LINE_CHARS else line[: MAX_LINE_CHARS - 1] + "…"
        for line in source.rstrip().split("\n")
    ]
    if len(lines) > MAX_SOURCE_LINES:
        hidden = len(lines) - HEAD_LINES - TAIL_LINES
        lines = [*lines[:HEAD_LINES], f"… ({hidden} more lines)", *lines[-TAIL_LINES:]]
    return "\n".join(lines)


def print_notebook(nb: Any, out: TextIO) -> None:
    """Write every code cell's source (:func:`shorten_source`) and outputs of ``nb`` (an
    nbformat node) to ``out``."""
    for number, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code":
            continue
        out.write(f"── cell {number} " + "─" * 40 + "\n")
        out.write(shorten_source(cell.source) + "\n")
        if cell.get("execution_count") is None and not cell.get("outputs"):
            out.write("── not run\n")
            continue
        out.write("── output\n")
        for output in cell.get("outputs", []):
            out.write(_describe_output(output))
    out.flush()


class LastReply:
    """nbclient's ``on_cell_executed`` hook: keeps ``still_running`` of the last reply (the
    yielded cells still running after it, ``[{"cell_id", "execution_count", "first_line"}]``;
    :func:`codemode.kernel.headless.still_running_metadata`)."""

    def __init__(self) -> None:
        self.still_running: list[dict[str, Any]] = []

    def __call__(self, cell: Any, cell_index: int, execute_reply: Any) -> None:
        codemode = (execute_reply or {}).get("metadata", {}).get("codemode", {})
        self.still_running = list(codemode.get("still_running") or [])

    def failure(self) -> str | None:
        """Why the run fails when its last cell left cells running (None when it left none)."""
        from codemode.kernel.headless import unfinished_message

        return unfinished_message(self.still_running) if self.still_running else None


def time_left(timeout_s: float) -> Callable[[Any], int]:
    """nbclient's ``timeout_func`` for a notebook that may run ``timeout_s`` seconds in all,
    counted from this call: each cell may run for what is left of that time (at least 1 s), so
    the cell running when the time is up is stopped then (nbclient raises
    ``CellTimeoutError``)."""
    deadline = time.monotonic() + timeout_s

    def cell_limit(cell: Any) -> int:
        return max(1, math.ceil(deadline - time.monotonic()))

    return cell_limit


@dataclass
class Executed:
    """A notebook run by :func:`execute_notebook`: ``nb`` (the nbformat node, with the outputs
    of the cells that ran), ``failure`` (why the run failed, None when it did not), ``timed_out``
    (the run passed its time limit) and ``heading`` (the words before the failure when printed:
    ``The run failed`` when the last cell left a yielded cell running)."""

    nb: Any
    failure: str | None = None
    timed_out: bool = False
    heading: str = "A cell failed"


def kernel_manager_config() -> Any:
    """The traitlets ``Config`` of the kernel managers nbclient makes here: CurveZMQ encryption
    (``transport_encryption = "auto"``) when libzmq has it, else ``"disabled"`` (module
    docstring)."""
    import zmq
    from traitlets.config import Config

    encryption = "auto" if zmq.has("curve") else "disabled"
    return Config({"KernelManager": {"transport_encryption": encryption}})


def execute_notebook(path: str | Path, *, timeout_s: float = 300, record_timing: bool = True) -> Executed:
    """Execute the notebook at ``path`` with the codemode kernel it names.

    The kernel runs with the notebook's folder as working directory, so a ``codemode.toml``
    beside the notebook configures its tools. ``timeout_s`` bounds the whole run, the kernel's
    start included (:func:`time_left`). ``record_timing`` keeps nbclient's per-cell execution
    times in the cells' metadata. A failing cell (unless tagged ``raises-exception``), the
    time limit and a kernel that dies stop the run (:attr:`Executed.failure`). Raises
    ``FileNotFoundError`` when ``path`` does not exist and :class:`NotebookError` for a notebook
    that cannot be run (:func:`read_notebook`, :func:`kernel_name_of`). The outputs saved in
    the notebook are cleared first (:func:`clear_outputs`).
    """
    from nbclient import NotebookClient

    path = Path(path)
    nb = read_notebook(path)
    kernel_name = kernel_name_of(nb)
    clear_outputs(nb)
    _ensure_kernelspec(kernel_name)
    last = LastReply()
    client = NotebookClient(
        nb,
        # nbclient makes (and shuts down) the kernel manager with this configuration.
        config=kernel_manager_config(),
        kernel_name=kernel_name,
        timeout_func=time_left(timeout_s),
        record_timing=record_timing,
        resources={"metadata": {"path": str(path.parent.resolve())}},
        on_cell_executed=last,
    )
    return execute_with(client, nb, timeout_s, last)


def execute_with(client: Any, nb: Any, timeout_s: float, last: LastReply, **kwargs: Any) -> Executed:
    """Run every cell of ``nb`` with ``client`` (an ``nbclient.NotebookClient`` made for it,
    with ``last`` as its ``on_cell_executed``; ``kwargs`` go to its ``execute``, then to the
    kernel manager's ``start_kernel``), and say why the run failed, if it did: a failing cell,
    the time limit ``timeout_s`` of :func:`time_left`, a kernel that died, cells the last one
    left running."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    try:
        client.execute(**kwargs)
    except CellExecutionError as exc:
        return Executed(nb, str(exc))
    except CellTimeoutError:
        return Executed(
            nb,
            f"The notebook ran longer than the time limit of {timeout_s:g} s and its running cell "
            "was stopped. Raise the limit with --timeout SECONDS if the notebook is meant to run that long.",
            timed_out=True,
        )
    except DeadKernelError:
        return Executed(nb, "The kernel died while a cell ran; the cells after it did not run.")
    unfinished = last.failure()
    if unfinished is not None:
        return Executed(nb, unfinished, heading="The run failed")
    return Executed(nb)


def shown(executed: Executed) -> str:
    """What a run prints: :func:`print_notebook` of the executed notebook, then why the run
    stopped (:attr:`Executed.heading`, such as ``A cell failed:``, and the reason), if it did."""
    text = io.StringIO()
    print_notebook(executed.nb, text)
    if executed.failure is not None:
        text.write(f"\n{executed.heading}:\n{executed.failure}\n")
    return text.getvalue()


def run_notebook(
    path: str | Path,
    *,
    save_to: str | Path | None = None,
    timeout_s: float = 300,
    out: TextIO = sys.stdout,
    record_timing: bool = True,
) -> int:
    """Execute the notebook at ``path`` (:func:`execute_notebook`) and print its outputs
    (:func:`print_notebook`, then why the run stopped, if it did); ``save_to`` also writes the
    executed notebook. Returns the process exit status (0 or 1). Raises ``FileNotFoundError``
    when ``path`` does not exist.
    """
    import nbformat

    executed = execute_notebook(path, timeout_s=timeout_s, record_timing=record_timing)
    out.write(shown(executed))
    out.flush()
    if save_to is not None:
        nbformat.write(executed.nb, save_to)
    return 0 if executed.failure is None else 1
