"""Property tests: random numbers, dates, strings and option bags in en-US give V8's results.

Each example is one cell of many expressions on the real host and the same expressions in
mini-racer's V8 (see ``test_intl.py``); results, errors included, must be equal strings.
Most examples build a new formatter per expression, so they also exercise the check of the
ICU formatter against V8 on probe values (``runtime/intl/registry.py``).
"""

from __future__ import annotations

import asyncio
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rt_client import start_host
from test_intl import assert_same, in_quickjs, in_v8

EXAMPLES = int(os.environ.get("CODEMODE_INTL_EXAMPLES", "10"))
PER_CELL = 40


def _bag(**fields) -> st.SearchStrategy[dict]:
    """An option bag: each field present or not."""
    return st.fixed_dictionaries({}, optional=fields)


_digits = st.integers(0, 8)
_number_options = _bag(
    style=st.sampled_from(["decimal", "percent", "currency", "unit"]),
    currency=st.sampled_from(["USD", "EUR", "JPY", "GBP", "INR", "CHF"]),
    currencyDisplay=st.sampled_from(["symbol", "narrowSymbol", "code", "name"]),
    currencySign=st.sampled_from(["standard", "accounting"]),
    unit=st.sampled_from(["kilometer", "percent", "byte", "liter-per-kilometer", "second"]),
    unitDisplay=st.sampled_from(["short", "narrow", "long"]),
    notation=st.sampled_from(["standard", "scientific", "engineering", "compact"]),
    compactDisplay=st.sampled_from(["short", "long"]),
    signDisplay=st.sampled_from(["auto", "never", "always", "exceptZero", "negative"]),
    useGrouping=st.sampled_from([True, False, "min2", "auto", "always"]),
    minimumIntegerDigits=st.integers(1, 5),
    minimumFractionDigits=_digits,
    maximumFractionDigits=_digits,
    maximumSignificantDigits=st.integers(1, 21),
    roundingMode=st.sampled_from(
        ["ceil", "floor", "expand", "trunc", "halfCeil", "halfFloor", "halfExpand", "halfTrunc", "halfEven"]
    ),
    roundingPriority=st.sampled_from(["auto", "morePrecision", "lessPrecision"]),
    trailingZeroDisplay=st.sampled_from(["auto", "stripIfInteger"]),
)
_numbers = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e7, 1e7).map(lambda x: round(x, 3)),
    st.integers(-(10**12), 10**12),
    st.decimals(-1000, 1000, places=4, allow_nan=False).map(float),
)
_times = st.one_of(st.integers(-8_640_000_000_000_000, 8_640_000_000_000_000), st.integers(-(10**13), 4 * 10**12))
_date_options = _bag(
    timeZone=st.sampled_from(
        ["UTC", "America/New_York", "Europe/Paris", "Asia/Kolkata", "Australia/Lord_Howe", "-03:30"]
    ),
    weekday=st.sampled_from(["narrow", "short", "long"]),
    era=st.sampled_from(["narrow", "short", "long"]),
    year=st.sampled_from(["numeric", "2-digit"]),
    month=st.sampled_from(["numeric", "2-digit", "narrow", "short", "long"]),
    day=st.sampled_from(["numeric", "2-digit"]),
    hour=st.sampled_from(["numeric", "2-digit"]),
    minute=st.sampled_from(["numeric", "2-digit"]),
    second=st.sampled_from(["numeric", "2-digit"]),
    fractionalSecondDigits=st.integers(1, 3),
    timeZoneName=st.sampled_from(["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"]),
    hour12=st.booleans(),
    hourCycle=st.sampled_from(["h11", "h12", "h23", "h24"]),
    dayPeriod=st.sampled_from(["narrow", "short", "long"]),
)
_styled_date_options = _bag(
    timeZone=st.sampled_from(["UTC", "Asia/Tokyo", "America/Sao_Paulo"]),
    dateStyle=st.sampled_from(["full", "long", "medium", "short"]),
    timeStyle=st.sampled_from(["full", "long", "medium", "short"]),
    hour12=st.booleans(),
    hourCycle=st.sampled_from(["h11", "h12", "h23", "h24"]),
)
_words = st.text(st.sampled_from("aAbBcCeEéÉèzZäÄöÖßsS-_ 019.,'"), max_size=6)
_collator_options = _bag(
    sensitivity=st.sampled_from(["base", "accent", "case", "variant"]),
    numeric=st.booleans(),
    caseFirst=st.sampled_from(["upper", "lower", "false"]),
    ignorePunctuation=st.booleans(),
    usage=st.sampled_from(["sort", "search"]),
)


def _js(value) -> str:
    if isinstance(value, float) and value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    return json.dumps(value)


def _check(expressions: list[str]) -> None:
    async def run() -> list[str]:
        host = await start_host()
        try:
            await host.hello()
            await host.open("s1")
            return await in_quickjs(host, expressions)
        finally:
            await host.close()

    assert_same(expressions, asyncio.run(run()), in_v8(expressions))


SETTINGS = settings(
    max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@SETTINGS
@given(st.lists(st.tuples(_numbers, _number_options), min_size=PER_CELL, max_size=PER_CELL))
def test_numbers_format_as_v8(cases):
    """``toLocaleString`` and ``Intl.NumberFormat`` of random numbers and option bags."""
    _check([f"({_js(n)}).toLocaleString('en-US', {json.dumps(o)})" for n, o in cases])


@SETTINGS
@given(st.lists(st.tuples(_times, st.one_of(_date_options, _styled_date_options), st.sampled_from(["DateTimeFormat", "toLocaleString", "toLocaleDateString", "toLocaleTimeString"])), min_size=PER_CELL, max_size=PER_CELL))  # fmt: skip
def test_dates_format_as_v8(cases):
    """``Intl.DateTimeFormat`` and the ``Date`` methods for random times and option bags."""
    expressions = []
    for t, options, how in cases:
        if how == "DateTimeFormat":
            expressions.append(f"new Intl.DateTimeFormat('en-US', {json.dumps(options)}).format({t})")
        else:
            expressions.append(f"new Date({t}).{how}('en-US', {json.dumps(options)})")
    _check(expressions)


@SETTINGS
@given(
    st.lists(
        st.tuples(st.lists(_words, min_size=2, max_size=12), _collator_options), min_size=PER_CELL, max_size=PER_CELL
    )
)
def test_collation_sorts_as_v8(cases):
    """``localeCompare`` and ``Intl.Collator`` sort random words as V8 does."""
    expressions = [
        f"JSON.stringify({json.dumps(words)}.map((w, i) => [w, i]).sort((a, b) => a[0].localeCompare(b[0], 'en-US', {json.dumps(o)}) || a[1] - b[1]))"
        for words, o in cases
    ]
    _check(expressions)
