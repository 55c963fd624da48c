"""Run a replay notebook in a fresh kernel and compare each answer with the recorded one.

Input: a notebook made by :mod:`codemode.replay.convert` (its cells carry
``metadata.codemode.replay``). Steps:

1. Before any cell runs, the first kernel (configured by the ``codemode.toml`` of the run
   notebook's folder, :func:`kernel_environment`) lists its tools (a ``%tools`` request; its MCP
   servers start once, in the kernel, not a second time for the check), and each
   ``exec`` cell that names a tool codemode lacks (:func:`codemode.replay.needs.cell_needs`)
   is marked ``not_run`` with reason ``missing_tool``; so is a ``%wait``/``%terminate`` on it.
   A skipped ``exec`` still takes its cell id: a comment-only program runs in its place, so the
   ``%wait`` numbers of later cells stay right.
2. The code cells run with ``nbclient`` (the kernel the notebook names, ``codemode``), one
   fresh kernel per Codex process: where Codex resumed the session in a new process (cell
   metadata ``process``), the kernel is started anew, so cell ids restart at 1 and values kept
   with ``store()`` are gone, as in Codex. Markdown cells do not run. The cells run in a
   working folder of their own (``workdir``; by default a new empty folder, removed after the
   run): Codex ran them in the session's folder, whose files the session file does not hold,
   so an empty folder is the closest stand-in, and the run notebook's own files stay out of
   the programs' sight (an ``ls`` counts what Codex counted).
3. For each ``exec``, ``wait`` and ``terminate`` cell, the answer the kernel gives as the model
   would see it (the ``execute_reply``'s ``metadata.codemode.model_view.output``) is compared
   with the recorded ``result.model_view`` (:func:`codemode.replay.compare.compare`).
4. For each ``exec``, the ``notify()`` texts it sent are compared with the recorded ones
   (:func:`codemode.replay.compare.compare_notifications`). Codex writes each as one more
   ``custom_tool_call_output`` of the exec's ``call_id``, in the cell metadata's
   ``notifications`` of the call whose result it followed; the kernel shows each as a
   ``display_data`` whose metadata is ``{"codemode": {"notify": CELL_ID}}`` under the request
   running then (:mod:`codemode.kernel.notify`). So both sides are gathered by exec, wherever
   they were shown: the exec cell or a ``%wait`` on it.
5. A cell that differs (``program`` or ``notify``) after a cell that was not run gets
   ``after_not_run``, the ``call_id`` of the last such cell before it
   (:func:`mark_after_not_run`): the skipped program may have written a file or stored a value
   that this one read.

The run notebook keeps both: each cell's outputs are the new ones, the recorded outputs move to
``metadata.codemode.replay.recorded_outputs``, the comparison goes to
``metadata.codemode.replay.run`` (``status``, ``reason``, ``diff``, ``model_view``), and a
Markdown cell (kind ``replay_diff``) after each differing cell shows the diff.
"""

from __future__ import annotations

import copy
import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codemode.config import CONFIG_ENV
from codemode.config.recording import PATH_ENV
from codemode.kernel.services import HEADLESS_VARIABLE
from codemode.replay.compare import DIVERGENCES, combine, compare, compare_notifications
from codemode.replay.needs import cell_needs

CALL_KINDS = ("exec", "wait", "terminate")


class ReplayError(RuntimeError):
    """The replay could not run (no kernel, a kernel that died, a notebook without replay
    metadata); ``str`` says why."""


@dataclass
class CellReport:
    """One exec, wait or terminate cell of the run (see :func:`report_json`)."""

    index: int
    call_id: str | None
    kind: str
    status: str
    reason: str | None
    diff: str = ""
    normalised: tuple[str, ...] = ()
    missing_tools: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()
    source: str = ""
    after_not_run: str | None = None


@dataclass
class RunReport:
    """Every compared cell, in notebook order."""

    notebook: str
    cells: list[CellReport] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        """``{"cells", "same", "differs", "not_run"}``: counts of :attr:`cells` by status."""
        counts = {"cells": len(self.cells), "same": 0, "differs": 0, "not_run": 0}
        for cell in self.cells:
            counts[cell.status] += 1
        return counts

    def exit_status(self) -> int:
        """0 when no cell differs for ``program`` or ``notify`` (:data:`DIVERGENCES`), else 1."""
        return 1 if any(c.reason in DIVERGENCES for c in self.cells) else 0


