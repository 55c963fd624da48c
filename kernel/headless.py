"""Headless runs: a cell that did not ask to yield runs to its end before its reply.

A notebook runner (nbclient and what is built on it: ``python -m codemode run``, ``jupyter
nbconvert --execute``, ``jupyter execute``, papermill; nbval) sends the cells one after the
other and saves what each showed by its reply. A cell that yields at the default yield time
would leave its result out of the saved notebook, and a later cell that loads what it stores
would run too early. So in a headless request:

- a cell whose pragma gives no ``yield_time_ms`` runs to its end: the kernel asks the host
  for the longest observation the session allows
  (:func:`codemode.kernel.observer.wait_time_ms`), and when that ends by its timer (a cell
  running longer, or an output window that filled) it keeps waiting (:func:`follow_wait_ms`),
  showing each answer's output under the request, until the cell ends;
- a cell that asks to yield still yields: one with ``yield_time_ms`` in its pragma, and one
  that calls ``yield_control()`` (a ``Yielded`` that came before the observation's timer,
  :func:`asked_to_yield`), so harnesses that pair a yielding cell with ``%wait`` keep working;
- a ``%wait`` without ``--yield-time-ms`` waits until its cell ends or calls
  ``yield_control()`` (:data:`UNTIL_END_MS`);
- every headless reply lists the yielded cells still running after it
  (``metadata.codemode.still_running``, :func:`still_running_metadata`), so a runner fails the
  run when its last cell leaves one running (``python -m codemode run`` does); ``%finished``
  (the last cell of a notebook run by another runner) is an error naming them; at shutdown the
  kernel logs them.

Which requests are headless: ``[session] headless`` in ``codemode.toml`` or the
``CODEMODE_HEADLESS`` variable (:data:`codemode.kernel.services.HEADLESS_VARIABLE`):
``auto`` (the default) for a request whose ``allow_stdin`` is false (no person can answer an
``input_request``: nbclient and nbval send false, JupyterLab and ``jupyter console`` send
true; Jupyter messaging specification, ``execute_request``), ``always`` or ``never``.
"""

from __future__ import annotations

from typing import Any

from codemode.kernel.cells import CellRecord
from codemode.kernel.observer import TIMER_SLACK_S
from codemode.pragma import PRAGMA_PREFIX
from codemode.responses import RuntimeResponse

UNTIL_END_MS = 2**53 - 1
"""The time a headless ``%wait`` without ``--yield-time-ms`` gives its cell: no end (the
runner's own per-cell timeout interrupts it, which terminates the cell)."""
MIN_FOLLOW_WAIT_MS = 1000
"""Shortest wait with which a cell that runs to its end is followed after its first answer
(:func:`follow_wait_ms`)."""
FULL_WINDOW_CHARS = 32 * 1024 * 1024
"""Characters of output from which an early ``Yielded`` is taken for the host's full output
window (64 MiB, when it answers an execute at once), not for ``yield_control()``."""


def is_headless(setting: str, allow_stdin: bool) -> bool:
    """Whether a request runs headless under ``setting`` (``auto``, ``always``, ``never``:
    ``[session] headless``); ``auto``: when the request's ``allow_stdin`` is false."""
    if setting == "always":
        return True
    if setting == "never":
        return False
    return not allow_stdin


def follow_wait_ms(default_yield_ms: int | None, first_ms: int) -> int:
    """The yield time of each wait that follows a cell running to its end once its first
    answer (asked with ``first_ms``, the longest the session allows) came by the timer or a
    full output window: the kernel's default yield time, at least :data:`MIN_FOLLOW_WAIT_MS`
    and at most ``first_ms``. A wait keeps its yield time when the cell's output window fills
    (``runtime/livecell.py``), so a cell printing more than a window goes on at one window
    per wait."""
    return min(first_ms, max(MIN_FOLLOW_WAIT_MS, default_yield_ms or 0))


def _chars(items: list[dict[str, Any]]) -> int:
    return sum(len(value) for item in items for value in item.values() if isinstance(value, str))


def asked_to_yield(response: RuntimeResponse, elapsed_s: float, requested_ms: int) -> bool:
    """Whether a ``Yielded`` answer came from the cell's ``yield_control()``: it came
    ``elapsed_s`` seconds after its request, before the request's ``requested_ms`` ran out
    (the host's timer starts no earlier than the request), and carries less than a full
    output window (:data:`FULL_WINDOW_CHARS`)."""
    if response.kind != "Yielded":
        return False
    early = elapsed_s < requested_ms / 1000 - TIMER_SLACK_S
    return early and _chars(response.content_items) < FULL_WINDOW_CHARS


def _running(record: CellRecord) -> bool:
    return record.final is None and record.state == "running"


def mark_yielded(cells: dict[str, CellRecord]) -> None:
    """Mark every cell still running as yielded (``CellRecord.yielded``): called when an
    execute reply goes out, which a running cell outlives only by yielding."""
    for record in cells.values():
        if _running(record):
            record.yielded = True


def still_running(cells: dict[str, CellRecord]) -> list[CellRecord]:
    """The cells that yielded (:func:`mark_yielded`) and still run, in the order they started;
    a cell whose request has not been answered yet (a headless cell running to its end, stopped
    by a shutdown) is not one of them."""
    return [record for record in cells.values() if record.yielded and _running(record)]


def first_line(record: CellRecord) -> str:
    """The first line of ``record``'s source after its pragma (empty once it was closed)."""
    code = str(record.parent.get("content", {}).get("code", ""))
    lines = [line for line in code.splitlines() if line.strip()]
    if lines and lines[0].lstrip().startswith(PRAGMA_PREFIX):
        lines = lines[1:]
    return lines[0].strip() if lines else ""


def still_running_metadata(cells: dict[str, CellRecord]) -> list[dict[str, Any]]:
    """``metadata.codemode.still_running`` of a headless reply: ``[{"cell_id", "execution_count",
    "first_line"}]`` of each cell :func:`still_running`."""
    return [
        {"cell_id": r.cell_id, "execution_count": r.execution_count, "first_line": first_line(r)}
        for r in still_running(cells)
    ]


def describe(entry: dict[str, Any]) -> str:
    """One entry of :func:`still_running_metadata` in words: ``cell 1 (In [1]: `code`)``."""
    line = entry.get("first_line") or ""
    shown = line if len(line) <= 60 else line[:59] + "…"
    return f"cell {entry['cell_id']} (In [{entry['execution_count']}]{': `' + shown + '`' if shown else ''})"


def unfinished_message(entries: list[dict[str, Any]]) -> str:
    """Why a run whose last cell left ``entries`` (:func:`still_running_metadata`, not empty)
    running fails, naming each cell."""
    names = ", ".join(describe(e) for e in entries)
    verb = "was" if len(entries) == 1 else "were"
    ids = " ".join(str(e["cell_id"]) for e in entries)
    return (
        f"{names} yielded and {verb} still running when the notebook's last cell had run. "
        f"Wait for {'it' if len(entries) == 1 else 'them'} in a later cell (%wait {ids.split()[0]}), "
        "or let the cell run to its end: no yield_time_ms in its pragma, no yield_control()."
    )
