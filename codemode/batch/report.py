"""What a batch shows: a progress bar while it runs, a summary table when it ends, JUnit XML.

The bar and the table are drawn with ``rich``. The bar goes to stderr and is drawn only on a
terminal (rich draws nothing live into a pipe or file); the table and the count line go to
stdout. The count line reads ``8 notebooks: 4 passed, 2 failed, 0 diverged, 1 timed out`` (and
``, 1 stopped`` after Ctrl-C), the statuses of :data:`codemode.batch.job.STATUSES`.
"""

from __future__ import annotations

import threading
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from types import TracebackType
from typing import TextIO

from rich import box
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TaskID, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Table

from codemode.batch.job import DIVERGED, FAILED, PASSED, STATUSES, STOPPED, TIMED_OUT, Job, Outcome

STYLES = {PASSED: "green", FAILED: "red", DIVERGED: "yellow", TIMED_OUT: "magenta", STOPPED: "dim"}
DETAIL_CHARS = 3000
"""The most of a failure's detail printed under the table (its end, where the error is)."""


class Progress:
    """The batch's progress bar (a context manager): ``started``/``finished`` are the
    executor's callbacks, thread-safe."""

    def __init__(self, total: int, noun: str) -> None:
        console = Console(stderr=True)
        self._bar = RichProgress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TextColumn("{task.fields[running]}"),
            console=console,
            disable=not console.is_terminal,
        )
        self._lock = threading.Lock()
        self._running: list[str] = []
        self._task: TaskID = self._bar.add_task(noun, total=total, running="")

    def __enter__(self) -> Progress:
        self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._bar.stop()

    def _show(self) -> None:
        self._bar.update(self._task, running=", ".join(self._running[-3:]))

    def started(self, job: Job) -> None:
        with self._lock:
            self._running.append(job.name)
            self._show()

    def finished(self, outcome: Outcome) -> None:
        with self._lock:
            if outcome.name in self._running:
                self._running.remove(outcome.name)
            self._bar.advance(self._task)
            self._show()


def counts_line(outcomes: Sequence[Outcome], noun: str) -> str:
    """``N NOUNs: a passed, b failed, c diverged, d timed out`` (and ``, e stopped`` when any
    was)."""
    counts = {status: sum(1 for o in outcomes if o.status == status) for status in STATUSES}
    shown = [f"{counts[s]} {s}" for s in STATUSES if s != STOPPED or counts[s]]
    return f"{len(outcomes)} {noun}{'s' if len(outcomes) != 1 else ''}: " + ", ".join(shown)


def print_summary(outcomes: Sequence[Outcome], noun: str, out: TextIO) -> None:
    """The table (one row per run: name, status, seconds), the detail of each run that did not
    pass, then :func:`counts_line`."""
    console = Console(file=out, width=max(100, Console(file=out).width), highlight=False)
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column(noun, overflow="fold")
    table.add_column("status")
    table.add_column("seconds", justify="right")
    for outcome in outcomes:
        style = STYLES.get(outcome.status, "")
        table.add_row(outcome.name, f"[{style}]{outcome.status}[/]", f"{outcome.seconds:.1f}")
    console.print(table)
    for outcome in outcomes:
        if outcome.status not in (PASSED, STOPPED) and outcome.detail:
            detail = outcome.detail.rstrip("\n")
            if len(detail) > DETAIL_CHARS:
                detail = "…" + detail[-DETAIL_CHARS:]
            console.print(f"── {outcome.name}: {outcome.status}", style="bold", markup=False, soft_wrap=True)
            console.print(detail, markup=False, soft_wrap=True)
    console.print(counts_line(outcomes, noun), markup=False, soft_wrap=True)


def junit_xml(outcomes: Sequence[Outcome], suite: str) -> str:
    """JUnit XML: one ``testsuite`` named ``suite``, one ``testcase`` per run (``name`` the
    run's name, ``time`` its seconds); ``failed`` and ``diverged`` are a ``failure``,
    ``timed out`` an ``error``, ``stopped`` ``skipped``, each with the run's detail as text."""
    cases = ET.Element("testsuite", name=suite, tests=str(len(outcomes)))
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    for outcome in outcomes:
        case = ET.SubElement(cases, "testcase", classname=suite, name=outcome.name, time=f"{outcome.seconds:.3f}")
        tag = {FAILED: "failure", DIVERGED: "failure", TIMED_OUT: "error", STOPPED: "skipped"}.get(outcome.status)
        if tag is None:
            continue
        counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[tag]] += 1
        element = ET.SubElement(case, tag, message=outcome.status)
        element.text = outcome.detail
    cases.attrib.update({key: str(value) for key, value in counts.items()})
    cases.set("time", f"{sum(o.seconds for o in outcomes):.3f}")
    suites = ET.Element("testsuites")
    suites.append(cases)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