def replay_meta(cell: Any) -> dict[str, Any]:
    """A cell's ``metadata.codemode.replay`` (``{}`` when it has none)."""
    meta = cell.get("metadata", {}).get("codemode", {}).get("replay", {})
    return meta if isinstance(meta, dict) else {}


@dataclass
class KernelTools:
    """What a kernel's ``%tools`` reply says: ``names`` (the names a program may give its
    tools) and ``problems`` (its configuration and MCP start-up problems, such as ``MCP server
    `NAME` failed to start: REASON.``; the reply's ``metadata.codemode.problems``)."""

    names: set[str]
    problems: list[str]


def kernel_tools(client: Any, timeout_s: float, limit_s: float) -> KernelTools:
    """The names a program may give the tools of the kernel ``client`` (an nbclient
    ``NotebookClient`` inside ``setup_kernel``) runs: a ``%tools`` request, not stored in the
    history, whose reply's ``metadata.codemode.tool_names`` lists them once its MCP servers have
    started or given up. The kernel's own registry answers, so no server is started for the
    check. ``timeout_s`` is what is left of the run's limit ``limit_s`` (``--timeout``, seconds).
    Raises :class:`ReplayError` when the kernel gives no list, or no reply within ``timeout_s``
    (jupyter_client's ``get_shell_msg`` raises ``queue.Empty``; the message names ``limit_s``,
    the limit the user gave)."""
    import queue

    from jupyter_core.utils import run_sync

    async def ask() -> Any:
        msg_id = client.kc.execute("%tools", store_history=False, allow_stdin=False)
        while True:
            reply = await client.kc.get_shell_msg(timeout=timeout_s)
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply

    try:
        reply = run_sync(ask)()
    except queue.Empty as exc:
        raise ReplayError(
            f"the kernel did not list its tools within the --timeout of {limit_s:g} s"
            " (its MCP servers start first); give a longer --timeout."
        ) from exc
    metadata = reply.get("metadata", {}).get("codemode", {})
    names = metadata.get("tool_names")
    if reply["content"].get("status") != "ok" or not isinstance(names, list):
        raise ReplayError(f"the kernel did not list its tools: {reply['content']}")
    return KernelTools({str(name) for name in names}, [str(p) for p in metadata.get("problems") or []])


def plan(nb: Any, available: set[str]) -> dict[int, CellReport]:
    """The cells not to run, by index: each ``exec`` naming a tool not in ``available`` and
    each wait or terminate whose exec is one of them (reason ``missing_tool``)."""
    skipped: dict[int, CellReport] = {}
    skipped_ids: set[tuple[int, str]] = set()
    for index, cell in enumerate(nb["cells"]):
        meta = replay_meta(cell)
        kind = meta.get("kind")
        if cell.get("cell_type") != "code" or kind not in CALL_KINDS:
            continue
        if kind == "exec":
            needs = cell_needs(str(meta.get("call_id")), int(meta.get("line", 0)), cell["source"], available)
            if needs.missing:
                skipped_ids.add((meta.get("process", 1), str(meta.get("notebook_cell_id"))))
                skipped[index] = CellReport(
                    index,
                    meta.get("call_id"),
                    kind,
                    "not_run",
                    "missing_tool",
                    missing_tools=needs.missing,
                    unread=needs.unread,
                )
        elif (meta.get("process", 1), str(meta.get("notebook_cell_id"))) in skipped_ids:
            skipped[index] = CellReport(index, meta.get("call_id"), kind, "not_run", "missing_tool")
    return skipped


def placeholder(report: CellReport) -> str:
    """The program run in place of a skipped exec: a comment, so it takes its cell id."""
    return f"// replay: not run; needs {', '.join(report.missing_tools)}\n"


def _model_view(reply: Any) -> Any:
    view = (reply or {}).get("metadata", {}).get("codemode", {}).get("model_view")
    return view.get("output") if isinstance(view, dict) else None


