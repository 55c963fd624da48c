"""The input history: what ``history_request`` answers, kept across kernel restarts.

As IPython keeps ``history.sqlite`` in its profile, the kernel keeps every input of an execute
request that stores history (:func:`codemode.kernel.counter.stores_history`: ``store_history``
true, not ``silent``, not blank; magics included) in an SQLite file, by default
``codemode/history.sqlite`` in the Jupyter data directory (``jupyter_core.paths.jupyter_data_dir()``,
which honours ``JUPYTER_DATA_DIR``). ``CODEMODE_HISTORY_FILE`` names another file, or
``:memory:`` for a history that ends with the kernel. Each kernel process is one *session*,
numbered by the file (1, 2, ...; kernels sharing the file get different numbers); a line's
number is its execution count.

Replies follow the Jupyter messaging specification ("History"): ``history`` is a list of
``[session, line, input]`` (``[session, line, [input, null]]`` when ``output`` is true: outputs
are not kept), oldest first:

- ``tail``: the last ``n`` inputs (10 when ``n`` is missing, none when it is 0): this
  kernel's own last lines, then those of the other sessions sharing the file, newest first by
  session number and line, the whole oldest first (this kernel's own last), as ipykernel's
  ``get_tail(include_latest=True)`` orders them (``jupyter console`` loads its up-arrow
  history with ``n=1000`` at start-up);
- ``range``: the lines ``start`` (default 1) up to ``stop`` (excluded; none or 0: to the end,
  as IPython's ``get_range``) of ``session``: a session number, 0 for this kernel's, -1 for
  the one before it, ...;
- ``search``: inputs matching the glob ``pattern`` (SQLite ``GLOB``: ``*``, ``?``, case
  sensitive; default ``*``), the last ``n`` of them when ``n`` is given (all when fewer
  match), and with ``unique`` each text once (its latest line).

``raw`` changes nothing: inputs are kept as they were typed, up to :data:`MAX_ENTRY_BYTES`
each: a longer input keeps its first part, cut at a character, and :func:`marker` after it
(twenty 5 MB cells made a 95 MB file; IPython keeps inputs whole). The file is used from one worker
thread, so the kernel's event loop never waits for the disk; lines are written in batches
(:data:`WRITE_DELAY_S`), so a kernel killed outright (SIGKILL) may lose its last half second of
input; SIGTERM writes them first (:meth:`History.close_at_sigterm`). A file that cannot be opened or
written (a read-only data directory, a corrupt file) is logged once; the kernel goes on with
an empty history.
"""

from __future__ import annotations

import asyncio
import codecs
import logging
import os
import signal
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from codemode.history_file import HISTORY_FILE_ENV, IN_MEMORY, history_location

log = logging.getLogger(__name__)

DEFAULT_TAIL = 10
"""Entries a ``tail`` request without ``n`` gets (IPython's default)."""
BUSY_TIMEOUT_S = 5.0
"""How long a write waits for another kernel holding the file's lock."""
WRITE_DELAY_S = 0.5
"""How long a stored line waits to be written with the lines that follow it (seconds). One
write per cell woke the writer thread while the kernel sent the cell's reply and idle status:
about 0.7 ms of a 6 ms round trip on the 2-core machine."""

MAX_ENTRY_BYTES = 2**20
"""The most of one input the history keeps, in UTF-8 bytes (1 MiB), the marker excluded."""

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS sessions (session INTEGER PRIMARY KEY AUTOINCREMENT, start REAL, end REAL)",
    "CREATE TABLE IF NOT EXISTS history (session INTEGER, line INTEGER, source TEXT, PRIMARY KEY (session, line))",
)

Entry = list[Any]


def marker(size: int) -> str:
    """What follows the kept part of an input of ``size`` UTF-8 bytes (a JavaScript comment, so
    a recalled entry is still a cell's text)."""
    return f"\n// [history: only the first {MAX_ENTRY_BYTES} of this input's {size} bytes are kept]"


