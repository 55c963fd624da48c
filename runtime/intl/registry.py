"""Intl objects of QuickJS cells: V8 resolves them, ICU formats the frequent calls.

An object is named by its *key*, the JSON text the prelude makes of the constructor (or the
``Date`` method), the locales and the options snapshot. The first use of a key asks V8 to
construct it (V8's own option checks, errors and ``resolvedOptions()``) and to answer the
probe calls below. When ICU is there and the key's kind has an ICU formatter, the formatter
is built from the resolved options and must give V8's answers to every probe; then it
serves that key's frequent calls (about 1 µs each, against 0.3 ms for a call into V8).
Everything else, and every key whose probes differ, is answered by V8 itself, so a result
is V8's in every case, only slower. Entries are shared by the host's cells (they hold no
cell data) and the least recently used go past :data:`LIMIT`.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codemode.runtime.intl import oracle
from codemode.runtime.intl.values import Options, Slow, decode

log = logging.getLogger(__name__)

LIMIT = 512
"""Entries kept (distinct constructor, locales and options combinations)."""

Formatter = Callable[[str, list[Any]], Any]

PROBE_NUMBERS: list[Any] = [
    -1234567.891, 0, {"$": "-0"}, 0.5, 1, 2.5, 1500, 0.000123456, 98765432109.87, 1e21, -7.005, {"$bigint": "-12345678901234567890"},
]  # fmt: skip
PROBE_DATES = [
    1732381509123,  # 2024-11-23T17:05:09.123Z, a Saturday afternoon
    915246245006,  # 1999-01-02T03:04:05.006Z
    1720053000000,  # 2024-07-04T00:30:00Z (summer time; hour 0)
    1720094400000,  # 2024-07-04T12:00:00Z (noon)
    -12219292800000,  # 1582-10-15T00:00:00Z (the Gregorian change)
]
PROBE_WORDS = [
    "a", "A", "b", "B", "ä", "Ä", "z", "Z", "ab", "a b", "a-b", "a1", "a10", "a2", "résumé", "resume", "Résumé",
    "ß", "ss", "æ", "ae", "å", "aa", "ch", "c", "d", "ñ", "n", "ö", "o", "", " ", "1", "10", "2", "_", "é", "e",
    "ø", "oe", "ü", "u", "v", "w", "y", "ij", "I", "ı", "i", "İ", "日本", "カ", "か",
]  # fmt: skip
PROBE_PAIRS = [
    [PROBE_WORDS[i], PROBE_WORDS[(i + step) % len(PROBE_WORDS)]] for i in range(len(PROBE_WORDS)) for step in (1, 2, 5)
]


@dataclass
class Entry:
    """One resolved Intl object: V8's ``resolvedOptions()`` and, when verified, an ICU formatter."""

    resolved: dict[str, Any]
    fast: Formatter | None


def _number_formatter(options: Options) -> Formatter:
    from codemode.runtime.intl.icu_numbers import NumberFormatter

    return NumberFormatter(options)


def _date_formatter(options: Options) -> Formatter:
    from codemode.runtime.intl.icu_dates import DateFormatter

    return DateFormatter(options)


def _comparer(options: Options) -> Formatter:
    from codemode.runtime.intl.icu_collation import Comparer

    return Comparer(options)


_NUMBERS = ("format", [[n] for n in PROBE_NUMBERS], _number_formatter)
_DATES = ("format", [[t] for t in PROBE_DATES], _date_formatter)
_COLLATION = ("compare", PROBE_PAIRS, _comparer)
FAST: dict[str, tuple[str, list[list[Any]], Callable[[Options], Formatter]]] = {
    "NumberFormat": _NUMBERS,
    "Number:toLocaleString": _NUMBERS,
    "BigInt:toLocaleString": _NUMBERS,
    "DateTimeFormat": _DATES,
    "Date:toLocaleString": _DATES,
    "Date:toLocaleDateString": _DATES,
    "Date:toLocaleTimeString": _DATES,
    "Collator": _COLLATION,
    "String:localeCompare": _COLLATION,
}
"""Per kind (a constructor, or a built-in method that formats through one): the method ICU
serves, the probe argument lists, and the formatter's builder."""

_entries: OrderedDict[str, Entry] = OrderedDict()
_lock = threading.Lock()
_icu_problem: str | None = None
_icu_checked = False


def _icu_available() -> bool:
    global _icu_checked, _icu_problem
    if not _icu_checked:
        _icu_checked = True
        try:
            import icu  # noqa: F401 - only whether it loads
        except ImportError as exc:
            _icu_problem = str(exc)
            log.warning("ICU (PyICU) cannot be loaded (%s): every Intl call goes to V8", exc)
    return _icu_problem is None


def entry(key: str) -> Entry:
    """The entry for ``key``, made on first use; raises :class:`~.oracle.IntlError` as V8's constructor does."""
    with _lock:
        found = _entries.get(key)
        if found is not None:
            _entries.move_to_end(key)
            return found
    spec = json.loads(key)
    kind = spec.get("kind")
    fast = FAST.get(kind) if _icu_available() else None
    request: dict[str, Any] = {"op": "new", "key": key}
    if fast is not None:
        request.update(probeMethod=fast[0], probe=fast[1])
    reply = oracle.ask(request)
    requested = spec.get("options")
    options = Options(reply["resolved"], reply.get("basis") or {}, requested if isinstance(requested, dict) else {})
    made = Entry(reply["resolved"], _verified(kind, fast, options, reply["probe"]) if fast is not None else None)
    with _lock:
        _entries[key] = made
        while len(_entries) > LIMIT:
            _entries.popitem(last=False)
    return made


def _verified(
    kind: str, fast: tuple[str, list[list[Any]], Any], options: Options, expected: list[Any]
) -> Formatter | None:
    """The ICU formatter when it answers every probe as V8 did, else ``None`` (V8 serves the key)."""
    method, probes, build = fast
    try:
        formatter = build(options)
        answers = [formatter(method, decode(args)) for args in probes]
    except Exception:  # noqa: BLE001 - an option ICU cannot take here: V8 serves the key
        log.debug("no ICU formatter for %s %s", kind, options.resolved, exc_info=True)
        return None
    if answers != expected:
        log.info("ICU differs from V8 for %s %s: V8 serves it", kind, options.resolved)
        return None
    return formatter


def call(key: str, method: str, args: list[Any]) -> Any:
    """``method(...args)`` on the object ``key`` names (args encoded as :mod:`.values` says)."""
    found = entry(key)
    if method == "resolvedOptions":
        return found.resolved
    if found.fast is not None:
        try:
            return found.fast(method, decode(args))
        except Slow:
            pass
    return oracle.ask({"op": "call", "key": key, "method": method, "args": args})


def fast_path(key: str) -> bool:
    """Whether ICU serves ``key``'s frequent calls (for tests and diagnostics)."""
    return entry(key).fast is not None