def kernel_environment(folder: Path, name: str) -> dict[str, str]:
    """The environment of a replay's kernels: this process's, with
    ``CODEMODE_HEADLESS=never`` (a replay reruns Codex's ``exec`` as Codex ran it: a cell
    yields at its yield time, also under nbclient's headless requests;
    :mod:`codemode.kernel.headless`); unless already set, ``CODEMODE_CONFIG`` naming
    ``folder``'s ``codemode.toml`` when there is one (the kernels run in another folder), and
    ``JPY_SESSION_NAME`` naming the notebook ``<name's stem>.ipynb`` in ``folder``, so a
    recording without a path is ``<name's stem>.recording.jsonl`` there; a relative
    ``CODEMODE_RECORDING_PATH`` is made absolute from this process's working folder, where the
    user typed it (:mod:`codemode.config.recording`)."""
    env = {**os.environ, HEADLESS_VARIABLE: "never"}
    config = folder / "codemode.toml"
    if config.is_file():
        env.setdefault(CONFIG_ENV, str(config))
    env.setdefault("JPY_SESSION_NAME", str(folder / (Path(name).stem + ".ipynb")))
    if env.get(PATH_ENV):
        env[PATH_ENV] = os.path.abspath(os.path.expanduser(env[PATH_ENV]))
    return env


def execute(
    nb: Any, folder: Path, name: str, workdir: Path, timeout_s: float
) -> tuple[dict[int, Any], dict[int, CellReport]]:
    """Run the code cells of ``nb`` (changed in place: new outputs) with a fresh kernel per
    Codex process working in ``workdir`` (:func:`kernel_environment` of ``folder`` and
    ``name``), all of them within ``timeout_s`` seconds. Before any cell runs, the first
    kernel lists its tools (:func:`kernel_tools`), each problem it names (an MCP server that
    failed to start) is printed to stderr as ``warning: PROBLEM``, and the cells to skip are
    planned (:func:`plan`). Returns each run cell's ``execute_reply`` by index, and the skipped
    cells. Raises :class:`ReplayError` when a kernel cannot start or dies, or the notebook names a
    kernel that is not codemode's."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    from codemode.notebook import NotebookError, _ensure_kernelspec, kernel_manager_config, kernel_name_of, time_left

    try:
        kernel_name = kernel_name_of(nb)
    except NotebookError as exc:  # a notebook of another kernel
        raise ReplayError(str(exc)) from None
    _ensure_kernelspec(kernel_name)
    replies: dict[int, Any] = {}

    def keep(cell: Any, cell_index: int, execute_reply: Any) -> None:
        replies[cell_index] = execute_reply

    segments: list[list[int]] = []
    process = None
    for index, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        this = replay_meta(cell).get("process", 1)
        if not segments or this != process:
            segments.append([])
            process = this
        segments[-1].append(index)
    skipped: dict[int, CellReport] | None = None
    cell_limit = time_left(timeout_s)
    for segment in segments:
        client = NotebookClient(
            nb,
            config=kernel_manager_config(),
            kernel_name=kernel_name,
            timeout_func=cell_limit,
            allow_errors=True,
            record_timing=False,
            on_cell_executed=keep,
            resources={"metadata": {"path": str(workdir)}},
        )
        try:
            with client.setup_kernel(env=kernel_environment(folder, name)):
                if skipped is None:
                    tools = kernel_tools(client, cell_limit(None), timeout_s)
                    for problem in tools.problems:
                        print(f"warning: {problem}", file=sys.stderr, flush=True)
                    skipped = plan(nb, tools.names)
                for index in segment:
                    cell = nb["cells"][index]
                    if index in skipped:
                        cell["outputs"] = []  # a run notebook's outputs are the rerun's
                        if skipped[index].kind == "exec":
                            stand_in = copy.deepcopy(cell)
                            stand_in["source"] = placeholder(skipped[index])
                            client.execute_cell(stand_in, index)
                            nb["cells"][index] = cell  # nbclient stores the cell it ran at its index
                            replies.pop(index, None)
                        continue
                    client.execute_cell(cell, index)
        except CellTimeoutError as exc:
            raise ReplayError(timed_out_message(timeout_s)) from exc
        except (DeadKernelError, RuntimeError) as exc:
            raise ReplayError(f"the kernel stopped the replay: {exc}") from exc
    return replies, skipped or {}


def timed_out_message(limit_s: float) -> str:
    """Why a run passed its ``--timeout`` of ``limit_s`` seconds: it names that limit, not the
    time left to the cell that was stopped (nbclient's ``CellTimeoutError`` says ``after N
    seconds`` of that cell)."""
    return f"the replay did not finish within the --timeout of {limit_s:g} s; the cell running then was stopped."


def recorded_notifications(nb: Any) -> dict[str, list[str]]:
    """The ``notify()`` texts Codex recorded, by the exec's ``call_id``, in file order (from
    each cell's ``metadata.codemode.replay.notifications``)."""
    found: dict[str, list[str]] = {}
    for cell in nb["cells"]:
        for note in replay_meta(cell).get("notifications") or []:
            found.setdefault(str(note.get("call_id")), []).append(str(note.get("text", "")))
    return found