def bounded(source: str) -> str:
    """``source`` when it has at most :data:`MAX_ENTRY_BYTES` UTF-8 bytes, else its longest
    prefix within them (whole characters) followed by :func:`marker`."""
    if len(source) * 4 <= MAX_ENTRY_BYTES:
        return source  # at most 4 bytes a character
    data = source.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_ENTRY_BYTES:
        return source
    head = codecs.getincrementaldecoder("utf-8")("surrogatepass").decode(data[:MAX_ENTRY_BYTES], final=False)
    return head + marker(len(data))


def default_location() -> str:
    """The history file (:func:`codemode.history_file.history_location`)."""
    return history_location()


class History:
    """One kernel's session of the history file ``location`` (see the module docstring)."""

    def __init__(self, location: str | None = None) -> None:
        self.location = location or default_location()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="codemode-history")
        self._db: sqlite3.Connection | None = None
        self._session: int | None = None
        self._broken = False
        self._closed = False
        self._pending: list[tuple[int, str]] = []
        self._flush_scheduled = False

    # -- the worker thread -------------------------------------------------------------
    def _open(self) -> sqlite3.Connection | None:
        """The connection, opened (and this kernel's session numbered) on first use; None once
        the file proved unusable."""
        if self._db is not None or self._broken:
            return self._db
        try:
            if self.location != IN_MEMORY:
                Path(self.location).parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.location, timeout=BUSY_TIMEOUT_S)
            with db:
                for statement in _SCHEMA:
                    db.execute(statement)
                cursor = db.execute("INSERT INTO sessions (start) VALUES (?)", (time.time(),))
            self._session = cursor.lastrowid
            self._db = db
        except (sqlite3.Error, OSError) as exc:
            self._fail(exc)
        return self._db

    def _fail(self, exc: BaseException) -> None:
        if not self._broken:
            log.warning("the input history is not kept (%s: %s): %s", type(exc).__name__, exc, self.location)
        self._broken = True

    def _store(self, lines: list[tuple[int, str]]) -> None:
        db = self._open()
        if db is None:
            return
        try:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO history (session, line, source) VALUES (?, ?, ?)",
                    [(self._session, line, source) for line, source in lines],
                )
        except sqlite3.Error as exc:
            self._fail(exc)

    def _query(self, content: dict[str, Any]) -> list[Entry]:
        db = self._open()
        if db is None:
            return []
        kind = content.get("hist_access_type")
        try:
            if kind == "tail":
                rows = self._tail(db, content.get("n"))
            elif kind == "range":
                rows = self._range(db, content.get("session"), content.get("start"), content.get("stop"))
            elif kind == "search":
                rows = self._search(db, content.get("pattern"), content.get("n"), bool(content.get("unique")))
            else:
                rows = []
        except sqlite3.Error as exc:
            log.warning("reading the input history failed: %s", exc)
            return []
        if content.get("output"):
            return [[session, line, [source, None]] for session, line, source in rows]
        return [[session, line, source] for session, line, source in rows]

    def _tail(self, db: sqlite3.Connection, n: int | None) -> list[tuple[int, int, str]]:
        limit = DEFAULT_TAIL if n is None else max(0, n)
        own = db.execute(
            "SELECT session, line, source FROM history WHERE session = ? ORDER BY line DESC LIMIT ?",
            (self._session, limit),
        ).fetchall()
        others = db.execute(
            "SELECT session, line, source FROM history WHERE session != ? ORDER BY session DESC, line DESC LIMIT ?",
            (self._session, limit),
        ).fetchall()
        return (own + others)[:limit][::-1]

    def _range(
        self, db: sqlite3.Connection, session: int | None, start: int | None, stop: int | None
    ) -> list[tuple[int, int, str]]:
        assert self._session is not None
        number = self._session + (session or 0) if session is None or session <= 0 else session
        sql = "SELECT session, line, source FROM history WHERE session = ? AND line >= ?"
        params: tuple[Any, ...] = (number, 1 if start is None else start)
        if stop:
            sql += " AND line < ?"
            params += (stop,)
        return db.execute(sql + " ORDER BY line", params).fetchall()

    def _search(
        self, db: sqlite3.Connection, pattern: str | None, n: int | None, unique: bool
    ) -> list[tuple[int, int, str]]:
        """The inputs matching the glob ``pattern``, oldest first: all of them (``n`` None) or
        the ``n`` most recent, however many match; with ``unique`` each text once, at its latest
        line. As IPython's ``HistoryAccessor.search``: SQLite picks the latest ``n`` (``ORDER BY
        ... DESC LIMIT n``) and the reply reverses them, so no index into the matches is
        computed (one that went below zero once dropped the oldest matches when ``n`` exceeded
        their number)."""
        # With GROUP BY, SQLite takes the other columns from the row where max() is reached.
        latest = ", max(session * 4294967296 + line)" if unique else ""
        sql = f"SELECT session, line, source{latest} FROM history WHERE source GLOB ?"
        sql += " GROUP BY source" if unique else ""
        params: tuple[Any, ...] = ("*" if pattern is None else pattern,)
        if n is None:
            rows = db.execute(sql + " ORDER BY session, line", params).fetchall()
        else:
            rows = db.execute(sql + " ORDER BY session DESC, line DESC LIMIT ?", (*params, max(0, n))).fetchall()[::-1]
        return [(session, line, source) for session, line, source, *_ in rows]

    def _close(self) -> None:
        db, self._db = self._db, None
        if db is None:
            return
        try:
            with db:
                db.execute("UPDATE sessions SET end = ? WHERE session = ?", (time.time(), self._session))
        except sqlite3.Error as exc:
            log.debug("the history session's end was not recorded: %s", exc)
        db.close()

    # -- the kernel's loop -------------------------------------------------------------
    def store(self, line: int, source: str) -> None:
        """Keep ``source`` as line ``line`` of this kernel's session: written in the background
        :data:`WRITE_DELAY_S` later with the lines stored meanwhile, in the order of the calls
        (at once before a ``history_request`` is answered and when the history closes); nothing
        once :meth:`close` ran. A long ``source`` is cut (:func:`bounded`)."""
        if self._closed:
            return
        self._pending.append((line, bounded(source)))
        if not self._flush_scheduled:
            self._flush_scheduled = True
            asyncio.get_running_loop().call_later(WRITE_DELAY_S, self._flush)

    def _flush(self) -> None:
        """Hand the lines stored so far to the worker thread, as one write. Touches no event
        loop: :meth:`close` may run on ipykernel's control thread. A timer that finds the lines
        written already (a request or the close flushed them) writes the later ones, or nothing."""
        self._flush_scheduled = False
        lines, self._pending = self._pending, []
        if lines:
            self._worker.submit(self._store, lines)

    async def request(self, content: dict[str, Any]) -> list[Entry]:
        """The ``history`` of a ``history_reply`` for a request's ``content`` (module
        docstring); empty when the file cannot be used."""
        if self._closed:
            return []
        self._flush()
        return await asyncio.get_running_loop().run_in_executor(self._worker, self._query, content)

    def close_at_sigterm(self) -> None:
        """From now on SIGTERM (what jupyter_client sends a kernel that did not end after its
        ``shutdown_request``, or a ``kill``) first closes the history, writing the lines that
        wait for their batch, then ends the process as the handler before did (by default, as
        the signal does). Main thread only."""
        before = signal.getsignal(signal.SIGTERM)

        def on_sigterm(signum: int, frame: Any) -> None:
            self.close()
            if callable(before):
                before(signum, frame)
                return
            signal.signal(signal.SIGTERM, signal.SIG_DFL if before is None else before)
            os.kill(os.getpid(), signal.SIGTERM)

        signal.signal(signal.SIGTERM, on_sigterm)

    def close(self) -> None:
        """Record the session's end and close the file once the writes queued so far are done
        (idempotent)."""
        if self._closed:
            return
        self._flush()
        self._closed = True
        self._worker.submit(self._close)
        self._worker.shutdown(wait=True)


__all__ = ["HISTORY_FILE_ENV", "History", "default_location"]
