"""``Intl.DateTimeFormat`` (and ``Date#toLocale*String``) formatting through ICU.

The pattern is made as V8 makes it (``src/objects/js-date-time-format.cc``): a skeleton from
the requested components (V8's table of option values to pattern letters, the hour letter
from the hour cycle), ``DateTimePatternGenerator::getBestPattern`` with
``UDATPG_MATCH_HOUR_FIELD_LENGTH``, then the hour letters replaced for the hour cycle; for
``dateStyle``/``timeStyle``, ICU's style pattern, rebuilt from its skeleton when its hour
cycle is not the resolved one. The calendar is proleptic Gregorian (ECMAScript dates are),
the time zone the resolved one. Chromium's ICU data, which V8 carries, has a plain space
where CLDR puts U+202F in time patterns (``5:05 PM``), and so do the patterns here. The caller checks the result against V8 on probe values
before using it (:mod:`.registry`).
"""

from __future__ import annotations

import math
import threading
from typing import Any

from codemode.runtime.intl.values import Options, Slow

COMPONENTS: tuple[tuple[str, dict[str, str]], ...] = (
    ("weekday", {"narrow": "EEEEE", "long": "EEEE", "short": "EEE"}),
    ("era", {"narrow": "GGGGG", "long": "GGGG", "short": "GGG"}),
    ("year", {"2-digit": "yy", "numeric": "y"}),
    ("month", {"narrow": "MMMMM", "long": "MMMM", "short": "MMM", "2-digit": "MM", "numeric": "M"}),
    ("day", {"2-digit": "dd", "numeric": "d"}),
    ("dayPeriod", {"narrow": "BBBBB", "long": "BBBB", "short": "B"}),
    ("hour", {"2-digit": "##", "numeric": "#"}),  # '#' stands for the hour cycle's letter
    ("minute", {"2-digit": "mm", "numeric": "m"}),
    ("second", {"2-digit": "ss", "numeric": "s"}),
    (
        "timeZoneName",
        {
            "long": "zzzz",
            "short": "z",
            "longOffset": "OOOO",
            "shortOffset": "O",
            "longGeneric": "vvvv",
            "shortGeneric": "v",
        },
    ),
)
HOUR_LETTERS = {"h11": "K", "h12": "h", "h23": "H", "h24": "k"}
STYLES = {"full": 0, "long": 1, "medium": 2, "short": 3}
NO_STYLE = -1
START_OF_TIME_MS = -9007199254740992.0
"""Gregorian from the beginning of ECMAScript time (V8 sets the same change date)."""
MAX_TIME_MS = 8.64e15


def replace_hour_cycle(pattern: str, hour_cycle: str | None) -> str:
    """The pattern with every unquoted hour letter made the hour cycle's; a space is put after a day letter."""
    if hour_cycle is None:
        return pattern
    letter = HOUR_LETTERS[hour_cycle]
    out = []
    quoted = False
    last = ""
    for ch in pattern:
        if ch == "'":
            quoted = not quoted
            out.append(ch)
        elif ch in "hHkK":
            if not quoted and last == "d":
                out.append(" ")
            out.append(ch if quoted else letter)
        else:
            out.append(ch)
        last = ch
    return "".join(out)


def hour_cycle_of(pattern: str) -> str | None:
    """The hour cycle of the first unquoted hour letter of a pattern (``None`` without one)."""
    quoted = False
    for ch in pattern:
        if ch == "'":
            quoted = not quoted
        elif not quoted and ch in "KhHk":
            return {"K": "h11", "h": "h12", "H": "h23", "k": "h24"}[ch]
    return None


def component_skeleton(basis: dict[str, Any], hour_cycle: str | None) -> str:
    """The skeleton V8 asks the pattern generator for, from the requested components."""
    letter = HOUR_LETTERS.get(hour_cycle or "", "j")
    parts = []
    for name, letters in COMPONENTS:
        if name == "timeZoneName":
            parts.append("S" * int(basis.get("fractionalSecondDigits") or 0))
        value = basis.get(name)
        if value is not None:
            parts.append(letters[value].replace("#", letter))
    return "".join(parts)