def replayed_notifications(nb: Any) -> dict[tuple[int, str], list[str]]:
    """The ``notify()`` texts the rerun showed, by (Codex process, kernel cell id), in notebook
    order: each ``display_data`` output whose metadata is ``{"codemode": {"notify": ID}}``. The
    kernel shows a request's notifications past the tenth in one shared display
    (``{"notify": ID, "more": N}``), which stands here as one text ``(N more notifications)``."""
    found: dict[tuple[int, str], list[str]] = {}
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        process = replay_meta(cell).get("process", 1)
        for output in cell.get("outputs", []):
            marker = (
                output.get("metadata", {}).get("codemode", {}) if output.get("output_type") == "display_data" else {}
            )
            if not isinstance(marker, dict) or marker.get("notify") is None:
                continue
            texts = found.setdefault((process, str(marker["notify"])), [])
            more = marker.get("more")
            texts.append(
                f"({more} more notifications)" if more is not None else str(output["data"].get("text/plain", ""))
            )
    return found


def mark_after_not_run(cells: list[CellReport]) -> None:
    """Set :attr:`CellReport.after_not_run` on each cell that differs for ``program`` or
    ``notify`` after an ``exec`` that was not run: the ``call_id`` of the last such exec before
    it (a ``%wait`` not run for want of its exec names the exec's)."""
    last: str | None = None
    for cell in cells:
        if cell.status == "not_run" and cell.kind == "exec":
            last = cell.call_id
        elif last is not None and cell.reason in DIVERGENCES:
            cell.after_not_run = last


def _diff_note(entry: CellReport) -> str:
    text = f"**Replay differs** (reason `{entry.reason}`): recorded, then replayed.\n\n```diff\n{entry.diff}```"
    if entry.after_not_run is not None:
        text += (
            f"\n\nIt comes after `{entry.after_not_run}`, which was not run:"
            " a file or stored value that cell would have made may be missing."
        )
    return text


@contextmanager
def working_folder(workdir: Path | None) -> Iterator[Path]:
    """The folder the cells run in: ``workdir`` (made if missing, kept), else a new empty
    temporary folder, removed afterwards."""
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True)
        yield workdir.resolve()
        return
    with tempfile.TemporaryDirectory(prefix="codemode-replay-", ignore_cleanup_errors=True) as temporary:
        yield Path(temporary).resolve()


def run_notebook(nb: Any, folder: Path, name: str, timeout_s: float = 120, workdir: Path | None = None) -> RunReport:
    """Run ``nb`` (a replay notebook as nbformat data, changed in place into the run notebook:
    module docstring), configured by ``folder``'s ``codemode.toml``, its cells working in
    ``workdir`` (:func:`working_folder`); returns the report. Raises :class:`ReplayError` when
    the notebook has no replay cell or the run cannot go on."""
    nb["cells"] = [c for c in nb["cells"] if replay_meta(c).get("kind") != "replay_diff"]
    calls = [
        i
        for i, c in enumerate(nb["cells"])
        if c.get("cell_type") == "code" and replay_meta(c).get("kind") in CALL_KINDS
    ]
    if not calls:
        raise ReplayError(f"{name} has no exec, wait or terminate cell made by `python -m codemode replay`.")
    for cell in nb["cells"]:
        meta = replay_meta(cell)
        if cell.get("cell_type") == "code" and meta and "recorded_outputs" not in meta:
            meta["recorded_outputs"] = copy.deepcopy(cell.get("outputs", []))
    with working_folder(workdir) as cwd:
        replies, skipped = execute(nb, folder, name, cwd, timeout_s)
    recorded_folder = str(nb.get("metadata", {}).get("codemode", {}).get("replay", {}).get("cwd") or "")
    recorded_notes, replayed_notes = recorded_notifications(nb), replayed_notifications(nb)
    report = RunReport(name)
    for index in calls:
        cell = nb["cells"][index]
        meta = replay_meta(cell)
        if index in skipped:
            entry = skipped[index]
        else:
            new = _model_view(replies.get(index))
            result = meta.get("result")
            run: dict[str, Any] = {}
            if result is None:
                entry = CellReport(index, meta.get("call_id"), meta["kind"], "differs", "no_recorded_result")
            else:
                outcome = compare(result.get("model_view"), new, recorded_folder, str(cwd))
                if meta["kind"] == "exec":
                    shown = replayed_notes.get((meta.get("process", 1), str(meta.get("notebook_cell_id"))), [])
                    sent = recorded_notes.get(str(meta.get("call_id")), [])
                    outcome = combine(outcome, compare_notifications(sent, shown, recorded_folder, str(cwd)))
                    run["notifications"] = shown
                entry = CellReport(
                    index,
                    meta.get("call_id"),
                    meta["kind"],
                    outcome.status,
                    outcome.reason,
                    outcome.diff,
                    outcome.normalised,
                )
            meta["run"] = {"status": entry.status, "reason": entry.reason, "diff": entry.diff, "model_view": new, **run}
        if index in skipped:
            meta["run"] = {"status": entry.status, "reason": entry.reason, "missing_tools": list(entry.missing_tools)}
        entry.source = cell["source"]
        report.cells.append(entry)
    mark_after_not_run(report.cells)
    for entry in report.cells:
        if entry.after_not_run is not None:
            replay_meta(nb["cells"][entry.index])["run"]["after_not_run"] = entry.after_not_run
    for entry in reversed(report.cells):
        if entry.status == "differs":
            text = _diff_note(entry)
            nb["cells"].insert(
                entry.index + 1,
                {
                    "cell_type": "markdown",
                    "id": f"replay-diff-{entry.index}",
                    "metadata": {"codemode": {"replay": {"kind": "replay_diff"}}},
                    "source": text,
                },
            )
    return report


