"""The host's Intl service (``codemode.runtime.intl``): ICU serves only what it formats as V8 does.

ICU answers the frequent calls (``format``, ``compare``) in about a microsecond, V8 in 0.3 ms;
a sort with ``localeCompare`` makes thousands. These tests pin that the common formatters
are ICU's, that a formatter whose probe answers differ from V8's is never used, and that a
call ICU leaves aside is still answered, by V8.
"""

from __future__ import annotations

import json

import pytest

from codemode.runtime import intl
from codemode.runtime.intl import registry
from codemode.runtime.intl.values import Options

pytestmark = pytest.mark.unit


def key(kind: str, locales=None, options=None) -> str:
    spec: dict = {"kind": kind}
    if locales is not None:
        spec["locales"] = locales
    if options is not None:
        spec["options"] = options
    return json.dumps(spec)


def call(k: str, method: str, *args) -> dict:
    return intl.handle(json.dumps({"op": "call", "key": k, "method": method, "args": list(args)}))


COMMON = [
    key("Number:toLocaleString"),
    key("Number:toLocaleString", "en-US", {"maximumFractionDigits": 2}),
    key("Number:toLocaleString", "de-DE", {"style": "currency", "currency": "EUR"}),
    key("NumberFormat", "en-US", {"style": "percent"}),
    key("NumberFormat", "en-US", {"notation": "compact"}),
    key("NumberFormat", "ja-JP", {"style": "currency", "currency": "JPY"}),
    key("Date:toLocaleString"),
    key("Date:toLocaleDateString", "en-US", {"timeZone": "UTC"}),
    key("Date:toLocaleTimeString", "fr-FR", {"hour": "2-digit", "minute": "2-digit"}),
    key("DateTimeFormat", "en-US", {"dateStyle": "medium", "timeStyle": "short", "timeZone": "America/New_York"}),
    key("DateTimeFormat", "en-GB", {"weekday": "long", "day": "numeric", "month": "long"}),
    key("DateTimeFormat", "en-US", {"timeStyle": "short", "timeZone": "+05:30"}),
    key("String:localeCompare"),
    key("String:localeCompare", "en", {"sensitivity": "base"}),
    key("Collator", "de", {"numeric": True}),
]


@pytest.mark.parametrize("k", COMMON)
def test_common_formatters_are_served_by_icu(k):
    """The formatters models use most pass the probes, so their calls never wait on V8."""
    assert registry.fast_path(k)


def test_a_formatter_that_differs_from_v8_is_never_used(monkeypatch):
    """An ICU formatter with one wrong probe answer is dropped: V8 answers every call."""

    class Wrong:
        def __init__(self, options: Options) -> None:
            pass

        def __call__(self, method, args):
            return "1,234.5" if args == [1234.5] else "wrong"

    method, probes, _ = registry.FAST["NumberFormat"]
    monkeypatch.setitem(registry.FAST, "NumberFormat", (method, probes, Wrong))
    k = key("NumberFormat", "en-US", {"minimumIntegerDigits": 2})
    assert not registry.fast_path(k)
    assert call(k, "format", 5) == {"ok": "05"}


def test_calls_icu_leaves_aside_are_answered_by_v8():
    """A decimal string, a NaN date, formatToParts: V8's answers through the same object."""
    numbers = key("NumberFormat", "en-US")
    dates = key("DateTimeFormat", "en-US", {"timeZone": "UTC"})
    assert registry.fast_path(numbers) and registry.fast_path(dates)
    assert call(numbers, "format", "12345678901234567890.5") == {"ok": "12,345,678,901,234,567,890.5"}
    assert call(dates, "format", {"$": "NaN"}) == {"error": {"name": "RangeError", "message": "Invalid time value"}}
    assert call(numbers, "formatToParts", -1) == {
        "ok": [{"type": "minusSign", "value": "-"}, {"type": "integer", "value": "1"}]
    }


def test_errors_are_v8s_and_entries_are_kept_once_made():
    """A constructor's error is V8's; a made entry answers again without a new construction."""
    bad = intl.handle(json.dumps({"op": "new", "key": key("NumberFormat", "en", {"style": "currency"})}))
    assert bad == {"error": {"name": "TypeError", "message": "Currency code is required with currency style."}}
    k = key("NumberFormat", "en-IN")
    first = registry.entry(k)
    assert registry.entry(k) is first
    assert call(k, "format", 12345678.9) == {"ok": "1,23,45,678.9"}


def test_without_v8_intl_is_a_typeerror_naming_the_missing_part(monkeypatch):
    """A host where mini-racer cannot load answers with a TypeError that says so, never a wrong string."""
    from codemode.runtime.intl import oracle

    monkeypatch.setattr(oracle, "_racer", None)
    monkeypatch.setitem(__import__("sys").modules, "py_mini_racer", None)
    reply = intl.handle(json.dumps({"op": "new", "key": key("NumberFormat", "en", {"style": "unit", "unit": "acre"})}))
    assert reply["error"]["name"] == "TypeError"
    assert reply["error"]["message"].startswith(
        "Intl needs the mini-racer package (V8 with ICU), which cannot be loaded here ("
    )
    assert reply["error"]["message"].endswith('); use engine = "v8"')