def icu_locale(resolved: dict[str, Any]) -> Any:
    """The ICU locale V8 formats with: the resolved locale with its calendar and numbering system."""
    import icu

    locale = icu.Locale.forLanguageTag(resolved["locale"])
    keywords = icu.Locale.forLanguageTag(f"und-u-ca-{resolved['calendar']}-nu-{resolved['numberingSystem']}")
    for key in ("calendar", "numbers"):
        locale.setKeywordValue(key, keywords.getKeywordValue(key))
    return locale


def time_zone(name: str) -> Any:
    """ICU's time zone for a resolved ``timeZone`` (an offset such as ``+05:30`` is ``GMT+05:30`` there)."""
    import icu

    return icu.TimeZone.createTimeZone("GMT" + name if name[:1] in "+-" else name)


class DateFormatter:
    """``format`` of one date formatter; other methods, and NaN or out-of-range times, go to V8."""

    def __init__(self, options: Options) -> None:
        import icu

        resolved, basis = options.resolved, options.basis
        locale = icu_locale(resolved)
        generator = icu.DateTimePatternGenerator.createInstance(locale)
        match = icu.UDateTimePatternMatchOptions.HOUR_FIELD_LENGTH
        hour_cycle = resolved.get("hourCycle")
        date_style, time_style = resolved.get("dateStyle"), resolved.get("timeStyle")
        if date_style is None and time_style is None:
            # Hours that are a default component (Date#toLocaleString()) keep the generator's
            # letters: V8 sets the hour cycle only for an hour the options asked for.
            cycle = hour_cycle if options.requested.get("hour") is not None else None
            best = generator.getBestPattern(component_skeleton(basis, hour_cycle), match)
            pattern = replace_hour_cycle(str(best), cycle)
        else:
            styled = icu.DateFormat.createDateTimeInstance(
                STYLES.get(date_style or "", NO_STYLE), STYLES.get(time_style or "", NO_STYLE), locale
            )
            pattern = str(styled.toPattern())
            if time_style is not None and hour_cycle_of(pattern) != hour_cycle:
                skeleton = str(icu.DateTimePatternGenerator.staticGetSkeleton(pattern))
                letter = HOUR_LETTERS[hour_cycle or ""]  # a KeyError leaves the object to V8
                skeleton = "".join(letter if c in "hHkK" else c for c in skeleton if c not in "abB")
                pattern = replace_hour_cycle(str(generator.getBestPattern(skeleton, match)), hour_cycle)
        pattern = pattern.replace("\u202f", " ")  # Chromium's ICU data has a plain space there
        calendar = icu.Calendar.createInstance(time_zone(resolved["timeZone"]), locale)
        if isinstance(calendar, icu.GregorianCalendar):
            calendar.setGregorianChange(START_OF_TIME_MS)
        self._format = icu.SimpleDateFormat(pattern, locale)
        self._format.setCalendar(calendar)
        self._lock = threading.Lock()  # a SimpleDateFormat is not safe to share between threads
        self.pattern = pattern

    def __call__(self, method: str, args: list[Any]) -> Any:
        if method != "format" or not args:
            raise Slow
        value = args[0]
        if isinstance(value, bool) or not isinstance(value, int | float) or not -MAX_TIME_MS <= value <= MAX_TIME_MS:
            raise Slow
        seconds = _seconds(int(value))
        with self._lock:
            return str(self._format.format(seconds))


def _seconds(ms: int) -> float:
    """``ms`` in seconds, as PyICU takes a date (it multiplies by 1000): a float that gives ``ms`` back exactly."""
    guess = ms / 1000
    for candidate in (guess, math.nextafter(guess, math.inf), math.nextafter(guess, -math.inf)):
        if candidate * 1000 == ms:
            return candidate
    raise Slow