def report_json(report: RunReport) -> dict[str, Any]:
    """The ``--report`` JSON: ``{"notebook", "summary": {"cells", "same", "differs",
    "not_run"}, "cells": [{"index", "call_id", "kind", "status", "reason", "normalised",
    "diff", "missing_tools", "unread", "after_not_run"}]}``; ``index`` counts the notebook's
    cells from 0; ``after_not_run`` is a ``call_id`` or None (:func:`mark_after_not_run`)."""
    return {
        "notebook": report.notebook,
        "summary": report.summary(),
        "cells": [
            {
                "index": c.index,
                "call_id": c.call_id,
                "kind": c.kind,
                "status": c.status,
                "reason": c.reason,
                "normalised": list(c.normalised),
                "diff": c.diff,
                "missing_tools": list(c.missing_tools),
                "unread": list(c.unread),
                "after_not_run": c.after_not_run,
            }
            for c in report.cells
        ],
    }


def report_junit(report: RunReport) -> str:
    """The ``--junit`` XML (``xml.etree``): one ``testsuite`` named after the notebook, one
    ``testcase`` per cell (``name`` ``cell INDEX CALL_ID``); ``differs`` for ``program`` or
    ``notify`` is a ``failure`` whose text is the diff; ``not_run`` is ``skipped`` with its reason."""
    import xml.etree.ElementTree as ET

    summary = report.summary()
    suite = ET.Element(
        "testsuite",
        name=report.notebook,
        tests=str(summary["cells"]),
        failures=str(sum(1 for c in report.cells if c.reason in DIVERGENCES)),
        skipped=str(summary["not_run"]),
        errors="0",
    )
    for c in report.cells:
        case = ET.SubElement(suite, "testcase", classname="replay", name=f"cell {c.index} {c.kind} {c.call_id}")
        if c.reason in DIVERGENCES:
            after = f", after {c.after_not_run} (not run)" if c.after_not_run else ""
            failure = ET.SubElement(case, "failure", message=f"the replayed answer differs ({c.reason}{after})")
            failure.text = c.diff
        elif c.status == "not_run":
            ET.SubElement(case, "skipped", message=f"not run: {c.reason} {' '.join(c.missing_tools)}".strip())
    suites = ET.Element("testsuites")
    suites.append(suite)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def report_text(report: RunReport) -> str:
    """The lines the command prints: one per compared cell, a diff under each that differs,
    then the summary."""
    lines = []
    for c in report.cells:
        extra = f" ({', '.join(c.missing_tools)})" if c.missing_tools else ""
        extra += f" (after {c.after_not_run}, not run)" if c.after_not_run else ""
        lines.append(f"cell {c.index} {c.kind} {c.call_id}: {c.status}" + (f", {c.reason}" if c.reason else "") + extra)
        if c.diff:
            lines.append(c.diff.rstrip("\n"))
    s = report.summary()
    lines.append(f"{s['cells']} cells: {s['same']} same, {s['differs']} differ, {s['not_run']} not run")
    return "\n".join(lines) + "\n"
